//! Every command, in every output mode, with its standard output closed at the reading
//! end (as `skills list | head` leaves it): the command ends quietly, with status 0 or
//! killed by SIGPIPE as other command-line tools are, never a panic or an error message.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{md, write};

/// The write end of a pipe whose read end is already closed.
fn closed_pipe() -> OwnedFd {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    #[allow(unsafe_code)]
    let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
    assert_eq!(made, 0, "pipe(2) failed");
    // SAFETY: both descriptors were just created and are owned by nobody else.
    #[allow(unsafe_code)]
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    write
}

fn skills_into_closed_pipe(cwd: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(args)
        .current_dir(cwd)
        .env("NO_PROGRESS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::from(closed_pipe()))
        .stderr(Stdio::piped());
    command
}

fn assert_quiet_end(status: ExitStatus, stderr: &str, what: &str) {
    let by_sigpipe = status.signal() == Some(libc::SIGPIPE);
    assert!(status.code() == Some(0) || by_sigpipe, "{what}: {status:?}\n{stderr}");
    for noise in ["panicked", "Broken pipe", "error:"] {
        assert!(!stderr.contains(noise), "{what}: {noise:?} on stderr:\n{stderr}");
    }
}

fn library(dir: &Path) {
    for i in 0..40 {
        let name = format!("skill-{i:02}");
        write(
            dir,
            &format!("lib/{name}/SKILL.md"),
            &md(&name, "A skill that prints enough to fill lines"),
        );
        write(dir, &format!("lib/{name}/scripts/run.sh"), "echo");
    }
}

#[test]
fn every_command_ends_quietly_when_its_output_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let cases: &[&[&str]] = &[
        &["list", "--source", "lib"],
        &["list", "--source", "lib", "--json"],
        &["info", "skill-07", "--source", "lib"],
        &["info", "skill-07", "--source", "lib", "--json"],
        &["prompt", "--source", "lib"],
        &["prompt", "--source", "lib", "--json", "--loaded", "skill-01"],
        &["load", "skill-03", "--source", "lib"],
        &["load", "skill-03", "--source", "lib", "--json"],
        &["validate", "lib"],
        &["validate", "lib", "--json"],
        &["new", "fresh-skill", "--dir", "made"],
        &["search", "skill", "--source", "lib"],
        &["load", "skill-03", "--source", "lib", "--", "an argument"],
        &["lock", "--source", "lib"],
        &["verify", "--source", "lib"],
        &["verify", "--source", "lib", "--json"],
        &["list", "--source", "lib", "--frozen"],
        &["publish", "lib"],
        &["publish", "lib", "--well-known", "site"],
        &["--help"],
        &["--version"],
    ];
    for args in cases {
        let output = skills_into_closed_pipe(dir.path(), args).output().unwrap();
        assert_quiet_end(output.status, &String::from_utf8_lossy(&output.stderr), &args.join(" "));
    }
    assert!(
        dir.path().join("made/fresh-skill/SKILL.md").is_file(),
        "new still did its work"
    );
    assert!(dir.path().join("skills.lock").is_file(), "lock still did its work");
    assert!(
        dir.path().join("lib/skills-index.json").is_file(),
        "publish still did its work"
    );
}

#[test]
fn watch_ends_quietly_when_its_output_is_closed() {
    for json in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        library(dir.path());
        let mut args = vec!["watch", "--source", "lib"];
        if json {
            args.push("--json");
        }
        let mut child = skills_into_closed_pipe(dir.path(), &args).spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        while !seen.contains("watching") {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "watch ended early: {seen}");
            seen.push_str(&line);
        }
        // The change's line goes to the closed output.
        write(dir.path(), "lib/added/SKILL.md", &md("added", "New"));
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("watch (json: {json}) kept running with its output closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_quiet_end(status, &format!("{seen}{rest}"), &args.join(" "));
    }
}

/// The commands that write finish their work whoever reads their output: a closed pipe
/// never leaves skills installed and the lock unwritten.
#[test]
fn installer_commands_finish_their_work_when_their_output_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = dir.path().join("lib");
    let lib = lib.to_str().unwrap();
    let run = |args: &[&str]| {
        let output = skills_into_closed_pipe(&project, args)
            .env("HOME", dir.path().join("home"))
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_quiet_end(output.status, &String::from_utf8_lossy(&output.stderr), &args.join(" "));
    };
    run(&["add", lib]);
    let lock = std::fs::read_to_string(project.join("skills.lock")).unwrap();
    assert_eq!(lock.matches("[skills.\"").count(), 40, "every skill pinned");
    assert!(project.join(".claude/skills/skill-39/SKILL.md").is_file());
    write(dir.path(), "lib/skill-05/scripts/run.sh", "echo v2");
    run(&["update"]);
    assert_eq!(
        std::fs::read_to_string(project.join(".agents/skills/skill-05/scripts/run.sh")).unwrap(),
        "echo v2"
    );
    run(&["sync"]);
    run(&["remove", "skill-01"]);
    assert!(!project.join(".agents/skills/skill-01").exists());
}

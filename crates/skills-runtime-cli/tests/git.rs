//! The `skills` binary on `git+` sources: a local repository and a `git daemon` remote.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{Watcher, md, stderr, stdout, strings, verify_served};
use serde_json::Value;
use skills_backend_git::test_support::{GitDaemon, TestRepo};

fn skills(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env("SKILLS_GIT_CACHE", cache)
        .output()
        .unwrap()
}

/// The JSON on stdout of a command that succeeded.
fn json(output: &Output) -> Value {
    assert!(output.status.success(), "{}", stderr(output));
    common::json(output)
}

#[test]
fn list_and_info_read_git_sources_at_a_ref() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "v1"));
    repo.write("skills/web/scripts/search.py", "print()");
    let first = repo.commit("main", "v1");
    repo.tag("v1", first);
    repo.write("skills/web/SKILL.md", md("web", "v2"));
    repo.write("skills/pdf/SKILL.md", md("pdf", "Read PDFs"));
    let second = repo.commit("main", "v2");
    let cache = tempfile::tempdir().unwrap();
    let local = format!("git+file://{}", repo.path().display());

    let listed = json(&skills(
        cache.path(),
        &["list", "--json", "--source", &format!("{local}#ref=main&path=skills")],
    ));
    let names: Vec<_> = strings(&listed, "name");
    assert_eq!(names, ["pdf", "web"]);
    assert_eq!(listed[0]["source"], "skills");

    // A tag, through the daemon: the resolved commit is shown.
    let daemon = GitDaemon::start(repo.base());
    let remote = format!("team=git+{}#ref=tags/v1&path=skills", daemon.url("repo.git"));
    let info = json(&skills(cache.path(), &["info", "web", "--json", "--source", &remote]));
    assert_eq!(info["description"], "v1");
    assert_eq!(info["source"], "team");
    let location = info["source_location"].as_str().unwrap();
    assert!(location.ends_with(&format!("@ {first}")), "{location}");
    let files: Vec<_> = strings(&info["files"], "path");
    assert_eq!(files, ["SKILL.md", "scripts/search.py"]);

    // A pinned commit.
    let pinned = format!("{local}#ref={second}&path=skills");
    let info = json(&skills(cache.path(), &["info", "pdf", "--json", "--source", &pinned]));
    assert!(info["source_location"].as_str().unwrap().ends_with(&second.to_string()));

    // Errors: exit 2, clear message.
    for (source, needle) in [
        (format!("{local}#ref=nope"), "nope does not exist"),
        (format!("{local}#path=../x"), "invalid git source"),
        ("git+https://me:tok3n@127.0.0.1:1/r.git".to_owned(), "127.0.0.1:1"),
    ] {
        let output = skills(cache.path(), &["list", "--source", &source]);
        assert_eq!(output.status.code(), Some(2), "{source}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{source}: {stderr}");
        assert!(!stderr.contains("tok3n"), "{stderr}");
    }
}

/// Every command that reads sources, on a git source, with each exit code.
#[test]
fn every_command_reads_a_git_source() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "Search the web"));
    repo.write("skills/web/scripts/search.py", "print()");
    repo.write("skills/pdf/SKILL.md", md("pdf", "Read PDFs"));
    let clean = repo.commit("main", "two good skills");
    repo.tag("clean", clean);
    repo.write("skills/broken/SKILL.md", "---\nname: broken\n---\nno description\n");
    repo.commit("main", "a broken skill");
    let cache = tempfile::tempdir().unwrap();
    let source = format!("git+file://{}#ref=main&path=skills", repo.path().display());
    let clean_source = format!("git+file://{}#ref=tags/clean&path=skills", repo.path().display());
    let run = |args: &[&str]| skills(cache.path(), args);

    // list: the broken skill is reported on stderr, the rest listed; exit 0.
    let listed = run(&["list", "--json", "--source", &source]);
    assert_eq!(strings(&json(&listed), "name"), ["pdf", "web"]);
    assert!(stderr(&listed).contains("broken/SKILL.md"), "{}", stderr(&listed));

    // info: 0, and 2 for an unknown name.
    assert_eq!(
        json(&run(&["info", "pdf", "--json", "--source", &source]))["description"],
        "Read PDFs"
    );
    assert_eq!(run(&["info", "nope", "--source", &source]).status.code(), Some(2));

    // validate: 1 with the broken skill, 0 at the clean tag, 2 for a missing ref.
    let invalid = run(&["validate", &source]);
    assert_eq!(invalid.status.code(), Some(1), "{}", stderr(&invalid));
    assert!(stdout(&invalid).contains("broken/SKILL.md"), "{}", stdout(&invalid));
    let valid = run(&["validate", "--json", &clean_source]);
    assert_eq!(valid.status.code(), Some(0), "{}", stderr(&valid));
    assert_eq!(strings(&json(&valid)["skills"], "name"), ["pdf", "web"]);
    let missing = format!("git+file://{}#ref=nope", repo.path().display());
    assert_eq!(run(&["validate", &missing]).status.code(), Some(2));

    // prompt: the section names both skills; an unknown --loaded name is 2.
    let prompt = json(&run(&["prompt", "--json", "--loaded", "web", "--source", &source]));
    let section = prompt["section"].as_str().unwrap();
    assert!(
        section.contains("**web** [Loaded]") && section.contains("**pdf**"),
        "{section}"
    );
    assert_eq!(
        run(&["prompt", "--loaded", "nope", "--source", &source]).status.code(),
        Some(2)
    );

    // load: the SKILL.md and the resource list, as load_skill answers; 2 when unknown.
    let loaded = run(&["load", "web", "--source", &source]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    assert!(
        stdout(&loaded).starts_with(&md("web", "Search the web")),
        "{}",
        stdout(&loaded)
    );
    assert!(
        stdout(&loaded).contains("- [script] `/web/scripts/search.py`"),
        "{}",
        stdout(&loaded)
    );
    assert_eq!(run(&["load", "nope", "--source", &source]).status.code(), Some(2));

    // serve: an MCP client verifies every served file of the git tree.
    let reports = verify_served(&source, &[("SKILLS_GIT_CACHE", cache.path().to_str().unwrap())]);
    assert_eq!(reports.len(), 2);

    // watch: a commit on the followed branch is one line.
    let (watcher, _) = Watcher::start(
        &["--json", "--source", &source],
        &[("SKILLS_GIT_CACHE", cache.path())],
        Duration::from_secs(30),
    );
    repo.write("skills/sql/SKILL.md", md("sql", "Review SQL"));
    repo.commit("main", "add sql");
    let line = watcher.next_line(Duration::from_secs(30));
    let event: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (event["change"].as_str(), event["name"].as_str()),
        (Some("added"), Some("sql")),
        "{line}"
    );
}

#[test]
fn a_remote_that_accepts_and_never_answers_times_out_with_exit_2() {
    // A server that takes the connection and says nothing, as a stalled remote does.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        // Hold it open until the client gives up (it closes its end).
        let _ = std::io::Read::read(&mut &stream, &mut [0u8; 1024]);
        std::thread::sleep(Duration::from_secs(5));
    });
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list", "--source", &format!("git+git://127.0.0.1:{port}/team.git")])
        .env("SKILLS_GIT_CACHE", cache.path())
        .env("SKILLS_GIT_TIMEOUT", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded: without the timeout the command would wait forever; give it 60 s.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("skills list hung on a silent remote");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains(&format!("127.0.0.1:{port}")) && text.contains("timed out"),
        "{text}"
    );
    let _ = held.join();

    let bad = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list"])
        .env("SKILLS_GIT_TIMEOUT", "soon")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("SKILLS_GIT_TIMEOUT"), "{}", stderr(&bad));
}

/// A frozen library on a git branch serves the locked commit after the branch moved;
/// `verify` says what moved.
#[test]
fn frozen_serves_the_locked_commit_when_the_branch_moves() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "pinned"));
    let first = repo.commit("main", "v1");
    let daemon = GitDaemon::start(repo.base());
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let source = format!("team=git+{}#ref=main&path=skills", daemon.url("repo.git"));
    let lockfile = dir.path().join("skills.lock");
    let lockfile = lockfile.to_str().unwrap();
    let args = |command: &'static str| vec![command, "--source", source.as_str(), "--lockfile", lockfile];

    let out = skills(cache.path(), &args("lock"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(lockfile).unwrap();
    assert!(text.contains(&format!("resolved = \"git:{first}\"")), "{text}");

    repo.write("skills/web/SKILL.md", md("web", "moved on"));
    repo.write("skills/pdf/SKILL.md", md("pdf", "new"));
    repo.commit("main", "v2");
    let mut frozen = args("list");
    frozen.extend(["--json", "--frozen"]);
    let listed = json(&skills(cache.path(), &frozen));
    assert_eq!(strings(&listed, "name"), ["web"], "the locked commit has no pdf");
    assert_eq!(listed[0]["description"], "pinned");
    let mut load = args("load");
    load.extend(["web", "--frozen"]);
    let loaded = skills(cache.path(), &load);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    assert!(stdout(&loaded).contains("description: pinned"));

    // Unfrozen, the branch's head: verify reports the drift.
    let out = skills(cache.path(), &args("verify"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "new skill: pdf (not in skills.lock)\nchanged: web/SKILL.md\n"
    );
}

#[test]
fn verify_without_sources_checks_the_git_source_the_lock_names() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "pinned"));
    repo.commit("main", "v1");
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let lockfile = dir.path().join("skills.lock");
    let lockfile = lockfile.to_str().unwrap();
    let source = format!("team=git+file://{}#ref=main&path=skills", repo.path().display());
    let out = skills(cache.path(), &["lock", "--source", &source, "--lockfile", lockfile]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(lockfile).unwrap();
    assert!(
        text.contains(&format!(
            "spec = \"git+file://{}#ref=main&path=skills\"",
            repo.path().display()
        )),
        "{text}"
    );

    // No --source: the lock's own source is read, at the branch's head.
    let out = skills(cache.path(), &["verify", "--lockfile", lockfile]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    repo.write("skills/web/SKILL.md", md("web", "moved on"));
    repo.commit("main", "v2");
    let out = skills(cache.path(), &["verify", "--lockfile", lockfile]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "changed: web/SKILL.md\n");
}

//! `skills sync --watch` as a running process: every change of a watched source (any
//! file of a skill, a new skill, a new commit of a remote) reaches the project's folders
//! as `skills update` would install it, and an edit made here is kept.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Watcher, md, skills, stderr, write};
use skills_backend_git::test_support::{GitDaemon, TestRepo};

const TIMEOUT: Duration = Duration::from_secs(30);

/// `skills sync --watch` in `project`, HOME at `home`, remotes polled every second.
fn start(project: &Path, home: &Path) -> Watcher {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(["sync", "--watch"])
        .current_dir(project)
        .env("HOME", home)
        .env("SKILLS_GIT_CACHE", home.join("cache"))
        .env("SKILLS_POLL_INTERVAL", "1");
    let (watcher, ready) = Watcher::spawn(command, TIMEOUT);
    assert!(ready.starts_with("watching 1 sources"), "{ready}");
    watcher
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_folder_source_reaches_the_agents_folders_file_by_file_and_keeps_local_edits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lib/web/SKILL.md", &md("web", "Search the web"));
    write(root, "lib/web/scripts/fetch.py", "print('v1')\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = root.join("lib");
    let out = skills(&project, &["add", lib.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let watcher = start(&project, &root.join("home"));

    // A script changes upstream, SKILL.md does not: the installed copy follows.
    write(root, "lib/web/scripts/fetch.py", "print('v2')\n");
    let lines = watcher.lines_until("update web", TIMEOUT);
    assert!(
        lines.last().unwrap().contains("1 changed (scripts/fetch.py)"),
        "{lines:#?}"
    );
    watcher.lines_until("skills in place", TIMEOUT);
    assert_eq!(
        read(&project.join(".agents/skills/web/scripts/fetch.py")),
        "print('v2')\n"
    );
    assert_eq!(
        read(&project.join(".claude/skills/web/scripts/fetch.py")),
        "print('v2')\n"
    );
    let lock = read(&project.join("skills.lock"));
    assert!(
        lock.contains(&skills_runtime::digest::sha256_text(b"print('v2')\n")),
        "{lock}"
    );

    // A new skill of the source is installed and linked.
    write(root, "lib/notes/SKILL.md", &md("notes", "Take notes"));
    watcher.lines_until("install notes", TIMEOUT);
    watcher.lines_until("skills in place", TIMEOUT);
    assert!(project.join(".claude/skills/notes/SKILL.md").is_file());

    // An edit made here is kept when the source changes the same skill.
    write(&project, ".agents/skills/pdf/SKILL.md", "my own words\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs, better"));
    let lines = watcher.lines_until("pdf", TIMEOUT);
    assert!(lines.last().unwrap().starts_with("keep pdf: edited here"), "{lines:#?}");
    assert_eq!(read(&project.join(".agents/skills/pdf/SKILL.md")), "my own words\n");
}

#[test]
fn a_remote_git_library_reaches_the_project_within_a_poll_of_a_commit() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "v1"));
    repo.commit("main", "v1");
    let mut daemon = GitDaemon::start(repo.base());
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let home = dir.path().join("home");
    let source = format!("git+{}#ref=main&path=skills", daemon.url("repo.git"));
    let out = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["add", &source])
        .current_dir(&project)
        .env("HOME", &home)
        .env("SKILLS_GIT_CACHE", home.join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let watcher = start(&project, &home);

    repo.write("skills/web/SKILL.md", md("web", "v2"));
    repo.commit("main", "v2");
    let lines = watcher.lines_until("update web", TIMEOUT);
    assert!(lines.last().unwrap().contains("1 changed (SKILL.md)"), "{lines:#?}");
    watcher.lines_until("skills in place", TIMEOUT);
    assert!(read(&project.join(".claude/skills/web/SKILL.md")).contains("description: v2"));
    daemon.stop();
}

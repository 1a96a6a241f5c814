//! The `skills` binary on `git+` sources: a local repository and a `git daemon` remote.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::strings;
use serde_json::Value;
use skills_backend_git::test_support::{GitDaemon, TestRepo};

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn skills(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env("SKILLS_GIT_CACHE", cache)
        .output()
        .unwrap()
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
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

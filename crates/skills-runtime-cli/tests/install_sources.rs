//! `skills add`, `outdated` and `update` on remote libraries, as a team uses them: an
//! S3 bucket on the S3-compatible test server and an HTTP registry on 127.0.0.1, into a
//! project with a temporary HOME.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{md, stderr, stdout};
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_runtime::digest::sha256_text;

/// `skills ARGS` in `project` (HOME beside it), with `env`, off the async runtime.
async fn skills(project: &Path, args: &[&str], env: &[(&'static str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(args)
        .current_dir(project)
        .env("HOME", project.join("home"))
        .envs(env.iter().cloned());
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_library_on_s3_is_installed_checked_and_updated() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let store = server.store("team");
    upload(
        &*store,
        "library",
        [
            ("web/SKILL.md", md("web", "Search the web").into_bytes()),
            ("web/scripts/search.py", b"print(1)\n".to_vec()),
            ("pdf/SKILL.md", md("pdf", "Read PDFs").into_bytes()),
        ],
    )
    .await;
    let env = [
        ("AWS_ENDPOINT_URL", server.endpoint()),
        ("AWS_ACCESS_KEY_ID", "cli-test-key".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "cli-test-secret-value".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ];
    let dir = project();
    let project = dir.path();

    let out = skills(project, &["add", "s3://team/library", "--skill", "web"], &env).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/skills/web/scripts/search.py")).unwrap(),
        "print(1)\n"
    );
    assert!(!project.join(".agents/skills/pdf").exists());

    upload(&*store, "library", [("web/scripts/search.py", b"print(2)\n".to_vec())]).await;
    let out = skills(project, &["outdated"], &env).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "web: outdated: 1 changed (scripts/search.py)\n");
    let out = skills(project, &["update"], &env).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("update web: 1 changed (scripts/search.py)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".agents/skills/web/scripts/search.py")).unwrap(),
        "print(2)\n"
    );
    assert_eq!(skills(project, &["outdated"], &env).await.status.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registrys_digests_are_checked_before_anything_is_written() {
    let (registry, web) = common::registry_with_a_tampered_skill();
    let url = registry.start().await;
    let dir = project();
    let project = dir.path();

    let out = skills(project, &["add", &url, "--skill", "evil"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("does not match the digest the index gives"),
        "{}",
        stderr(&out)
    );
    assert!(!project.join(".agents").exists() && !project.join("skills.lock").exists());

    let out = skills(project, &["add", &url, "--skill", "web"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/skills/web/SKILL.md")).unwrap(),
        web
    );
    let lock = std::fs::read_to_string(project.join("skills.lock")).unwrap();
    assert!(lock.contains(&sha256_text(web.as_bytes())), "{lock}");
}

#[tokio::test]
async fn two_sources_with_one_label_keep_their_own_entries_in_the_lock() {
    // Two libraries whose folders are both named `skills` (as `anthropics/skills` and
    // `obra/superpowers` keep theirs): each is a source labelled `skills`.
    let dir = project();
    let root = dir.path();
    for (owner, name) in [("first", "pdf"), ("second", "review")] {
        let folder = root.join(format!("{owner}/skills/{name}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), md(name, &format!("The {name} skill"))).unwrap();
    }
    for owner in ["first", "second"] {
        let out = skills(root, &["add", &format!("{owner}/skills")], &[]).await;
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let lock = std::fs::read_to_string(root.join("skills.lock")).unwrap();
    assert!(
        lock.contains("[sources.\"skills\"]") && lock.contains("[sources.\"skills-2\"]"),
        "{lock}"
    );
    // Each skill is checked, synced and updated against its own source.
    let out = skills(root, &["outdated"], &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 skills up to date"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let out = skills(root, &["sync", "--frozen"], &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    // A frozen sync that has to install again checks each source's pinned skills only.
    std::fs::remove_dir_all(root.join(".agents/skills/review")).unwrap();
    let out = skills(root, &["sync", "--frozen"], &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(root.join(".agents/skills/review/SKILL.md").is_file());
    let out = skills(root, &["update"], &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
    // Adding the first again keeps its entry (no `skills-3`).
    let out = skills(root, &["add", "first/skills"], &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let lock = std::fs::read_to_string(root.join("skills.lock")).unwrap();
    assert!(!lock.contains("skills-3"), "{lock}");
}

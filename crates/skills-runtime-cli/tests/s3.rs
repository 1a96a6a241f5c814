//! The `skills` binary on `s3://` sources, against a real S3-compatible server.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::process::{Command, Output};

use common::{json, stderr, stdout, strings, verify_served};
use skills_backend_s3::test_server::{S3TestServer, upload};

fn md(name: &str, description: &str) -> Vec<u8> {
    common::md(name, description).into_bytes()
}

/// The AWS environment pointing at the test server.
fn aws_env(server: &S3TestServer) -> [(&'static str, String); 4] {
    [
        ("AWS_ENDPOINT_URL", server.endpoint()),
        ("AWS_ACCESS_KEY_ID", "cli-test-key".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "cli-test-secret-value".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ]
}

/// Runs `skills` with the AWS environment pointing at the test server.
fn skills(server: &S3TestServer, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .envs(aws_env(server))
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_info_read_an_s3_library() {
    let mut server = S3TestServer::start();
    server.create_bucket("team");
    upload(
        &*server.store("team"),
        "shared/library",
        [
            ("web/SKILL.md", md("web", "Search the web")),
            ("web/scripts/search.py", b"print()".to_vec()),
            ("pdf/SKILL.md", md("pdf", "Read PDFs")),
        ],
    )
    .await;

    let output = skills(&server, &["list", "--json", "--source", "s3://team/shared/library"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let listed = json(&output);
    let names = strings(&listed, "name");
    assert_eq!(names, ["pdf", "web"]);
    assert_eq!(listed[0]["source"], "library");

    let output = skills(
        &server,
        &["info", "web", "--json", "--source", "team=s3://team/shared/library"],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let info = json(&output);
    assert_eq!(info["description"], "Search the web");
    assert_eq!(info["source"], "team");
    assert_eq!(info["source_location"], "s3://team/shared/library");
    let files: Vec<_> = strings(&info["files"], "path");
    assert_eq!(files, ["SKILL.md", "scripts/search.py"]);

    // The server goes away: a source error (exit 2) that names the source, no secret.
    server.stop();
    let output = skills(&server, &["list", "--source", "s3://team/shared/library"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("s3://team/shared/library"), "{stderr}");
    assert!(!stderr.contains("cli-test-secret-value"), "{stderr}");
}

/// Every command that reads sources, on an S3 source, with each exit code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_reads_an_s3_library() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let good = [
        ("web/SKILL.md", md("web", "Search the web")),
        ("web/scripts/search.py", b"print()".to_vec()),
        ("pdf/SKILL.md", md("pdf", "Read PDFs")),
    ];
    upload(&*server.store("team"), "clean", good.clone()).await;
    upload(&*server.store("team"), "lib", good).await;
    upload(
        &*server.store("team"),
        "lib",
        [("broken/SKILL.md", b"---\nname: broken\n---\nno description\n".to_vec())],
    )
    .await;
    let run = |args: &[&str]| skills(&server, args);
    let source = "s3://team/lib";

    let listed = run(&["list", "--json", "--source", source]);
    assert_eq!(strings(&json(&listed), "name"), ["pdf", "web"]);
    assert!(stderr(&listed).contains("broken/SKILL.md"), "{}", stderr(&listed));
    assert_eq!(run(&["info", "nope", "--source", source]).status.code(), Some(2));

    let invalid = run(&["validate", source]);
    assert_eq!(invalid.status.code(), Some(1), "{}", stderr(&invalid));
    assert!(stdout(&invalid).contains("broken/SKILL.md"));
    let valid = run(&["validate", "--json", "s3://team/clean"]);
    assert_eq!(valid.status.code(), Some(0), "{}", stderr(&valid));
    assert_eq!(run(&["validate", "s3://no-such-bucket/x"]).status.code(), Some(2));

    let prompt = json(&run(&["prompt", "--json", "--source", source]));
    let section = prompt["section"].as_str().unwrap();
    assert!(section.contains("**web**") && section.contains("**pdf**"), "{section}");
    assert_eq!(
        run(&["prompt", "--loaded", "nope", "--source", source]).status.code(),
        Some(2)
    );

    let loaded = run(&["load", "web", "--source", source]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let text = stdout(&loaded);
    assert!(
        text.starts_with("---\nname: web\n") && text.contains("- [script] `/web/scripts/search.py`"),
        "{text}"
    );
    assert_eq!(run(&["load", "nope", "--source", source]).status.code(), Some(2));

    let env = aws_env(&server);
    let served = tokio::task::spawn_blocking(move || {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        verify_served(source, &env)
    })
    .await
    .unwrap();
    assert_eq!(served.len(), 2);
}

/// Bucket `team` with skills `web` (and a script) and `pdf` under `lib/`.
async fn web_and_pdf(server: &S3TestServer) -> std::sync::Arc<dyn skills_backend_s3::object_store::ObjectStore> {
    let files = [
        ("web/SKILL.md", md("web", "Search the web")),
        ("web/scripts/search.py", b"print()".to_vec()),
        ("pdf/SKILL.md", md("pdf", "Read PDFs")),
    ];
    let files: Vec<(String, Vec<u8>)> = files.into_iter().map(|(p, c)| (p.to_owned(), c)).collect();
    server.bucket_with("team", "lib", &files).await
}

/// A library on S3, pinned: `--frozen` withdraws an object changed since, `verify`
/// names it, and putting it back serves it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_s3_library_withdraws_what_changed() {
    let server = S3TestServer::start();
    let store = web_and_pdf(&server).await;
    let dir = tempfile::tempdir().unwrap();
    let lockfile = dir.path().join("skills.lock");
    let lockfile = lockfile.to_str().unwrap();
    let base = ["--source", "team=s3://team/lib", "--lockfile", lockfile];
    let run = |command: &[&str]| skills(&server, &[command, &base[..]].concat());

    let out = run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(run(&["verify"]).status.code(), Some(0));
    upload(&*store, "lib", [("web/scripts/search.py", b"import os".to_vec())]).await;
    let listed = json(&run(&["list", "--json", "--frozen"]));
    assert_eq!(strings(&listed, "name"), ["pdf"]);
    let out = run(&["verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "changed: web/scripts/search.py\n");
    upload(&*store, "lib", [("web/scripts/search.py", b"print()".to_vec())]).await;
    assert_eq!(
        strings(&json(&run(&["list", "--json", "--frozen"])), "name"),
        ["pdf", "web"]
    );
}

/// `skills publish` writes the index into the bucket; the CLI then reads the library
/// through it, and a folder gets its index file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_writes_the_index_a_reader_uses() {
    let server = S3TestServer::start();
    let store = web_and_pdf(&server).await;
    let out = skills(&server, &["publish", "s3://team/lib"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("published 2 skills (3 files, version sha256:"),
        "{}",
        stdout(&out)
    );
    let bytes = skills_backend_s3::object_store::ObjectStoreExt::get(
        &*store,
        &skills_backend_s3::object_store::path::Path::from("lib/skills-index.json"),
    )
    .await
    .unwrap()
    .bytes()
    .await
    .unwrap();
    let index = skills_runtime::index::LibraryIndex::parse(&bytes).unwrap();
    let paths: Vec<&str> = index.files().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["pdf/SKILL.md", "web/SKILL.md", "web/scripts/search.py"]);
    assert_eq!(index.skills[1].frontmatter["description"], "Search the web");

    let listed = json(&skills(
        &server,
        &["list", "--json", "--resources", "--source", "s3://team/lib"],
    ));
    assert_eq!(strings(&listed, "name"), ["pdf", "web"]);
    assert_eq!(listed[1]["resources"]["scripts"], 1);

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("web")).unwrap();
    std::fs::write(dir.path().join("web/SKILL.md"), md("web", "Search the web")).unwrap();
    let out = skills(&server, &["publish", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read(dir.path().join("skills-index.json")).unwrap();
    assert_eq!(
        skills_runtime::index::LibraryIndex::parse(&text).unwrap().skills[0].name,
        "web"
    );
}

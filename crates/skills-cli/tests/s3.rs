//! The `skills` binary on `s3://` sources, against a real S3-compatible server.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::process::{Command, Output};

use common::strings;
use serde_json::Value;
use skills_backend_s3::test_server::{S3TestServer, upload};

fn md(name: &str, description: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n").into_bytes()
}

/// Runs `skills` with the AWS environment pointing at the test server.
fn skills(server: &S3TestServer, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .env("AWS_ACCESS_KEY_ID", "cli-test-key")
        .env("AWS_SECRET_ACCESS_KEY", "cli-test-secret-value")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
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

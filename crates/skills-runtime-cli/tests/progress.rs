//! The discovery spinner on a real terminal: `script` runs `skills` on a pseudo-terminal
//! while an S3 endpoint that accepts connections and never answers makes discovery slow
//! (request timeout 1 s, then retries), so the spinner's delay has surely passed.

#![allow(clippy::unwrap_used)]

mod common;

use std::net::TcpListener;
use std::process::Command;

use common::stdout;

/// Runs `skills ARGS` under `script` (stdout and stderr on one pseudo-terminal) against
/// a silent S3 endpoint; returns what the terminal showed and the exit status.
fn on_a_terminal(endpoint: &str, args: &str) -> (String, Option<i32>) {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_skills"));
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ACCESS_KEY_ID", "progress-test")
        .env("AWS_SECRET_ACCESS_KEY", "progress-test-secret")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_TIMEOUT", "1s")
        .env_remove("NO_PROGRESS")
        .output()
        .expect("`script` (util-linux) runs commands on a pseudo-terminal");
    (stdout(&output), output.status.code())
}

#[test]
fn slow_remote_discovery_shows_a_spinner_on_a_terminal_but_not_with_json() {
    // Accepts (the kernel's backlog does) and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());

    let (shown, status) = on_a_terminal(&endpoint, "list --source s3://bucket/lib");
    assert_eq!(status, Some(2), "{shown}");
    assert!(shown.contains("reading skill sources"), "no spinner: {shown:?}");

    let (shown, status) = on_a_terminal(&endpoint, "list --json --source s3://bucket/lib");
    assert_eq!(status, Some(2), "{shown}");
    assert!(
        !shown.contains("reading skill sources"),
        "spinner with --json: {shown:?}"
    );
}

//! The `skills` binary on an HTTP registry (`.well-known/agent-skills`) served on
//! 127.0.0.1: discovery from its index, a tampered file refused.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::process::Command;

use agent_skills::digest::sha256_text;
use common::{json, md, stderr, strings};
use skills_backend_http::test_server::Registry;

async fn skills(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || Command::new(env!("CARGO_BIN_EXE_skills")).args(args).output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_load_read_a_registry_and_refuse_a_tampered_file() {
    let registry = Registry::default();
    let web = md("web", "Search the web");
    let evil = md("evil", "Reviewed, then changed");
    registry.put("/.well-known/agent-skills/web/SKILL.md", web.as_bytes());
    registry.put("/.well-known/agent-skills/evil/SKILL.md", evil.as_bytes());
    let index = format!(
        r#"{{"skills": [
            {{"name": "web", "type": "skill-md", "description": "Search", "url": "web/SKILL.md", "digest": "{}"}},
            {{"name": "evil", "type": "skill-md", "description": "x", "url": "evil/SKILL.md", "digest": "{}"}}
        ]}}"#,
        sha256_text(web.as_bytes()),
        sha256_text(b"the reviewed version")
    );
    registry.put("/.well-known/agent-skills/index.json", index);
    let url = registry.start().await;
    let source = format!("team={url}");

    let out = skills(vec!["list".into(), "--json".into(), "--source".into(), source.clone()]).await;
    let listed = json(&out);
    assert_eq!(strings(&listed, "name"), ["web"]);
    assert_eq!(listed[0]["source"], "team");
    assert!(
        stderr(&out).contains("does not match the digest the index gives"),
        "{}",
        stderr(&out)
    );
    let out = skills(vec!["load".into(), "web".into(), "--source".into(), source.clone()]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("description: Search the web"));

    let refused = skills(vec!["list".into(), "--source".into(), "http://example.com/".into()]).await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("loopback"), "{}", stderr(&refused));
}

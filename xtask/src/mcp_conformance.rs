//! `cargo xtask mcp-conformance`: the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, pinned, with the Node.js 22 it needs, from the
//! npm registry into `target/test-conformance`) against `skills serve --http` on the
//! example skills, scenario by scenario; any failed check fails the task.
//!
//! The scenarios run are those a skills server can pass: the protocol's own (initialize,
//! sessions, ping, completion, the lists, caching hints, DNS rebinding) and the skills
//! extension's (SEP-2640). The others call the suite's reference server's own fixtures
//! by name (`test_simple_text`, `test://static-text`, `test_simple_prompt`, logging,
//! sampling, elicitation), which a skills library does not have.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::{cargo, npm_tools, step, target_dir, workspace_root};

/// The suite and the Node.js it runs on, pinned.
const PACKAGES: &[&str] = &["@modelcontextprotocol/conformance@0.2.0-alpha.12", "node@22.23.3"];

/// The scenarios that apply to a skills server.
const SCENARIOS: &[&str] = &[
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "completion-complete",
    "tools-list",
    "server-sse-multiple-streams",
    "resources-list",
    "prompts-list",
    "caching",
    "dns-rebinding-protection",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// `target/test-conformance` with [`PACKAGES`]; returns its `node_modules/.bin`.
fn tools() -> Result<PathBuf, String> {
    npm_tools("test-conformance", PACKAGES, "conformance", "the MCP conformance run")
}

/// Runs [`SCENARIOS`] against `skills serve --http` on `examples/skills`.
pub fn run() -> Result<(), String> {
    let bin = tools()?;
    let mut build = cargo();
    build.args(["build", "--quiet", "-p", "skills-runtime-cli"]);
    step("build skills", build)?;
    let mut server = Command::new(target_dir().join("debug/skills"))
        .args(["serve", "--http", "127.0.0.1:0", "--source"])
        .arg(workspace_root().join("examples/skills"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start skills serve: {e}"))?;
    let url = server_url(&mut server);
    let result = url.and_then(|url| scenarios(&bin, &url));
    let _ = server.kill();
    let _ = server.wait();
    result
}

/// The URL `skills serve` prints on stderr once it listens.
fn server_url(server: &mut std::process::Child) -> Result<String, String> {
    let stderr = server.stderr.take().ok_or("skills serve has no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    for line in lines.by_ref() {
        let line = line.map_err(|e| format!("skills serve: {e}"))?;
        if let Some(at) = line.find("http://") {
            // Keep reading what the server says, so a full pipe never stalls it.
            std::thread::spawn(move || lines.for_each(drop));
            return Ok(line[at..].trim().to_owned());
        }
    }
    Err("skills serve ended before it listened".to_owned())
}

fn scenarios(bin: &std::path::Path, url: &str) -> Result<(), String> {
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::var_os("PATH").iter().flat_map(std::env::split_paths)),
    )
    .map_err(|e| format!("PATH: {e}"))?;
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let mut run = Command::new(bin.join("conformance"));
        run.args(["server", "--url", url, "--scenario", scenario])
            .env("PATH", &path);
        if step(&format!("mcp-conformance: {scenario}"), run).is_err() {
            failed.push(*scenario);
        }
    }
    if failed.is_empty() {
        println!("mcp-conformance: {} scenarios, no failed check", SCENARIOS.len());
        Ok(())
    } else {
        Err(format!("mcp-conformance: failed checks in {}", failed.join(", ")))
    }
}

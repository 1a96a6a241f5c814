//! Helpers shared by the tests that run the built `skills` binary.

#![allow(dead_code, clippy::unwrap_used)] // Each test binary uses part of it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};

use serde_json::Value;

/// Writes a file atomically (temp file + rename, as editors do), creating its
/// directories.
pub fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp-write");
    std::fs::write(&tmp, content).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

/// A minimal valid `SKILL.md`.
pub fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

/// Runs `skills` in `cwd` with `HOME` at `cwd/home` (a folder of its own, so the user
/// and project layers of the default chain are distinct), empty unless a test fills it.
pub fn skills(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd.join("home"))
        .output()
        .unwrap()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The JSON on stdout.
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(output)))
}

/// The string `key` of every element of a JSON array (`names(&list, "name")`).
pub fn strings<'a>(array: &'a Value, key: &str) -> Vec<&'a str> {
    array
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap())
        .collect()
}

/// Lines of a child's pipe, delivered through a channel so reads can time out.
pub fn lines(pipe: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A test tool: the variable `cargo xtask test` sets, else where `cargo xtask test-tools`
/// puts it.
fn tool(var: &str, under_target: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(var) {
        return PathBuf::from(path);
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join(under_target);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask test-tools` (or `cargo xtask test`), or set {var}",
        path.display()
    );
    path
}

/// The Python of the test venv, which has the `mcp` SDK.
pub fn python() -> PathBuf {
    tool("SKILLS_TEST_PYTHON", "test-venv/bin/python")
}

/// Runs tests/mcp/client.py in `mode`, from `cwd`, against `server` (a URL, or the command
/// line of a stdio server) for the library at `library`: the process's output and the
/// report it printed last. Panics when the client fails.
pub fn mcp_client(cwd: &Path, mode: &str, library: &Path, server: &[&str]) -> (Output, Value) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let output = Command::new(python())
        .arg(script)
        .arg(mode)
        .arg(library)
        .args(server)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "client failed\nstdout: {}\nstderr: {}",
        stdout(&output),
        stderr(&output)
    );
    let last = stdout(&output).lines().last().unwrap_or_default().to_owned();
    let report = serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {}", stdout(&output)));
    (output, report)
}

/// The MCP inspector's command.
pub fn inspector() -> PathBuf {
    tool("SKILLS_TEST_MCP_INSPECTOR", "test-npm/node_modules/.bin/mcp-inspector")
}

/// Runs the MCP inspector's CLI (`--cli -q`) in a protocol era against a target (a URL,
/// or the command line of a stdio server).
pub fn run_inspector(era: &str, target: &[&str], args: &[&str]) -> Output {
    Command::new(inspector())
        .args(["--cli", "-q", "--protocol-era", era])
        .args(target)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The JSON lines of a command's stdout.
pub fn json_lines(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Asserts that the inspector verifies every skill `skills serve` lists on `source`
/// (SEP-2640 conformance, every digest), and returns the per-skill reports.
pub fn verify_served(source: &str, server_env: &[(&str, &str)]) -> Vec<Value> {
    let mut target = Vec::new();
    for (key, value) in server_env {
        target.push("-e".to_owned());
        target.push(format!("{key}={value}"));
    }
    target.extend([
        env!("CARGO_BIN_EXE_skills").to_owned(),
        "serve".to_owned(),
        "--source".to_owned(),
        source.to_owned(),
    ]);
    let target: Vec<&str> = target.iter().map(String::as_str).collect();
    let output = run_inspector(
        "legacy",
        &target,
        &["--method", "skills/list", "--verify", "--require-digests"],
    );
    assert!(output.status.success(), "{}\n{}", stdout(&output), stderr(&output));
    let reports = json_lines(&output);
    for report in &reports {
        assert_eq!(report["ok"], Value::Bool(true), "{report}");
    }
    reports
}

/// A running `skills watch`: its output lines, killed when dropped (also when a test
/// fails halfway).
pub struct Watcher {
    child: Child,
    out: Receiver<String>,
}

impl Watcher {
    /// Starts `skills watch ARGS` with the given environment and waits for its
    /// `watching ...` line, which it returns.
    pub fn start(args: &[&str], env: &[(&str, &Path)], timeout: std::time::Duration) -> (Self, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
        command.arg("watch").args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        Self::spawn(command, timeout)
    }

    /// Starts `command` (a `skills` command that watches) and waits for the line on
    /// stderr that starts with `watching `, which it returns.
    #[allow(dead_code)] // Not every test file that shares this module uses it.
    pub fn spawn(mut command: Command, timeout: std::time::Duration) -> (Self, String) {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let out = lines(child.stdout.take().unwrap());
        let err = lines(child.stderr.take().unwrap());
        let watcher = Self { child, out };
        loop {
            let line = err.recv_timeout(timeout).unwrap();
            if line.starts_with("watching ") {
                return (watcher, line);
            }
        }
    }

    /// The next line on stdout.
    pub fn next_line(&self, timeout: std::time::Duration) -> String {
        self.out.recv_timeout(timeout).unwrap()
    }

    /// The lines on stdout up to the first that contains `needle` (included), or a
    /// failure naming what came instead.
    #[allow(dead_code)] // Not every test file that shares this module uses it.
    pub fn lines_until(&self, needle: &str, timeout: std::time::Duration) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.out.recv_timeout(timeout) {
                Ok(line) => {
                    let done = line.contains(needle);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no line with {needle:?} ({e}); got {seen:#?}"),
            }
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `skills ARGS` run in `root`, with HOME at `root/home` and the git cache in `root`.
#[allow(dead_code)] // Not every test file that shares this module uses it.
pub fn with_git_cache(root: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .current_dir(root)
        .env("HOME", root.join("home"))
        .env("SKILLS_GIT_CACHE", root.join("cache"))
        .output()
        .unwrap()
}

/// A small library under `root/lib`: `web` (with a script) and `pdf`.
#[allow(dead_code)] // Not every test file that shares this module uses it.
pub fn web_and_pdf(root: &Path) {
    write(root, "lib/web/SKILL.md", &md("web", "Search the web"));
    write(root, "lib/web/scripts/fetch.py", "print('fetch')\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs"));
}

/// An HTTP registry (not started) of two skills: `web`, as its index says, and `evil`,
/// whose file does not match the digest the index gives. Returns `web`'s SKILL.md too.
#[allow(dead_code)] // Not every test file that shares this module uses it.
pub fn registry_with_a_tampered_skill() -> (skills_backend_http::test_server::Registry, String) {
    use skills_runtime::digest::sha256_text;
    let registry = skills_backend_http::test_server::Registry::default();
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
    (registry, web)
}

/// `skills serve --http 127.0.0.1:0 ARGS`, killed on drop.
pub struct HttpServe {
    child: std::process::Child,
    /// The address it printed (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
    /// Kept open: the server may still write to its stderr.
    _err: Receiver<String>,
}

impl HttpServe {
    /// Starts the server with `args` after `serve --http 127.0.0.1:0` and waits for the
    /// address it prints.
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let err = lines(child.stderr.take().unwrap());
        let url = loop {
            let line = err
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("skills serve --http printed its address");
            if let Some(at) = line.find("http://") {
                break line[at..].to_owned();
            }
        };
        Self { child, url, _err: err }
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! `skills serve` driven by MCP clients this project did not write: the `mcp` Python
//! SDK's client (tests/mcp/client.py reports what it saw, these tests judge it) and the
//! MCP inspector's CLI, which also checks the skills extension (SEP-2640) conformance
//! and every digest. `cargo xtask test` installs both (pinned) and names them in
//! SKILLS_TEST_PYTHON and SKILLS_TEST_MCP_INSPECTOR.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{HttpServe, json_lines, mcp_client, md, run_inspector, stderr, stdout, write};
use serde_json::{Value, json};
use tempfile::TempDir;

const SKILLS: &str = env!("CARGO_BIN_EXE_skills");

/// A library of two skills: `alpha` with a script, a reference, a binary asset, numeric
/// and list frontmatter, and a link to a secret outside the library; and `beta`.
struct Library {
    dir: TempDir,
}

impl Library {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib");
        write(
            &lib,
            "alpha/SKILL.md",
            "---\nname: alpha\ndescription: First skill.\nversion: 1.10\ntags: [x, y]\n---\n# Alpha\n",
        );
        write(&lib, "alpha/scripts/run.py", "print('hi')\n");
        write(&lib, "alpha/references/guide.md", "# Guide\n");
        std::fs::create_dir_all(lib.join("alpha/assets")).unwrap();
        std::fs::write(lib.join("alpha/assets/logo.bin"), b"\x89PNG\x00\xff").unwrap();
        write(&lib, "beta/SKILL.md", &md("beta", "Second skill."));
        write(dir.path(), "secret.txt", "TOP SECRET\n");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), lib.join("alpha/references/secret.md")).unwrap();
        Self { dir }
    }

    fn lib(&self) -> PathBuf {
        self.dir.path().join("lib")
    }

    fn lib_str(&self) -> String {
        self.lib().to_str().unwrap().to_owned()
    }
}

/// Runs tests/mcp/client.py in `mode` against `server` (a URL or a command line); the
/// client adds the skill `gamma` mid-session.
fn python_client(mode: &str, library: &Library, server: &[&str]) -> Value {
    mcp_client(library.dir.path(), mode, &library.lib(), server).1
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

/// What both protocol eras must have seen.
fn check_report(report: &Value, library: &Library) {
    let extensions = &report["capabilities"]["extensions"];
    assert_eq!(
        extensions["io.modelcontextprotocol/skills"],
        json!({ "directoryRead": true }),
        "{report}"
    );
    assert_eq!(report["capabilities"]["resources"]["listChanged"], json!(true));
    assert_eq!(
        report["resources"],
        json!(["skill://index.json", "skill://alpha/SKILL.md", "skill://beta/SKILL.md"])
    );
    assert_eq!(report["templates"], json!(["skill://{name}/{+path}"]));
    assert_eq!(
        report["tools"],
        json!(["list_skills", "search_skills", "load_skill", "read_skill_resource"])
    );

    // skills/list: verbatim frontmatter, SKILL.md first, every served file with its digest.
    let skills = report["skills_list"]["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2, "{report}");
    let alpha = &skills[0];
    assert_eq!(alpha["uri"], "skill://alpha/SKILL.md");
    assert_eq!(
        alpha["frontmatter"],
        json!({ "name": "alpha", "description": "First skill.", "version": 1.1, "tags": ["x", "y"] })
    );
    let uris: Vec<&str> = alpha["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://alpha/SKILL.md",
            "skill://alpha/assets/logo.bin",
            "skill://alpha/references/guide.md",
            "skill://alpha/scripts/run.py",
        ],
        "the link leading out of the library is not served"
    );
    let skill_md = std::fs::read(library.lib().join("alpha/SKILL.md")).unwrap();
    assert_eq!(alpha["resources"][0]["size"], json!(skill_md.len()));
    assert!(alpha["resources"][0]["digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(
        report["skills_get"]["skill"], *alpha,
        "skills/get answers the listed entry"
    );
    assert_eq!(report["skills_get_unknown"]["code"], json!(-32602));
    // Not-found errors carry the URI in `data`; an unknown skill's folder is an invalid
    // parameter (SEP-2640); no prompts capability means no prompts/list.
    // rmcp answers "resource not found" in each protocol era's code: -32002 on the 2025
    // handshake protocols, -32602 from 2026-07-28 on.
    let not_found = if report["protocol"].as_str().unwrap().starts_with("2025") {
        -32002
    } else {
        -32602
    };
    assert_eq!(report["read_unknown"]["code"], json!(not_found), "{report}");
    assert_eq!(
        report["read_unknown"]["data"]["uri"], "skill://nobody/SKILL.md",
        "{report}"
    );
    assert_eq!(report["directory_unknown"]["code"], json!(-32602), "{report}");
    assert_eq!(
        report["directory_unknown"]["data"]["uri"], "skill://nobody/",
        "{report}"
    );
    // Every skill a person may invoke is a prompt (a slash command in clients).
    assert_eq!(report["prompts_list"], json!(["alpha", "beta"]), "{report}");

    // Resources: SKILL.md verbatim, the index, a reference.
    assert_eq!(report["skill_md"].as_str().unwrap().as_bytes(), skill_md.as_slice());
    assert_eq!(report["index"]["skills"][1]["url"], "skill://beta/SKILL.md");
    assert_eq!(report["index"]["skills"][1]["type"], "skill-md");
    assert_eq!(report["reference"], "# Guide\n");
    // Refused as invalid parameters, each for its own reason.
    for (refused, reason) in [
        ("read_traversal", "path contains `..`"),
        ("read_link_out", "a symbolic link leads outside the root directory"),
    ] {
        assert_eq!(report[refused]["code"], json!(-32602), "{refused}: {report}");
        let message = report[refused]["message"].as_str().unwrap();
        assert!(
            message.contains(reason) && !message.contains("TOP SECRET"),
            "{refused}: {message}"
        );
    }

    // Tools.
    let list = text_of(&report["list_skills"]);
    assert!(
        list.contains("- **alpha**: First skill.") && list.contains("load_skill(\"beta\")"),
        "{list}"
    );
    assert_eq!(
        report["list_skills"]["structured"]["skills"][0]["uri"],
        "skill://alpha/SKILL.md"
    );
    // The server lists resources lazily: the full entries still summarize them.
    assert!(
        list.contains("- **alpha**: First skill.\n  -> Resources: 1 script"),
        "{list}"
    );
    // The instructions: how to use the server, then one line per skill; search finds
    // by description.
    let instructions = report["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("search_skills(query)") && instructions.contains("\n- **alpha**: First skill"),
        "{instructions}"
    );
    assert_eq!(report["list_skills"]["structured"]["not_listed"], json!(0));
    assert!(
        text_of(&report["search_skills"]).starts_with("- alpha: First skill."),
        "{}",
        text_of(&report["search_skills"])
    );
    assert_eq!(report["search_empty"]["is_error"], json!(true));
    let loaded = text_of(&report["load_skill"]);
    assert_eq!(report["load_skill"]["is_error"], json!(false));
    assert!(loaded.starts_with(std::str::from_utf8(&skill_md).unwrap()), "{loaded}");
    assert!(
        loaded.contains("- [script] `") && loaded.contains("alpha/scripts/run.py`"),
        "{loaded}"
    );
    assert_eq!(report["load_unknown"]["is_error"], json!(true));
    assert_eq!(
        text_of(&report["load_unknown"]),
        "Error: Skill 'nobody' not found. Available skills: alpha, beta"
    );
    assert_eq!(text_of(&report["read_tool"]), "print('hi')\n");
    assert_eq!(report["read_tool_binary"]["content"][1]["resource"]["blob"], "iVBORwD/");
    for (refused, reason) in [
        ("read_tool_traversal", "path contains `..`"),
        (
            "read_tool_absolute",
            "\"/etc/passwd\" is not a file inside the skill's folder",
        ),
        ("read_tool_link_out", "a symbolic link leads outside the root directory"),
    ] {
        assert_eq!(report[refused]["is_error"], json!(true), "{refused}: {report}");
        let text = text_of(&report[refused]);
        assert!(
            text.starts_with("Error: ") && text.contains(reason),
            "{refused}: {text}"
        );
        assert!(!text.contains("TOP SECRET") && !text.contains("root:"), "{text}");
    }

    // Hot reload: the client heard about the new skill without reconnecting (the only
    // change made while it was connected).
    assert_eq!(report["list_changed"], json!(true), "{report}");
    let listed = |key: &str| {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "skill://gamma/SKILL.md")
    };
    assert!(!listed("resources") && listed("resources_after"), "{report}");
}

#[test]
fn python_sdk_client_over_stdio_with_the_initialize_handshake() {
    let library = Library::new();
    let lib = library.lib_str();
    let report = python_client("legacy", &library, &[SKILLS, "serve", "--source", &lib]);
    assert_eq!(report["protocol"], "2025-11-25");
    check_report(&report, &library);
}

#[test]
fn python_sdk_client_over_stdio_on_the_2026_protocol_listens_for_changes() {
    let library = Library::new();
    let lib = library.lib_str();
    let report = python_client("modern", &library, &[SKILLS, "serve", "--source", &lib]);
    assert_eq!(report["protocol"], "2026-07-28");
    assert_eq!(report["listen_event"], "ResourcesListChanged");
    check_report(&report, &library);
}

#[test]
fn python_sdk_client_over_streamable_http_on_loopback() {
    // One library and server per era, so each client starts from the same two skills and
    // the only change it can hear about is its own.
    for mode in ["legacy", "modern"] {
        let library = Library::new();
        let server = HttpServe::start(&["--source", &library.lib_str()]);
        assert!(
            server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
            "{}",
            server.url
        );
        let report = python_client(mode, &library, &[&server.url]);
        check_report(&report, &library);
    }
}

fn check_with_inspector(era: &str, target: &[&str]) {
    // SEP-2640 conformance and every digest, for every skill.
    let verified = run_inspector(
        era,
        target,
        &["--method", "skills/list", "--verify", "--require-digests"],
    );
    assert!(
        verified.status.success(),
        "{}\n{}",
        stdout(&verified),
        stderr(&verified)
    );
    let reports = json_lines(&verified);
    assert_eq!(reports.len(), 2, "{}", stdout(&verified));
    for report in &reports {
        assert_eq!(report["ok"], json!(true), "{report}");
        assert_eq!(report["outcome"], "verified", "{report}");
    }
    assert_eq!(reports[0]["files"].as_array().unwrap().len(), 4);

    let got = run_inspector(
        era,
        target,
        &[
            "--method",
            "skills/get",
            "--uri",
            "skill://beta/SKILL.md",
            "--verify",
            "--require-digests",
        ],
    );
    assert!(got.status.success(), "{}\n{}", stdout(&got), stderr(&got));
    assert_eq!(json_lines(&got)[0]["ok"], json!(true));

    let dir = run_inspector(
        era,
        target,
        &[
            "--method",
            "resources/directory/read",
            "--uri",
            "skill://alpha/references",
        ],
    );
    assert!(dir.status.success(), "{}\n{}", stdout(&dir), stderr(&dir));
    let listing: Value = serde_json::from_str(&stdout(&dir)).unwrap();
    assert_eq!(listing["resources"][0]["uri"], "skill://alpha/references/guide.md");
    assert_eq!(
        listing["resources"].as_array().unwrap().len(),
        1,
        "the outward link is not listed"
    );

    // The inspector lists the skills as prompts, and gets one.
    let prompts = run_inspector(era, target, &["--method", "prompts/list"]);
    assert!(prompts.status.success(), "{}", stderr(&prompts));
    let listed: Value = serde_json::from_str(&stdout(&prompts)).unwrap();
    let names: Vec<&str> = listed["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta"], "{listed}");
    let got = run_inspector(era, target, &["--method", "prompts/get", "--prompt-name", "beta"]);
    assert!(got.status.success(), "{}", stderr(&got));
    let got: Value = serde_json::from_str(&stdout(&got)).unwrap();
    assert!(
        got["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("name: beta"),
        "{got}"
    );

    let load = run_inspector(
        era,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "load_skill",
            "--tool-arg",
            "name=beta",
        ],
    );
    assert!(load.status.success(), "{}", stderr(&load));
    let load: Value = serde_json::from_str(&stdout(&load)).unwrap();
    assert!(text_of(&load).starts_with("---\nname: beta\n"), "{load}");

    let traversal = run_inspector(
        era,
        target,
        &[
            "--method",
            "resources/read",
            "--uri",
            "skill://alpha/%2E%2E/beta/SKILL.md",
        ],
    );
    assert!(
        !traversal.status.success(),
        "a traversal must fail: {}",
        stdout(&traversal)
    );
    assert!(!stdout(&traversal).contains("name: beta"));
    assert!(
        stderr(&traversal).contains("path contains `..`"),
        "{}",
        stderr(&traversal)
    );
}

#[test]
fn inspector_cli_verifies_the_skills_extension_over_stdio() {
    let library = Library::new();
    let lib = library.lib_str();
    for era in ["legacy", "modern"] {
        check_with_inspector(era, &[SKILLS, "serve", "--source", &lib]);
    }
}

#[test]
fn inspector_cli_verifies_the_skills_extension_over_http() {
    let library = Library::new();
    let server = HttpServe::start(&["--source", &library.lib_str()]);
    for era in ["legacy", "modern"] {
        check_with_inspector(era, &[&server.url]);
    }
}

#[test]
fn serve_binds_only_to_loopback_and_rejects_bad_addresses() {
    let library = Library::new();
    let lib = library.lib_str();
    for (addr, expected) in [
        ("0.0.0.0:8765", "only binds to loopback"),
        ("192.168.1.10:8765", "only binds to loopback"),
        ("not-an-address", "--http wants PORT or HOST:PORT"),
    ] {
        let output = Command::new(SKILLS)
            .args(["serve", "--http", addr, "--source", &lib])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{addr}");
        assert!(stderr(&output).contains(expected), "{addr}: {}", stderr(&output));
    }
}

#[test]
fn serve_with_an_unreadable_source_exits_2() {
    let library = Library::new();
    let missing = library.dir.path().join("missing");
    let output = Command::new(SKILLS)
        .args(["serve", "--source", missing.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

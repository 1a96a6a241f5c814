//! MCP servers as a source, against our own `skills serve` (streamable HTTP and stdio):
//! list, load, a skill's files, lock and verify, install, and a hot reload of an edit
//! that reaches a `skills watch` of the MCP source through the server's notification.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{HttpServe, Watcher, json, lines, md, skills, stderr, stdout, strings, write};

const TIMEOUT: Duration = Duration::from_secs(30);

/// A library of two skills, `web` with a script.
fn library(root: &Path) {
    write(root, "lib/web/SKILL.md", &md("web", "Search the web"));
    write(root, "lib/web/scripts/search.py", "print('search')\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDF files"));
}

/// `skills serve --http` of `root/lib`, and its address as an `mcp+http://` source.
fn serve(root: &Path) -> (HttpServe, String) {
    let lib = root.join("lib");
    let server = HttpServe::start(&["--no-cache", "--source", lib.to_str().unwrap()]);
    let url = format!("mcp+{}", server.url);
    (server, url)
}

#[test]
fn an_mcp_server_over_http_is_a_source_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let (_server, source) = serve(dir.path());
    let source = source.as_str();

    let listed = skills(dir.path(), &["list", "--json", "--no-cache", "--source", source]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(strings(&json(&listed), "name"), ["pdf", "web"]);

    let loaded = skills(dir.path(), &["load", "web", "--no-cache", "--source", source]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    assert!(stdout(&loaded).starts_with("---\nname: web\n"), "{}", stdout(&loaded));
    assert!(
        stdout(&loaded).contains("/web/scripts/search.py"),
        "{}",
        stdout(&loaded)
    );

    let info = json(&skills(
        dir.path(),
        &["info", "web", "--json", "--no-cache", "--source", source],
    ));
    let files: Vec<&str> = info["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["SKILL.md", "scripts/search.py"]);

    // Lock, verify, and a change the lock sees.
    let locked = skills(dir.path(), &["lock", "--no-cache", "--source", source]);
    assert!(locked.status.success(), "{}", stderr(&locked));
    let verified = skills(dir.path(), &["verify", "--no-cache", "--source", source]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}{}",
        stdout(&verified),
        stderr(&verified)
    );

    // Installed into a project, as from any source.
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let added = skills(&project, &["add", source, "--skill", "web"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(
        std::fs::read_to_string(project.join(".agents/skills/web/scripts/search.py")).unwrap(),
        "print('search')\n"
    );
    // A fresh checkout of the project syncs from the server what the lock pins.
    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    let synced = skills(&project, &["sync"]);
    assert!(synced.status.success(), "{}", stderr(&synced));
    assert!(
        project.join(".agents/skills/web/SKILL.md").is_file(),
        "{}",
        stdout(&synced)
    );
    assert!(!project.join(".agents/skills/pdf").exists());
}

#[test]
fn an_mcp_server_on_stdio_is_a_source_of_skills_toml() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let lib = dir.path().join("lib");
    write(
        dir.path(),
        "skills.toml",
        &format!(
            "[[source]]\nlabel = \"vendor\"\ncommand = {:?}\nargs = [\"serve\", \"--no-cache\", \"--source\", {:?}]\n",
            env!("CARGO_BIN_EXE_skills"),
            lib.to_str().unwrap()
        ),
    );
    let listed = skills(dir.path(), &["list", "--json", "--no-cache"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let listed = json(&listed);
    assert_eq!(strings(&listed, "name"), ["pdf", "web"]);
    assert_eq!(listed[0]["source"], "vendor");
    let found = stdout(&skills(dir.path(), &["search", "--no-cache", "PDF files"]));
    assert!(found.starts_with("- pdf: Read PDF files (vendor)"), "{found}");

    // A lock of it is verified against the skills.toml that names the command.
    let locked = skills(dir.path(), &["lock", "--no-cache"]);
    assert!(locked.status.success(), "{}", stderr(&locked));
    let verified = skills(dir.path(), &["verify", "--no-cache"]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}{}",
        stdout(&verified),
        stderr(&verified)
    );
    write(dir.path(), "lib/pdf/SKILL.md", &md("pdf", "Read PDF files, edited"));
    let verified = skills(dir.path(), &["verify", "--no-cache"]);
    assert_eq!(
        verified.status.code(),
        Some(1),
        "{}{}",
        stdout(&verified),
        stderr(&verified)
    );
    assert!(
        stdout(&verified).contains("changed: pdf/SKILL.md"),
        "{}",
        stdout(&verified)
    );
}

#[test]
fn an_edit_on_the_server_reaches_a_watch_of_the_mcp_source() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let (_server, url) = serve(dir.path());
    let (watcher, _) = Watcher::start(
        &["--no-cache", "--source", &url],
        // Polls an hour apart: only the server's notification can bring the change.
        &[
            ("HOME", &dir.path().join("home")),
            ("SKILLS_POLL_INTERVAL", Path::new("3600")),
        ],
        TIMEOUT,
    );
    write(dir.path(), "lib/pdf/SKILL.md", &md("pdf", "Read and fill PDF files"));
    let seen = watcher.lines_until("changed pdf", TIMEOUT);
    assert!(seen.last().unwrap().ends_with("changed pdf"), "{seen:?}");
    write(dir.path(), "lib/sql/SKILL.md", &md("sql", "Review SQL"));
    let seen = watcher.lines_until("added sql", TIMEOUT);
    assert!(seen.last().unwrap().ends_with("added sql"), "{seen:?}");
}

#[test]
fn a_server_that_is_not_there_is_an_unreadable_source_and_bad_urls_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = format!("mcp+http://127.0.0.1:{port}/mcp");
    let listed = skills(dir.path(), &["prompt", "--no-cache", "--source", &url]);
    assert!(stderr(&listed).contains("source-unreadable"), "{}", stderr(&listed));
    let refused = skills(dir.path(), &["list", "--source", "mcp+http://example.com/mcp"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("plain http:// is allowed only on a loopback address"),
        "{}",
        stderr(&refused)
    );
    // A token is never shown, whatever fails.
    let listed = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list", "--no-cache", "--source", &url])
        .env("SKILLS_MCP_TOKEN", "s3cr3t-token-value")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!stderr(&listed).contains("s3cr3t-token-value"), "{}", stderr(&listed));
    assert!(!stdout(&listed).contains("s3cr3t-token-value"));
}

/// Both protocol eras of our own server, read through the library: the skills, a
/// verified file, and an edit that arrives as a catalog event (a list-changed
/// notification: on 2026-07-28 sessions on a `subscriptions/listen` stream).
#[test]
fn both_protocol_eras_list_load_and_hear_changes() {
    use skills_runtime::mcp::{McpBackend, McpLifecycle, McpTarget};
    use skills_runtime::{BackendExt as _, SkillCatalog, SkillSource};

    for (lifecycle, era) in [
        (McpLifecycle::Initialize, "2025-11-25"),
        (McpLifecycle::Discover, "2026-07-28"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        library(dir.path());
        let (_server, url) = serve(dir.path());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            // Polls an hour apart: only the server's notification can bring the change.
            let backend = McpBackend::new(McpTarget::http(&url).unwrap())
                .with_lifecycle(lifecycle)
                .with_poll_interval(Duration::from_secs(3600));
            let catalog = std::sync::Arc::new(SkillCatalog::new(vec![SkillSource::new(
                std::sync::Arc::new(backend.clone()),
                "/",
            )]));
            let snapshot = catalog.ensure_loaded().await;
            let names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, ["pdf", "web"]);
            assert_eq!(backend.protocol_version().as_deref(), Some(era));
            let script = backend.download_file("/web/scripts/search.py").await.unwrap();
            assert_eq!(script, b"print('search')\n");

            let mut events = catalog.subscribe();
            let _watch = catalog.watch().unwrap();
            write(dir.path(), "lib/pdf/SKILL.md", &md("pdf", "Read and fill PDF files"));
            let event = tokio::time::timeout(TIMEOUT, events.recv()).await.unwrap().unwrap();
            assert!(format!("{event:?}").contains("pdf"), "{era}: {event:?}");
            assert_eq!(
                catalog.snapshot().get("pdf").unwrap().description,
                "Read and fill PDF files"
            );
        });
    }
}

/// The bearer token reaches the server as `Authorization: Bearer ...` and nowhere else:
/// a server that records the header and refuses the request.
#[test]
fn the_bearer_token_is_sent_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("authorization.txt");
    let script = format!(
        "import http.server, sys\n\
         class H(http.server.BaseHTTPRequestHandler):\n\
         \x20   def do_POST(self):\n\
         \x20       open({seen:?}, 'a').write(str(self.headers.get('Authorization')) + '\\n')\n\
         \x20       self.send_response(401); self.send_header('Content-Length', '0'); self.end_headers()\n\
         \x20   do_GET = do_POST\n\
         \x20   def log_message(self, *args): pass\n\
         s = http.server.HTTPServer(('127.0.0.1', 0), H)\n\
         print(s.server_port, flush=True)\n\
         s.serve_forever()\n",
        seen = seen.to_str().unwrap()
    );
    let mut server = Command::new(common::python())
        .args(["-c", &script])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let port = lines(server.stdout.take().unwrap()).recv_timeout(TIMEOUT).unwrap();
    let url = format!("mcp+http://127.0.0.1:{port}/mcp");
    write(
        dir.path(),
        "skills.toml",
        &format!("[[source]]\nlocation = {url:?}\ntoken-env = \"VENDOR_TOKEN\"\n"),
    );
    let listed = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["prompt", "--no-cache"])
        .env("VENDOR_TOKEN", "s3cr3t-vendor-token")
        .env("HOME", dir.path().join("home"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let headers = std::fs::read_to_string(&seen).unwrap();
    assert!(headers.lines().any(|h| h == "Bearer s3cr3t-vendor-token"), "{headers}");
    assert!(stderr(&listed).contains("source-unreadable"), "{}", stderr(&listed));
    assert!(!stderr(&listed).contains("s3cr3t-vendor-token"), "{}", stderr(&listed));
    assert!(!stdout(&listed).contains("s3cr3t-vendor-token"));
    // A token-env naming an unset variable is said, by name.
    let unset = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list", "--no-cache"])
        .env_remove("VENDOR_TOKEN")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(unset.status.code(), Some(2));
    assert!(
        stderr(&unset).contains("VENDOR_TOKEN (token-env) is not set"),
        "{}",
        stderr(&unset)
    );
}

/// An agent on `SkillsMiddleware` whose source is our own server over HTTP: the model is
/// offered its skills and loads one with its files listed.
#[test]
fn an_agent_loads_a_skill_served_by_mcp() {
    use skills_middleware::{Agent, AgentState, Message, ScriptedModel, SkillsMiddleware};
    use skills_runtime::SkillSource;
    use skills_runtime::mcp::{McpBackend, McpTarget};

    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let (_server, url) = serve(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let backend = McpBackend::new(McpTarget::http(&url).unwrap());
        let skills = SkillsMiddleware::builder()
            .source(SkillSource::new(std::sync::Arc::new(backend), "/").with_label("vendor"))
            .build()
            .unwrap();
        let model = std::sync::Arc::new(
            ScriptedModel::new()
                .tool_call("load_skill", serde_json::json!({"skill_name": "web"}))
                .reply("done"),
        );
        let agent = Agent::builder(model.clone())
            .middleware(std::sync::Arc::new(skills))
            .build()
            .unwrap();
        let mut state = AgentState::new(vec![Message::user("search the web")]);
        agent.invoke(&mut state).await.unwrap();
        let seen = model.seen();
        let system = seen[0].system_message.clone().unwrap();
        assert!(system.contains("**web**") && system.contains("**pdf**"), "{system}");
        let loaded = seen[1].tool_results().first().unwrap().to_string();
        assert!(loaded.starts_with("---\nname: web\n"), "{loaded}");
        assert!(loaded.contains("/web/scripts/search.py"), "{loaded}");
    });
}

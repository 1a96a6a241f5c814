//! A SEP-2640 server nobody here wrote: FastMCP's `SkillsDirectoryProvider` (PyPI
//! `fastmcp`, in the test venv `cargo xtask test-tools` makes), read through the catalog
//! as any source: skills, their files verified against the manifests, a load.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skills_backend_mcp::{McpBackend, McpTarget};
use skills_catalog::{LoadAnswer, SkillCatalog, SkillSource, load_skill};
use skills_core::BackendExt;

/// The test venv's Python: `SKILLS_TEST_PYTHON` (set by `cargo xtask test`), else where
/// `cargo xtask test-tools` puts it.
fn python() -> PathBuf {
    if let Some(path) = std::env::var_os("SKILLS_TEST_PYTHON") {
        return PathBuf::from(path);
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-venv/bin/python");
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask test-tools`",
        path.display()
    );
    path
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_skills_are_a_source_with_verified_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pdf-fill/SKILL.md",
        "---\nname: pdf-fill\ndescription: Fill PDF forms\n---\n# Fill\nRun scripts/fill.py.\n",
    );
    write(dir.path(), "pdf-fill/scripts/fill.py", "print('fill')\n");
    write(
        dir.path(),
        "ops/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy the app\n---\n# Deploy\n",
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fastmcp_server.py");
    let target = McpTarget::stdio(
        python().to_string_lossy(),
        [
            script.to_string_lossy().into_owned(),
            dir.path().to_string_lossy().into_owned(),
        ],
    );
    let backend = McpBackend::new(target);
    let catalog = SkillCatalog::new(vec![
        SkillSource::new(Arc::new(backend.clone()), "/")
            .with_label("fastmcp")
            .with_depth(2),
    ]);
    let snapshot = catalog.ensure_loaded().await;
    let mut names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["deploy", "pdf-fill"], "{:?}", snapshot.diagnostics());
    assert_eq!(snapshot.get("deploy").unwrap().path, "/ops/deploy/SKILL.md");
    assert!(backend.problems().is_empty(), "{:?}", backend.problems());
    assert_eq!(
        backend.download_file("/pdf-fill/scripts/fill.py").await.unwrap(),
        b"print('fill')\n"
    );
    match load_skill(&snapshot, "pdf-fill", &[]).await {
        LoadAnswer::Loaded { text } => {
            assert!(text.starts_with("---\nname: pdf-fill\n"), "{text}");
            assert!(text.contains("/pdf-fill/scripts/fill.py"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

/// The same server over streamable HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_over_http_is_a_source_too() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pdf-fill/SKILL.md",
        "---\nname: pdf-fill\ndescription: Fill PDF forms\n---\n# Fill\n",
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fastmcp_http_server.py");
    /// Stops the server whatever the test does.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let server = std::process::Command::new(python())
        .args([script.as_os_str(), dir.path().as_os_str(), port.to_string().as_ref()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _server = Killed(server);
    // Up when it accepts connections.
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the server did not start"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let backend = McpBackend::new(McpTarget::http(&format!("mcp+http://127.0.0.1:{port}/mcp")).unwrap());
    let snapshot = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend.clone()), "/")])
        .ensure_loaded()
        .await;
    assert_eq!(
        snapshot.get("pdf-fill").unwrap().description,
        "Fill PDF forms",
        "{:?}",
        snapshot.diagnostics()
    );
    assert_eq!(backend.protocol_version().as_deref(), Some("2026-07-28"));
}

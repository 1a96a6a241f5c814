//! The backend conformance behaviours that a skills server can meet, on a server that
//! publishes the canonical fixture's skill folders faithfully (tests/faithful_server.py):
//! a skills server publishes skill folders only, so the behaviours about files outside
//! them (the fixture's `skills/README.md`, `other/`) do not apply.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use skills_backend_mcp::{McpBackend, McpTarget};
use skills_conformance::Fixture;

async fn setup() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    skills_conformance::write_fixture(dir.path());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/faithful_server.py");
    let python = std::env::var("SKILLS_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let target = McpTarget::stdio(
        python,
        [
            script.to_string_lossy().into_owned(),
            dir.path().to_string_lossy().into_owned(),
        ],
    );
    Fixture::new(Arc::new(McpBackend::new(target)), "/").keep(dir)
}

skills_conformance::skill_server_conformance!(conformance, setup());

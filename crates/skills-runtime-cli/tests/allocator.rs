//! Which allocator a `skills` process uses (decision 109): `skills serve` allocates
//! from mimalloc, a one-shot command from the system's allocator. mimalloc is linked
//! into every process; with `MIMALLOC_SHOW_STATS=1` it reports at exit what its arenas
//! held, which is nothing unless the process allocated from it.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{md, write};

/// The arena figures mimalloc prints at exit, once it has allocated.
const ARENA_REPORT: &str = "committed";

fn skills(cwd: &std::path::Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(args)
        .current_dir(cwd)
        .env("MIMALLOC_SHOW_STATS", "1")
        .env("NO_PROGRESS", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn the_server_allocates_from_mimalloc_and_a_one_shot_command_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    write(&lib, "pdf-tools/SKILL.md", &md("pdf-tools", "Fill PDF forms."));
    let source = lib.to_str().unwrap();

    let listed = skills(dir.path(), &["list", "--no-cache", "--source", source])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(listed.status.success());
    assert!(String::from_utf8_lossy(&listed.stdout).contains("pdf-tools"));
    let said = String::from_utf8_lossy(&listed.stderr);
    assert!(!said.contains(ARENA_REPORT), "`list` allocated from mimalloc:\n{said}");

    // The server answers `initialize`, then ends when its standard input closes.
    let mut server = skills(dir.path(), &["serve", "--no-cache", "--source", source])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut stdin = server.stdin.take().unwrap();
    writeln!(stdin, "{initialize}").unwrap();
    drop(stdin);
    let served = server.wait_with_output().unwrap();
    assert!(served.status.success());
    assert!(String::from_utf8_lossy(&served.stdout).contains(r#""id":1"#));
    let said = String::from_utf8_lossy(&served.stderr);
    assert!(
        said.contains(ARENA_REPORT),
        "`serve` did not allocate from mimalloc:\n{said}"
    );
}

//! Helpers shared by the tests that run the built `skills` binary.

#![allow(dead_code, clippy::unwrap_used)] // Each test binary uses part of it.

use std::path::Path;
use std::process::{Command, Output};

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

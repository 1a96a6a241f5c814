//! Sets `SKILLS_LONG_VERSION`, what `skills --version` prints: the package version, and
//! the commit when the binary is built from this project's own git checkout (a crate
//! unpacked from the registry has no `.git` two folders up, so it shows the version
//! alone, even when it sits inside some other repository).

use std::path::Path;
use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let git_dir = Path::new(&manifest).join("../../.git");
    let commit = if git_dir.exists() {
        // A new commit moves HEAD or a ref: build again to show it.
        for watched in ["HEAD", "refs/heads", "packed-refs"] {
            println!("cargo:rerun-if-changed={}", git_dir.join(watched).display());
        }
        Command::new("git")
            .arg("--git-dir")
            .arg(&git_dir)
            .args(["log", "-1", "--format=%h %cs"])
            .output()
            .ok()
            .filter(|out| out.status.success())
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .map(|line| line.trim().to_owned())
            .filter(|line| !line.is_empty())
    } else {
        None
    };
    let long = match commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=SKILLS_LONG_VERSION={long}");
    println!("cargo:rerun-if-changed=build.rs");
}

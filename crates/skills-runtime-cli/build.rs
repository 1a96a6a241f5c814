//! Sets `SKILLS_LONG_VERSION`, what `skills --version` prints: the package version, and
//! the commit when the binary is built from this project's own git checkout (a crate
//! unpacked from the registry has no `.git` two folders up, so it shows the version
//! alone, even when it sits inside some other repository).
//!
//! On Linux with glibc it also links the binary with packed relative relocations
//! (`-z pack-relative-relocs`, `DT_RELR`) when the linker and C library take them (GNU ld
//! 2.38, glibc 2.36, lld, mold): the 60,000 addresses the loader fixes at every start are
//! then a 20 KB bitmap instead of a 1.5 MB table it reads whole, and `skills` starts
//! with about a megabyte less resident. A linker that refuses the option is left as it is.

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
    if links_packed_relocations() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the binary can be linked with packed relative relocations: a Linux glibc
/// target built on its own host (a cross build keeps its linker's defaults), whose
/// linker links a small C program with the option.
fn links_packed_relocations() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" || var("HOST") != var("TARGET") {
        return false;
    }
    let out = std::path::PathBuf::from(var("OUT_DIR"));
    let source = out.join("relr-probe.c");
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_owned());
    Command::new(linker)
        .arg(&source)
        .arg("-o")
        .arg(out.join("relr-probe"))
        .arg("-Wl,-z,pack-relative-relocs")
        .output()
        .is_ok_and(|probe| probe.status.success())
}

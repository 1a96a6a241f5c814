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
//!
//! Where rustc's linker takes a symbol ordering file (lld, rustc's default linker on
//! x86-64 Linux), the functions that `hot-symbols.txt` lists (those the common commands
//! run, written by `cargo xtask hot-symbols`) are laid out together at the start of the
//! code: a command then maps a few MB less of the binary (decision 127). A name the
//! binary does not have (another toolchain, a renamed function) is passed over.

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
    let order = Path::new(&manifest).join("hot-symbols.txt");
    println!("cargo:rerun-if-changed={}", order.display());
    if let Some(arg) = symbol_ordering_arg(&order) {
        println!("cargo:rustc-link-arg-bins={arg}");
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
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

/// `-Wl,--symbol-ordering-file=ORDER` when the file is there and the linker rustc links
/// this package's binaries with takes it: rustc, given the flags cargo gives it, links an
/// empty program with the option (lld does; GNU ld refuses it, and the binary is linked
/// as before).
fn symbol_ordering_arg(order: &Path) -> Option<String> {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let path = order.to_str().filter(|p| order.is_file() && !p.contains(','))?;
    let arg = format!("-Wl,--symbol-ordering-file={path}");
    let out = std::path::PathBuf::from(var("OUT_DIR"));
    let source = out.join("order-probe.rs");
    std::fs::write(&source, "fn main() {}\n").ok()?;
    let mut rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
    rustc
        .arg("--target")
        .arg(var("TARGET"))
        .arg("-o")
        .arg(out.join("order-probe"))
        .args(var("CARGO_ENCODED_RUSTFLAGS").split('\u{1f}').filter(|f| !f.is_empty()));
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        rustc.arg("-C").arg(format!("linker={linker}"));
    }
    rustc
        .arg("-C")
        .arg(format!("link-arg={arg}"))
        .arg("-C")
        .arg("link-arg=-Wl,--no-warn-symbol-ordering")
        .arg(&source);
    rustc.output().ok().filter(|probe| probe.status.success()).map(|_| arg)
}

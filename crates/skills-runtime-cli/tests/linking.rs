//! How the `skills` binary is linked on Linux with glibc (decision 119): OpenSSL built in
//! rather than the system's shared libraries (the loader bound their 4,000 symbols at
//! every start), and relative relocations packed (`DT_RELR`) whenever the toolchain
//! that built it takes `-z pack-relative-relocs`. Read from the binary's dynamic section
//! with `readelf`, which the GNU linker that links it comes with.

#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::process::Command;

/// The dynamic section of the `skills` binary, as `readelf -d` prints it.
fn dynamic_section() -> String {
    let out = Command::new("readelf")
        .args(["-d", env!("CARGO_BIN_EXE_skills")])
        .output()
        .unwrap_or_else(|e| panic!("readelf (binutils) is needed to read the binary: {e}"));
    assert!(
        out.status.success(),
        "readelf: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The shared libraries the binary names (`NEEDED`).
fn needed(section: &str) -> Vec<String> {
    section
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| Some(line.split_once('[')?.1.split_once(']')?.0.to_owned()))
        .collect()
}

#[cfg(feature = "vendored-openssl")]
#[test]
fn the_binary_needs_no_shared_openssl() {
    let libraries = needed(&dynamic_section());
    assert!(
        libraries.iter().any(|l| l.starts_with("libc.so")),
        "the dynamic section was not read: {libraries:?}"
    );
    let openssl: Vec<_> = libraries
        .iter()
        .filter(|l| l.starts_with("libssl") || l.starts_with("libcrypto"))
        .collect();
    assert!(openssl.is_empty(), "linked against the system's OpenSSL: {openssl:?}");
}

/// Whether `cc` links a program with packed relative relocations here: the build
/// script's own question.
fn toolchain_packs_relocations() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("probe.c");
    std::fs::write(&source, "int main(void) { return 0; }\n").unwrap();
    Command::new("cc")
        .arg(&source)
        .arg("-o")
        .arg(dir.path().join("probe"))
        .arg("-Wl,-z,pack-relative-relocs")
        .output()
        .is_ok_and(|probe| probe.status.success())
}

#[test]
fn relative_relocations_are_packed_where_the_toolchain_packs_them() {
    let section = dynamic_section();
    let packed = section.contains("(RELR)");
    assert_eq!(
        packed,
        toolchain_packs_relocations(),
        "packed relocations in the binary: {packed}, which the toolchain takes: {}",
        !packed
    );
    if packed {
        assert!(
            section.contains("(RELRSZ)"),
            "a RELR table without its size:\n{section}"
        );
    }
}

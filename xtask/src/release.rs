//! What a release needs besides the tests: the guide built with mdBook, every crate
//! packaged as the registry would take it, the manual page, and the documentation
//! rules checked from the files.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cargo, step, target_dir, workspace_root};

/// mdBook, pinned, built from the crate registry into `target/tools` on first use.
const MDBOOK: &str = "mdbook@0.5.4";

/// The longest the README may be: a front page, the guide holds the rest.
const README_MAX_LINES: usize = 300;

/// The crates that are not published (benchmarks and this one).
const UNPUBLISHED: &[&str] = &["skills-bench", "xtask"];

/// `target/tools/bin/mdbook`, installed with only the features `build` needs.
fn mdbook() -> Result<PathBuf, String> {
    let root = target_dir().join("tools");
    let program = root.join("bin/mdbook");
    let marker = root.join(".mdbook");
    if crate::installed(&program, &marker, MDBOOK) {
        return Ok(program);
    }
    let mut install = cargo();
    install
        .args([
            "install",
            MDBOOK,
            "--locked",
            "--no-default-features",
            "--features",
            "search",
            "--root",
        ])
        .arg(&root)
        .arg("--target-dir")
        .arg(target_dir().join("tools/build"));
    step("guide: cargo install mdbook", install)?;
    std::fs::write(&marker, MDBOOK).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(program)
}

/// `mdbook build docs` into `target/book`; its snippets are run by the facade's doctests.
pub fn guide() -> Result<(), String> {
    let mut build = Command::new(mdbook()?);
    build.arg("build").arg(workspace_root().join("docs"));
    step("guide: mdbook build", build)
}

/// `cargo package --workspace --no-verify`: every publishable crate packs as the
/// registry would take it (metadata, versions on path dependencies, files). The
/// verifying build of each package (`cargo publish --workspace --dry-run`) compiles the
/// tree again per crate, too slow for every run; run it before a release.
pub fn package() -> Result<(), String> {
    let mut package = cargo();
    package.args(["package", "--workspace", "--no-verify", "--allow-dirty", "--quiet"]);
    for name in UNPUBLISHED {
        package.args(["--exclude", name]);
    }
    step("package", package)
}

/// `target/man/skills.1`, the manual page, from the built CLI.
pub fn man() -> Result<(), String> {
    let mut build = cargo();
    build.args(["build", "--quiet", "-p", "skills-runtime-cli"]);
    step("build skills", build)?;
    let out = Command::new(target_dir().join("debug/skills"))
        .arg("manpage")
        .output()
        .map_err(|e| format!("skills manpage: {e}"))?;
    if !out.status.success() {
        return Err(format!("skills manpage: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let dir = target_dir().join("man");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let page = dir.join("skills.1");
    std::fs::write(&page, out.stdout).map_err(|e| format!("{}: {e}", page.display()))?;
    println!("{}", page.display());
    Ok(())
}

/// The documentation rules: the README stays a front page; every guide chapter with
/// Rust in it is compiled by the facade's doctests (listed in `src/lib.rs`); every
/// published crate carries both licence files, identical to the root's, and a README.
pub fn check_docs(root: &Path) -> Result<String, String> {
    let mut problems = Vec::new();
    let readme = read(&root.join("README.md"))?;
    let lines = readme.lines().count();
    if lines > README_MAX_LINES {
        problems.push(format!("README.md: {lines} lines (at most {README_MAX_LINES})"));
    }
    let lib = read(&root.join("src/lib.rs"))?;
    let chapters = root.join("docs/src");
    let mut entries: Vec<_> = std::fs::read_dir(&chapters)
        .map_err(|e| format!("{}: {e}", chapters.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    entries.sort();
    let mut compiled = 0;
    for chapter in &entries {
        if !read(chapter)?.contains("```rust") {
            continue;
        }
        let name = chapter
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if lib.contains(&format!("include_str!(\"../docs/src/{name}\")")) {
            compiled += 1;
        } else {
            problems.push(format!(
                "docs/src/{name}: has Rust snippets but src/lib.rs's `guide` module does not include it"
            ));
        }
    }
    let licenses = ["LICENSE-MIT", "LICENSE-APACHE"].map(|f| (f, read(&root.join(f))));
    let mut published = 0;
    for dir in std::fs::read_dir(root.join("crates")).map_err(|e| format!("crates: {e}"))? {
        let dir = dir.map_err(|e| format!("crates: {e}"))?.path();
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if UNPUBLISHED.contains(&name.as_str()) || !dir.join("Cargo.toml").exists() {
            continue;
        }
        published += 1;
        for (file, text) in &licenses {
            let text = text.as_ref().map_err(Clone::clone)?;
            if std::fs::read_to_string(dir.join(file)).ok().as_ref() != Some(text) {
                problems.push(format!("crates/{name}/{file}: missing or not the root's"));
            }
        }
        if !dir.join("README.md").exists() {
            problems.push(format!("crates/{name}/README.md: missing"));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "docs: README.md {lines} lines; {compiled} guide chapters with Rust, all compiled; \
             {published} published crates with both licences and a README"
        ))
    } else {
        Err(format!("docs:\n  {}", problems.join("\n  ")))
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

//! `cargo xtask layout`: the shape rules the code keeps, checked from the source text.
//!
//! - No Rust source file (under `src/`, `tests/`, `benches/`, `examples/` of any package)
//!   is longer than [`MAX_LINES`] lines.
//! - No two modules of one crate import each other, directly or around a circle. A module
//!   is a file under `src/` (`mcp/server.rs` is `mcp::server`); an import is any
//!   `crate::a::b` or `super::x` path outside comments. Edges between a module and its
//!   own parent or children (`mod x; pub use x::Y;`) are not circles.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may be.
pub const MAX_LINES: usize = 500;

/// Runs both checks on the workspace at `root`; the error lists every breach.
pub fn check(root: &Path) -> Result<String, String> {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    for dir in ["src", "crates", "xtask", "tests", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut longest = (0, PathBuf::new());
    for file in &files {
        let lines = std::fs::read_to_string(file).map_or(0, |t| t.lines().count());
        if lines > longest.0 {
            longest = (lines, file.clone());
        }
        if lines > MAX_LINES {
            problems.push(format!("{}: {lines} lines (at most {MAX_LINES})", rel(root, file)));
        }
    }
    let mut crates = 0;
    for src in files
        .iter()
        .filter(|f| f.ends_with("src/lib.rs") || f.ends_with("src/main.rs"))
        .filter_map(|f| f.parent())
        .collect::<BTreeSet<_>>()
    {
        crates += 1;
        for circle in circles(src) {
            problems.push(format!(
                "{}: modules import each other: {}",
                rel(root, src),
                circle.join(" -> ")
            ));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "layout: {} source files, none over {MAX_LINES} lines (longest: {}, {} lines); \
             no import circle between the modules of {crates} crates",
            files.len(),
            rel(root, &longest.1),
            longest.0
        ))
    } else {
        Err(format!("layout:\n  {}", problems.join("\n  ")))
    }
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src` (`mcp/server.rs` -> `mcp::server`, `lib.rs` ->
/// ``).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

/// Every import circle between the modules under `src`, each as a list of modules.
fn circles(src: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        for line in text.lines().map(str::trim_start).filter(|l| !l.starts_with("//")) {
            for (prefix, base) in [("crate::", ""), ("super::", parent)] {
                for (i, _) in line.match_indices(prefix) {
                    // `skills_crate::x` is another crate, not `crate::x`.
                    if line[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    let path: String = line[i + prefix.len()..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    let mut target = base.to_owned();
                    let mut found = None;
                    for segment in path.split("::").filter(|s| !s.is_empty()) {
                        if !target.is_empty() {
                            target.push_str("::");
                        }
                        target.push_str(segment);
                        if let Some((name, _)) = modules.get_key_value(&target) {
                            found = Some(name.as_str());
                        } else {
                            break;
                        }
                    }
                    let Some(to) = found else { continue };
                    let related = to == module
                        || module.starts_with(&format!("{to}::"))
                        || to.starts_with(&format!("{module}::"))
                        || to.is_empty()
                        || module.is_empty();
                    if !related {
                        edges.entry(module.as_str()).or_default().insert(to);
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for &start in edges.keys() {
        let mut stack = vec![(start, vec![start])];
        while let Some((at, trail)) = stack.pop() {
            for &next in edges.get(at).into_iter().flatten() {
                if next == start {
                    let mut key: Vec<&str> = trail.clone();
                    key.sort_unstable();
                    if seen.insert(key) {
                        let mut circle: Vec<String> = trail.iter().map(|s| (*s).to_owned()).collect();
                        circle.push(start.to_owned());
                        found.push(circle);
                    }
                } else if !trail.contains(&next) && trail.len() < 8 {
                    let mut longer = trail.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
    found
}

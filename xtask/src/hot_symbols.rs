//! `cargo xtask hot-symbols`: which functions of the `skills` binary its common commands
//! run, written to `crates/skills-runtime-cli/hot-symbols.txt` for the linker to lay out
//! together (decision 127).
//!
//! The release binary runs under valgrind's callgrind, with symbol names as the linker
//! sees them, for each command below, on a generated library of three sources and on the
//! example skills; the functions of the binary that ran are written hottest first. The
//! binary is built on its own (`-p skills-runtime-cli`), as `cargo install` builds it:
//! built together with other packages, its dependencies may get other features, and
//! their generic functions other names.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{build_release, step, target_dir, workspace_root};

/// Skills of the generated library the commands run on (over its three sources).
const LIBRARY_SKILLS: usize = 2_000;

/// What an MCP client sends a `skills serve` it starts: the handshake, each tool once.
const SERVE_SESSION: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hot-symbols","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"review a code change"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"load_skill","arguments":{"name":"code-review"}}}
"#;

pub(crate) fn run() -> Result<(), String> {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err("hot-symbols needs valgrind (Debian: valgrind)".to_owned());
    }
    build_release(&["skills-runtime-cli", "skills-bench"])?;

    let release = target_dir().join("release");
    // As callgrind names the object it ran.
    let skills = std::fs::canonicalize(release.join("skills")).map_err(|e| format!("the release skills: {e}"))?;
    let work = target_dir().join("hot-symbols");
    let _ = std::fs::remove_dir_all(&work);
    let library = work.join("library");
    let mut generate = Command::new(release.join("skills-bench"));
    generate
        .arg("generate")
        .arg(&library)
        .arg(LIBRARY_SKILLS.to_string())
        .arg("7");
    step("generate", generate)?;
    let examples = workspace_root().join("examples/skills");

    let folders: Vec<String> = ["base", "team", "project"]
        .iter()
        .map(|name| library.join(name).display().to_string())
        .collect();
    let examples = [examples.display().to_string()];
    // `args`, then each folder as `--source FOLDER` (or as itself, for `validate`).
    let with = |args: &[&str], folders: &[String]| -> Vec<String> {
        let flagged = args.first() != Some(&"validate");
        let sources = folders.iter().flat_map(|folder| {
            flagged
                .then(|| "--source".to_owned())
                .into_iter()
                .chain([folder.clone()])
        });
        args.iter().map(|a| (*a).to_owned()).chain(sources).collect()
    };
    // (name, arguments, cache folder: a new one is a first start, the same one again warm)
    let runs: Vec<(&str, Vec<String>, &str)> = vec![
        ("version", with(&["--version"], &[]), "none"),
        ("help", with(&["--help"], &[]), "none"),
        ("list-cold", with(&["list", "--json"], &folders), "library"),
        ("list-warm", with(&["list", "--json"], &folders), "library"),
        ("list-table", with(&["list"], &folders), "library"),
        (
            "list-no-cache",
            with(&["list", "--json", "--no-cache"], &folders),
            "none",
        ),
        ("search", with(&["search", "review a code change"], &folders), "library"),
        ("prompt", with(&["prompt"], &folders), "library"),
        ("validate", with(&["validate"], &folders), "library"),
        ("examples", with(&["list"], &examples), "examples"),
        ("serve-cold", with(&["serve"], &examples), "serve"),
        ("serve-warm", with(&["serve"], &examples), "serve"),
    ];
    let mut weights: HashMap<String, u64> = HashMap::new();
    for (name, args, cache) in &runs {
        let out = work.join(format!("{name}.callgrind"));
        let mut command = Command::new("valgrind");
        command
            .arg("--tool=callgrind")
            .arg("--demangle=no")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(&skills)
            .args(args)
            .env("SKILLS_CACHE_DIR", work.join(format!("cache-{cache}")))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = command.spawn().map_err(|e| format!("valgrind: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            let session = if name.starts_with("serve") { SERVE_SESSION } else { "" };
            std::io::Write::write_all(&mut stdin, session.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
        }
        let status = child.wait().map_err(|e| format!("{name}: {e}"))?;
        let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e} (exit {status})", out.display()))?;
        let ran = self_costs(&text, &skills);
        println!("{name}: {} functions of the binary ran", ran.len());
        for (symbol, cost) in ran {
            *weights.entry(symbol).or_default() += cost;
        }
    }
    let mut hot: Vec<(String, u64)> = weights.into_iter().collect();
    hot.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let file = list_file();
    let mut text = String::from(
        "# The functions of `skills` its common commands run, hottest first: the linker lays\n\
         # them out together (decision 127). Written by `cargo xtask hot-symbols`; names the\n\
         # binary no longer has are passed over.\n",
    );
    for (symbol, _) in &hot {
        text.push_str(symbol);
        text.push('\n');
    }
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    println!("{} functions written to {}", hot.len(), file.display());
    Ok(())
}

/// The list the CLI's build script hands to the linker.
fn list_file() -> std::path::PathBuf {
    workspace_root().join("crates/skills-runtime-cli/hot-symbols.txt")
}

/// Below this share of its names in the binary, the list is worth writing again.
const STALE_BELOW_PERCENT: usize = 90;

/// How many of the listed functions the release binary at `binary` still has, as a line
/// for the benchmarks' output: the names carry hashes of each crate's version, features
/// and dependencies, so a changed `Cargo.toml` or toolchain leaves names the linker no
/// longer finds, and the layout of decision 127 fades without a failure anywhere.
/// `None` when `nm` cannot read the binary.
pub(crate) fn freshness(binary: &Path) -> Option<String> {
    let listed = std::fs::read_to_string(list_file()).ok()?;
    let out = Command::new("nm")
        .args(["--defined-only", "--format=just-symbols"])
        .arg(binary)
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    let (found, names) = defined_of(&listed, &String::from_utf8_lossy(&out.stdout));
    let percent = (found * 100).checked_div(names).unwrap_or(100);
    let mut line = format!("hot-symbols.txt: {found} of {names} listed functions are in the binary ({percent}%)");
    if percent < STALE_BELOW_PERCENT {
        line.push_str("; the layout of decision 127 is fading: run `cargo xtask hot-symbols`");
    }
    Some(line)
}

/// How many of the names of `listed` (one a line, `#` lines are comments) `defined` (one
/// symbol a line, as `nm --format=just-symbols` prints them) holds, and how many it lists.
fn defined_of(listed: &str, defined: &str) -> (usize, usize) {
    let defined: std::collections::HashSet<&str> = defined.lines().map(str::trim).collect();
    let names: Vec<&str> = listed
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let found = names.iter().filter(|name| defined.contains(*name)).count();
    (found, names.len())
}

/// The functions of `object` that ran in a callgrind profile, with the instructions each
/// ran itself (a call's cost belongs to the callee). Only names a linker can order: no
/// addresses, no `(below main)`.
fn self_costs(profile: &str, object: &Path) -> Vec<(String, u64)> {
    let object = object.display().to_string();
    // Callgrind names an object or a function once, `(id) name`, then by `(id)` alone.
    let mut objects: HashMap<String, String> = HashMap::new();
    let mut functions: HashMap<String, String> = HashMap::new();
    let mut costs: HashMap<String, u64> = HashMap::new();
    let mut in_object = false;
    let mut current: Option<String> = None;
    let mut after_call = false;
    for line in profile.lines() {
        if let Some(rest) = line.strip_prefix("ob=") {
            in_object = named(rest, &mut objects).is_some_and(|name| name == object);
        } else if let Some(rest) = line.strip_prefix("fn=") {
            current = named(rest, &mut functions).filter(|_| in_object);
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            named(rest, &mut functions);
        } else if let Some(rest) = line.strip_prefix("cob=") {
            named(rest, &mut objects);
        } else if line.starts_with("calls=") {
            after_call = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-' || c == '*') {
            if std::mem::take(&mut after_call) {
                continue;
            }
            let cost = line.split_whitespace().nth(1).and_then(|c| c.parse::<u64>().ok());
            if let (Some(function), Some(cost)) = (&current, cost) {
                *costs.entry(function.clone()).or_default() += cost;
            }
        }
    }
    costs.into_iter().filter(|(name, _)| orderable(name)).collect()
}

/// The name of `(id) name` (remembered for its id) or of `(id)` (named before).
fn named(field: &str, names: &mut HashMap<String, String>) -> Option<String> {
    let field = field.trim();
    let Some(rest) = field.strip_prefix('(') else {
        return Some(field.to_owned());
    };
    let (id, name) = rest.split_once(')')?;
    let name = name.trim();
    if name.is_empty() {
        names.get(id).cloned()
    } else {
        names.insert(id.to_owned(), name.to_owned());
        Some(name.to_owned())
    }
}

/// Whether `name` is a symbol name a linker can order (callgrind writes an address or
/// `(below main)` where it has none).
fn orderable(name: &str) -> bool {
    !name.starts_with("0x")
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_s_own_instructions_are_counted_and_its_calls_are_not() {
        let profile = "\
events: Ir
ob=(1) /bin/skills
fl=(1) a.rs
fn=(1) _ZN4main17h0E
0 10
cob=(2) /lib/libc.so
cfn=(2) malloc
calls=1 0
0 500
fn=(3) _ZN5parse17h1E
0 7
cfn=(1)
calls=2 0
0 40
+1 3
ob=(2)
fn=(2)
0 500
ob=(1)
fn=(4) 0x00000000006a5270
0 9
fn=(3)
0 5
";
        let mut costs = self_costs(profile, Path::new("/bin/skills"));
        costs.sort();
        assert_eq!(
            costs,
            vec![("_ZN4main17h0E".to_owned(), 10), ("_ZN5parse17h1E".to_owned(), 15)]
        );
    }

    #[test]
    fn a_listed_name_counts_only_when_the_binary_defines_it_as_it_is() {
        let listed = "# a comment\n_ZN4main17h0E\n\n_ZN5parse17h1E\n_ZN4gone17h2E\n";
        // `parse` with another hash is another name to the linker.
        let defined = "_ZN4main17h0E\n_ZN5parse17h9E\nmalloc\n";
        assert_eq!(defined_of(listed, defined), (1, 3));
        assert_eq!(
            defined_of(listed, "_ZN5parse17h1E\n_ZN4gone17h2E\n_ZN4main17h0E"),
            (3, 3)
        );
        assert_eq!(defined_of("# only comments\n", defined), (0, 0));
    }

    #[test]
    fn a_binary_without_the_listed_functions_is_reported_as_fading() {
        // This test's own binary has the standard library's listed functions (built once
        // for every program, their names are the same) and none of the CLI's own.
        let listed = std::fs::read_to_string(list_file()).unwrap();
        let (_, names) = defined_of(&listed, "");
        assert!(names > 1_000, "{names} names listed");
        let line = freshness(&std::env::current_exe().unwrap()).expect("nm reads the test binary");
        let found: usize = line
            .strip_prefix("hot-symbols.txt: ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(found < names / 10, "{line}");
        assert!(line.contains(&format!(" of {names} listed functions")), "{line}");
        assert!(line.ends_with("run `cargo xtask hot-symbols`"), "{line}");
    }
}

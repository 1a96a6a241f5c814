//! `cargo xtask realworld [--depth N] DIR...`: our CLI and the Python reference side by
//! side on real skill collections that the caller fetched (nothing is fetched or
//! committed here). Per source: the skill folders on disk, what each side loads, what
//! we recovered and skipped (by reason), and each side's peak memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{DEEPAGENTS, cargo, target_dir, venv};

/// What one run of a program gave: its standard output and its peak RSS in KiB.
struct Run {
    stdout: String,
    peak_kib: Option<u64>,
}

/// Runs `program` under GNU time when it is there (for the peak RSS).
fn measured(program: &Path, args: &[&str]) -> Result<Run, String> {
    let time = Path::new("/usr/bin/time");
    let report = target_dir().join("realworld-time.txt");
    let mut command = if time.is_file() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&report).arg(program);
        c
    } else {
        Command::new(program)
    };
    let output = command
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let peak_kib = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    let _ = std::fs::remove_file(&report);
    Ok(Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        peak_kib,
    })
}

/// Skill folders on disk: folders holding a `SKILL.md`, `depth` levels down at most,
/// not below a hidden folder or `node_modules`, not below another skill folder.
fn count_folders(dir: &Path, depth: usize) -> usize {
    if depth == 0 {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if path.join("SKILL.md").is_file() {
            count += 1;
        } else if !name.starts_with('.') && name != "node_modules" {
            count += count_folders(&path, depth - 1);
        }
    }
    count
}

/// The number after `"key":` in a JSON text (enough for the flat summary object).
fn number(json: &str, key: &str) -> Option<u64> {
    let at = json.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = json[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Diagnostic kinds of skipped folders, counted, from `validate --json`.
fn skip_reasons(json: &str) -> BTreeMap<String, usize> {
    const SKIPS: &[&str] = &[
        "no-frontmatter",
        "invalid-yaml",
        "frontmatter-not-mapping",
        "missing-name",
        "missing-description",
        "invalid-utf8",
        "too-large",
        "unsafe-name",
        "read-failed",
    ];
    let mut reasons = BTreeMap::new();
    for kind in SKIPS {
        let n = json.matches(&format!("\"kind\": \"{kind}\"")).count();
        if n > 0 {
            reasons.insert((*kind).to_owned(), n);
        }
    }
    reasons
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(|| "n/a".to_owned(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

pub fn realworld(args: &[String]) -> Result<(), String> {
    let mut depth = 1usize;
    let mut dirs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--depth" {
            depth = args
                .next()
                .and_then(|d| d.parse().ok())
                .ok_or("--depth wants a number")?;
        } else {
            dirs.push(PathBuf::from(arg));
        }
    }
    if dirs.is_empty() {
        return Err(
            "usage: cargo xtask realworld [--depth N] DIR...  (folders of skill folders, fetched beforehand)".into(),
        );
    }
    let mut build = cargo();
    build.args(["build", "--release", "--quiet", "-p", "skills-cli"]);
    crate::step("build the release CLI", build)?;
    let skills = target_dir().join("release/skills");
    let python = venv("bench-venv", &[DEEPAGENTS], "the real-world comparison")?.join("bin/python");
    let script = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/skills-bench/python/deepagents_realworld.py"
    ));

    println!(
        "| source | skill folders (depth {depth}) | ours: loaded | recovered | hidden | skipped (by reason) | ours: peak RSS | deepagents: loaded (depth 1) | deepagents: peak RSS |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|---:|");
    for dir in &dirs {
        let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // The last two components name a collection better than `skills` alone.
        let parts: Vec<_> = dir.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let shown = parts[parts.len().saturating_sub(2)..].join("/");
        let text = dir.to_str().ok_or("paths must be UTF-8")?;
        let depth_arg = depth.to_string();
        let ours = measured(
            &skills,
            &["validate", text, "--json", "--allow-partial", "--depth", &depth_arg],
        )?;
        let reasons = skip_reasons(&ours.stdout);
        let reasons = if reasons.is_empty() {
            "0".to_owned()
        } else {
            reasons
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let theirs = measured(&python, &[script.to_str().ok_or("paths must be UTF-8")?, text])?;
        println!(
            "| {shown} | {} | {} | {} | {} | {reasons} | {} | {} | {} |",
            count_folders(&dir, depth),
            number(&ours.stdout, "loaded").unwrap_or(0),
            number(&ours.stdout, "recovered").unwrap_or(0),
            number(&ours.stdout, "hidden").unwrap_or(0),
            mib(ours.peak_kib),
            number(&theirs.stdout, "loaded").map_or_else(|| "n/a".into(), |n| n.to_string()),
            mib(theirs.peak_kib),
        );
    }
    Ok(())
}

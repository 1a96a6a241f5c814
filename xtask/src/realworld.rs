//! `cargo xtask realworld [--depth N] DIR...`: our CLI and the Python reference side by
//! side on real skill collections that the caller fetched (nothing is fetched or
//! committed here). Per source, two tables: what is loaded (the skill folders on disk,
//! what each side loads, what we recovered, hid and skipped, by reason), and what it
//! costs (`skills list` and `skills prompt` time and peak memory against the floor of
//! reading every `SKILL.md` once, and deepagents' time and peak memory).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::bench::DEEPAGENTS;
use crate::{build_release, target_dir, venv};

/// What one run of a program gave: its standard output, its peak RSS in KiB and its
/// wall time.
struct Run {
    stdout: String,
    peak_kib: Option<u64>,
    elapsed: Duration,
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
    let started = Instant::now();
    let output = command
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let elapsed = started.elapsed();
    let peak_kib = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    let _ = std::fs::remove_file(&report);
    Ok(Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        peak_kib,
        elapsed,
    })
}

/// The median of three runs by wall time (the first warms the page cache for the rest
/// when it is the first to read the files).
fn median_of_three(program: &Path, args: &[&str]) -> Result<Run, String> {
    let mut runs = vec![
        measured(program, args)?,
        measured(program, args)?,
        measured(program, args)?,
    ];
    runs.sort_by_key(|r| r.elapsed);
    Ok(runs.swap_remove(1))
}

/// The `SKILL.md` files of the skill folders on disk: folders holding a `SKILL.md`,
/// `depth` levels down at most, not below a hidden folder or `node_modules`, not below
/// another skill folder.
fn skill_files(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let file = path.join("SKILL.md");
        if file.is_file() {
            found.push(file);
        } else if !name.starts_with('.') && name != "node_modules" {
            skill_files(&path, depth - 1, found);
        }
    }
}

/// The floor for discovery: finding and reading every `SKILL.md` once, in one thread,
/// without parsing; the median of three runs.
fn read_every_skill_file(dir: &Path, depth: usize) -> (usize, Duration) {
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..3 {
        let started = Instant::now();
        let mut files = Vec::new();
        skill_files(dir, depth, &mut files);
        for file in &files {
            let _ = std::fs::read(file);
        }
        times.push(started.elapsed());
        count = files.len();
    }
    times.sort();
    (count, times[1])
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
    build_release(&["skills-runtime-cli"])?;
    let skills = target_dir().join("release/skills");
    let python = venv("bench-venv", &[DEEPAGENTS], "the real-world comparison")?.join("bin/python");
    let script = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/skills-bench/python/deepagents_realworld.py"
    ));

    let mut costs = Vec::new();
    println!(
        "| source | skill folders (depth {depth}) | ours: loaded | recovered | hidden | skipped (by reason) | deepagents: loaded |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|");
    for dir in &dirs {
        let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // The last two components name a collection better than `skills` alone.
        let parts: Vec<_> = dir.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let shown = parts[parts.len().saturating_sub(2)..].join("/");
        let text = dir.to_str().ok_or("paths must be UTF-8")?;
        let depth_arg = depth.to_string();
        let (folders, floor) = read_every_skill_file(&dir, depth);
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
        let script = script.to_str().ok_or("paths must be UTF-8")?;
        let theirs = measured(&python, &[script, text, &depth_arg])?;
        let loaded = number(&ours.stdout, "loaded").unwrap_or(0);
        println!(
            "| {shown} | {folders} | {loaded} | {} | {} | {reasons} | {} |",
            number(&ours.stdout, "recovered").unwrap_or(0),
            number(&ours.stdout, "hidden").unwrap_or(0),
            number(&theirs.stdout, "loaded").map_or_else(|| "n/a".into(), |n| n.to_string()),
        );
        let source = ["--source", text, "--depth", &depth_arg, "--allow-partial"];
        let list = median_of_three(&skills, &[&["list", "--json"], &source[..]].concat())?;
        let prompt = median_of_three(&skills, &[&["prompt"], &source[..]].concat())?;
        costs.push((shown, loaded, floor, list, prompt, theirs));
    }
    println!();
    println!(
        "| source | skills | read every SKILL.md | `skills list` | list / read | list: peak RSS | `skills prompt`: peak RSS | prompt / list | deepagents: time | deepagents: peak RSS |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (shown, loaded, floor, list, prompt, theirs) in costs {
        let ratio = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) if b > 0 => format!("{:.2}x", a as f64 / b as f64),
            _ => "n/a".to_owned(),
        };
        println!(
            "| {shown} | {loaded} | {} | {} | {:.2}x | {} | {} | {} | {} | {} |",
            ms(floor),
            ms(list.elapsed),
            list.elapsed.as_secs_f64() / floor.as_secs_f64().max(1e-9),
            mib(list.peak_kib),
            mib(prompt.peak_kib),
            ratio(prompt.peak_kib, list.peak_kib),
            ms(theirs.elapsed),
            mib(theirs.peak_kib),
        );
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

//! `skills-bench`: the side-by-side benchmark `cargo xtask bench` runs.
//!
//! ```text
//! skills-bench generate DIR SKILLS [SEED]
//! skills-bench run --cli PATH --python PATH --script PATH --out DIR [--quick]
//! skills-bench measure RUNS PROGRAM [ARGS...]
//! skills-bench scale --cli PATH --out DIR [--skills N]
//! skills-bench search --queries FILE (--library FILE | --dir DIR [--depth N]) [--misses | --pool | --dump FILE]
//! skills-bench search-sets EVAL_DIR NAME=DIR...
//! skills-bench fleet [--skills 1000,10000] [--processes 50] [--interval-ms 1000]
//! skills-bench install --cli PATH --out DIR
//! skills-bench cache --cli PATH --out DIR [--runs N] [--serve DIR] [LIBRARY...]
//! skills-bench floor [--parse [--threads N]] DIR...
//! ```
//!
//! `run` generates libraries of 100, 1,000 and 10,000 skills (`--quick`: 100 and 1,000)
//! under `OUT/libs`, then times on each, as medians of several runs: the floor (read
//! every `SKILL.md`), our discovery through the library (the work deepagents does, then
//! with resources and the prompt render), deepagents' discovery and render in its own
//! process, and both whole processes (`skills list --json` and a Python process that
//! imports deepagents and discovers) with their peak memory. It prints one table and
//! writes `OUT/side-by-side.json` and `OUT/side-by-side.md`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cache;
mod fleet;
mod install;
mod quality;
mod scale;
mod search;
mod search_sets;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use skills_backend_fs::FilesystemBackend;
use skills_bench::{Library, SOURCES, floor, generate};
use skills_core::{list_skills, merge_last_wins};
use skills_middleware::SkillsMiddleware;

const SEED: u64 = 2026;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("generate") => generate_command(&args[1..]),
        Some("run") => run_command(&args[1..]),
        Some("measure") => measure_command(&args[1..]),
        Some("scale") => scale::scale_command(&args[1..]),
        Some("search") => search::search_command(&args[1..]),
        Some("search-sets") => search_sets::search_sets_command(&args[1..]),
        Some("fleet") => fleet::fleet_command(&args[1..]),
        Some("install") => install::install_command(&args[1..]),
        Some("cache") => cache::cache_command(&args[1..]),
        Some("floor") => cache::floor_command(&args[1..]),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: skills-bench generate DIR SKILLS [SEED]\n       \
                     skills-bench run --cli PATH --python PATH --script PATH --out DIR [--quick]\n       \
                     skills-bench measure RUNS PROGRAM [ARGS...]\n       \
                     skills-bench scale --cli PATH --out DIR [--skills N]\n       \
                     skills-bench search --queries FILE (--library FILE | --dir DIR [--depth N]) [--misses | --pool | --dump FILE]\n       \
                     skills-bench search-sets EVAL_DIR NAME=DIR...\n       \
                     skills-bench fleet [--skills 1000,10000] [--processes 50] [--interval-ms 1000]\n       \
                     skills-bench install --cli PATH --out DIR\n       \
                     skills-bench cache --cli PATH --out DIR [--runs N] [--serve DIR] [LIBRARY...]\n       \
                     skills-bench floor [--parse [--threads N]] DIR...";

fn generate_command(args: &[String]) -> Result<(), String> {
    let (dir, skills, seed) = match args {
        [dir, skills] => (dir, skills, SEED.to_string()),
        [dir, skills, seed] => (dir, skills, seed.clone()),
        _ => return Err(USAGE.to_owned()),
    };
    let skills: usize = skills.parse().map_err(|e| format!("SKILLS: {e}"))?;
    let seed: u64 = seed.parse().map_err(|e| format!("SEED: {e}"))?;
    let library = generate(Path::new(dir), skills, seed).map_err(|e| format!("{dir}: {e}"))?;
    println!("{library:?}");
    Ok(())
}

struct Options {
    cli: PathBuf,
    python: PathBuf,
    script: PathBuf,
    out: PathBuf,
    quick: bool,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        cli: PathBuf::new(),
        python: PathBuf::new(),
        script: PathBuf::new(),
        out: PathBuf::new(),
        quick: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--cli" => options.cli = value()?,
            "--python" => options.python = value()?,
            "--script" => options.script = value()?,
            "--out" => options.out = value()?,
            "--quick" => options.quick = true,
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    if [&options.cli, &options.python, &options.script, &options.out]
        .iter()
        .any(|p| p.as_os_str().is_empty())
    {
        return Err(USAGE.to_owned());
    }
    Ok(options)
}

/// One library size's figures; times in milliseconds, memory in MiB.
#[derive(Debug, Serialize)]
struct Row {
    skills: usize,
    distinct_names: usize,
    invalid: usize,
    runs: usize,
    floor_ms: f64,
    ours_discovery_ms: f64,
    ours_full_ms: f64,
    deepagents_discovery_ms: f64,
    deepagents_full_ms: f64,
    ours_process_ms: f64,
    ours_process_mib: f64,
    deepagents_process_ms: f64,
    deepagents_process_mib: f64,
    deepagents_import_ms: f64,
    ours_skills: usize,
    deepagents_skills: usize,
}

fn run_command(args: &[String]) -> Result<(), String> {
    let options = parse_options(args)?;
    let (sizes, runs): (&[usize], usize) = if options.quick {
        (&[100, 1_000], 3)
    } else {
        (&[100, 1_000, 10_000], 5)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio: {e}"))?;
    let mut rows = Vec::new();
    for &skills in sizes {
        let root = options.out.join("libs").join(skills.to_string());
        eprintln!("==> {skills} skills: generating {}", root.display());
        let library = generate(&root, skills, SEED).map_err(|e| format!("{}: {e}", root.display()))?;
        floor(&library.sources).map_err(|e| e.to_string())?; // warm the page cache
        eprintln!("    floor and our library ({runs} runs)");
        let floor_ms = median(runs, || {
            let started = Instant::now();
            floor(&library.sources)
                .map(|_| started.elapsed())
                .map_err(|e| e.to_string())
        })?;
        let (ours_discovery_ms, ours_skills) = runtime.block_on(ours_discovery(&root, runs))?;
        let ours_full_ms = runtime.block_on(ours_full(&root, runs))?;
        eprintln!("    skills list --json process");
        let (ours_process_ms, ours_process_mib) = process(runs, || {
            let mut command = Command::new(&options.cli);
            command.args(["list", "--json"]);
            for source in &library.sources {
                command.arg("--source").arg(source);
            }
            command
        })?;
        eprintln!("    deepagents, in its process ({runs} runs)");
        let report = deepagents(&options, &root, runs)?;
        let deepagents_discovery_ms = median_of(&report, "discovery_s")?;
        let deepagents_render_ms = median_of(&report, "render_s")?;
        eprintln!("    deepagents, whole process");
        let (deepagents_process_ms, deepagents_process_mib) = process(runs.min(3), || {
            let mut command = Command::new(&options.python);
            command.arg(&options.script).arg(&root).arg("0");
            command
        })?;
        rows.push(Row {
            skills,
            distinct_names: library.distinct_names,
            invalid: library.invalid,
            runs,
            floor_ms,
            ours_discovery_ms,
            ours_full_ms,
            deepagents_discovery_ms,
            deepagents_full_ms: deepagents_discovery_ms + deepagents_render_ms,
            ours_process_ms,
            ours_process_mib,
            deepagents_process_ms,
            deepagents_process_mib,
            deepagents_import_ms: report["import_s"].as_f64().unwrap_or_default() * 1e3,
            ours_skills,
            deepagents_skills: report["skills"].as_u64().unwrap_or_default() as usize,
        });
        check_library(&library, rows.last().map(|r| r.ours_skills).unwrap_or_default());
    }
    let markdown = markdown(&rows, options.quick);
    println!("{markdown}");
    std::fs::create_dir_all(&options.out).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
    std::fs::write(options.out.join("side-by-side.json"), json).map_err(|e| e.to_string())?;
    std::fs::write(options.out.join("side-by-side.md"), &markdown).map_err(|e| e.to_string())?;
    eprintln!("written: {}", options.out.join("side-by-side.{json,md}").display());
    Ok(())
}

fn check_library(library: &Library, ours: usize) {
    if ours != library.distinct_names {
        eprintln!(
            "warning: discovery found {ours} skills, the generator wrote {} distinct loadable names",
            library.distinct_names
        );
    }
}

/// The values of `--NAME VALUE` flags among `args`, by name (without the dashes); a flag
/// not in `known` is an error.
fn flag_values(args: &[String], known: &[&str]) -> Result<std::collections::HashMap<String, String>, String> {
    let mut values = std::collections::HashMap::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let name = arg.strip_prefix("--").filter(|n| known.contains(n));
        let Some(name) = name else {
            return Err(format!("unknown argument {arg:?}"));
        };
        let value = args.next().cloned().ok_or(format!("{arg} wants a value"))?;
        values.insert(name.to_owned(), value);
    }
    Ok(values)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median_ms(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn median(runs: usize, mut once: impl FnMut() -> Result<Duration, String>) -> Result<f64, String> {
    let samples = (0..runs).map(|_| once().map(ms)).collect::<Result<Vec<_>, _>>()?;
    Ok(median_ms(samples))
}

fn backend(root: &Path) -> Result<Arc<FilesystemBackend>, String> {
    FilesystemBackend::new(root).map(Arc::new).map_err(|e| e.to_string())
}

/// The same work as deepagents' `before_agent`: every source's skills, merged.
async fn ours_discovery(root: &Path, runs: usize) -> Result<(f64, usize), String> {
    let backend = backend(root)?;
    let mut samples = Vec::with_capacity(runs);
    let mut found = 0;
    for _ in 0..runs {
        let started = Instant::now();
        let mut per_source = Vec::with_capacity(SOURCES.len());
        for source in SOURCES {
            let listing = list_skills(backend.as_ref(), &format!("/{source}"))
                .await
                .map_err(|e| e.to_string())?;
            per_source.push(listing.skills);
        }
        found = merge_last_wins(per_source).len();
        samples.push(ms(started.elapsed()));
    }
    Ok((median_ms(samples), found))
}

/// A fresh `SkillsMiddleware`: discovery with resources, then the prompt section.
async fn ours_full(root: &Path, runs: usize) -> Result<f64, String> {
    let backend = backend(root)?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let skills =
            SkillsMiddleware::new(backend.clone(), SOURCES.map(|s| format!("/{s}"))).map_err(|e| e.to_string())?;
        let state = skills.discover().await;
        let section = skills.render_section(Some(&state));
        std::hint::black_box(section);
        samples.push(ms(started.elapsed()));
    }
    Ok(median_ms(samples))
}

fn deepagents(options: &Options, root: &Path, runs: usize) -> Result<Value, String> {
    let output = Command::new(&options.python)
        .arg(&options.script)
        .arg(root)
        .arg(runs.to_string())
        .output()
        .map_err(|e| format!("{}: {e}", options.python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "deepagents run failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let line = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(line.trim()).map_err(|e| format!("deepagents output {line:?}: {e}"))
}

fn median_of(report: &Value, key: &str) -> Result<f64, String> {
    let samples: Vec<f64> = report[key]
        .as_array()
        .ok_or_else(|| format!("deepagents output lacks {key}"))?
        .iter()
        .filter_map(Value::as_f64)
        .map(|s| s * 1e3)
        .collect();
    if samples.is_empty() {
        return Err(format!("deepagents output has no {key}"));
    }
    Ok(median_ms(samples))
}

/// Median wall time and peak RSS (MiB) of `runs` runs of a process, output discarded.
///
/// The runs are started by `skills-bench measure`, a small process of its own: Linux
/// counts the memory a parent had when a child was spawned in the child's peak, and this
/// process holds whole catalogs by then.
fn process(runs: usize, command: impl Fn() -> Command) -> Result<(f64, f64), String> {
    let command = command();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let output = Command::new(exe)
        .arg("measure")
        .arg(runs.to_string())
        .arg(command.get_program())
        .args(command.get_args())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("measuring {command:?} failed ({})", output.status));
    }
    let report: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let samples = |key: &str| -> Vec<f64> {
        report[key]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let (times, peaks) = (samples("ms"), samples("mib"));
    if times.is_empty() || peaks.is_empty() {
        return Err(format!("measuring {command:?} gave no samples"));
    }
    Ok((median_ms(times), median_ms(peaks)))
}

/// `measure RUNS PROGRAM ARGS...`: runs the program RUNS times, output discarded, and
/// prints `{"ms": [...], "mib": [...]}` (wall time, peak RSS of each run).
fn measure_command(args: &[String]) -> Result<(), String> {
    let [runs, program, rest @ ..] = args else {
        return Err(USAGE.to_owned());
    };
    let runs: usize = runs.parse().map_err(|e| format!("RUNS: {e}"))?;
    let mut times = Vec::with_capacity(runs);
    let mut peaks = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mut command = Command::new(program);
        command.args(rest).stdout(Stdio::null()).stderr(Stdio::null());
        let started = Instant::now();
        let child = command.spawn().map_err(|e| format!("{command:?}: {e}"))?;
        let (status, peak_kib) = wait_with_peak_rss(child)?;
        times.push(ms(started.elapsed()));
        if status != 0 {
            return Err(format!("{command:?} exited with status {status}"));
        }
        peaks.push(peak_kib as f64 / 1024.0);
    }
    println!("{}", serde_json::json!({ "ms": times, "mib": peaks }));
    Ok(())
}

/// Waits for a child and returns its exit code and peak resident set size in KiB, from
/// the kernel's accounting of that one process (`wait4`).
#[allow(unsafe_code)]
fn wait_with_peak_rss(child: std::process::Child) -> Result<(i32, i64), String> {
    let pid = libc::pid_t::try_from(child.id()).map_err(|e| e.to_string())?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is a child of this process that nothing else waits for (the `Child`
    // is consumed here), and both out-pointers point to live, writable locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ok((code, usage.ru_maxrss))
}

fn markdown(rows: &[Row], quick: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "In-process, medians of {} runs (ms); the library has 3 sources, ~30% shared names, 2% invalid skills\n\n",
        rows.first().map_or(0, |r| r.runs)
    ));
    out.push_str(
        "| skills | floor: read every SKILL.md | ours: discovery | deepagents: discovery | deepagents / ours | ours / floor | ours: discovery + resources + prompt | / floor | deepagents: discovery + prompt |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.0}x | {:.2}x | {:.1} | {:.2}x | {:.1} |\n",
            r.skills,
            r.floor_ms,
            r.ours_discovery_ms,
            r.deepagents_discovery_ms,
            r.deepagents_discovery_ms / r.ours_discovery_ms,
            r.ours_discovery_ms / r.floor_ms,
            r.ours_full_ms,
            r.ours_full_ms / r.floor_ms,
            r.deepagents_full_ms,
        ));
    }
    out.push_str(
        "\nWhole processes: `skills list --json` vs a Python process importing deepagents and discovering (median ms, peak RSS)\n\n\
         | skills | skills list --json | peak RSS | deepagents process | of which import | peak RSS | deepagents / ours | skills found (ours / deepagents) |\n\
         |---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {:.1} | {:.1} MiB | {:.0} | {:.0} | {:.1} MiB | {:.0}x | {} / {} |\n",
            r.skills,
            r.ours_process_ms,
            r.ours_process_mib,
            r.deepagents_process_ms,
            r.deepagents_import_ms,
            r.deepagents_process_mib,
            r.deepagents_process_ms / r.ours_process_ms,
            r.ours_skills,
            r.deepagents_skills,
        ));
    }
    if quick {
        out.push_str("\n(--quick: 100 and 1,000 skills only, 3 runs)\n");
    }
    out
}

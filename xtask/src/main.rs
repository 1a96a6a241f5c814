//! Project tasks, run as `cargo xtask <task>`.
//!
//! - `test`: format check, clippy with `-D warnings`, every test of the workspace (all
//!   features), and the docs with warnings denied. This is what CI runs.
//! - `conformance [--backend memory|fs|all]`: the backend conformance suite, with one
//!   table per backend.
//! - `bench [reload]`: benchmarks, release build; `reload` is the hot-reload harness.
//!
//! Kept free of dependencies so it builds in seconds on a fresh machine.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  test                                  fmt check, clippy -D warnings, all tests, docs
  conformance [--backend NAME]          backend conformance suite; NAME: memory, fs, all (default)
  bench [reload]                        benchmarks (release build); reload: hot-reload figures";

/// Backends with a conformance test: (name, package).
const BACKENDS: &[(&str, &str)] = &[("memory", "skills-core"), ("fs", "skills-backend-fs")];

/// Backends the workspace reserves but does not implement yet.
const PLANNED: &[&str] = &["s3", "git"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") if args.len() == 1 => test(),
        Some("conformance") => conformance(&args[1..]),
        Some("bench") => bench(&args[1..]),
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

fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // Run from the workspace root whatever the caller's directory.
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    command
}

fn step(name: &str, mut command: Command) -> Result<(), String> {
    println!("==> {name}");
    let started = Instant::now();
    let status = command.status().map_err(|e| format!("{name}: cannot run cargo: {e}"))?;
    println!("    {name}: {:.1}s", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("xtask: step `{name}` failed ({status})"))
    }
}

fn test() -> Result<(), String> {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    step("fmt", fmt)?;

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]);
    step("clippy", clippy)?;

    let mut tests = cargo();
    tests.args(["test", "--workspace", "--all-features"]);
    step("test", tests)?;

    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps", "--all-features"])
        .env("RUSTDOCFLAGS", "-D warnings");
    step("doc", doc)?;
    println!("all checks passed");
    Ok(())
}

fn conformance(args: &[String]) -> Result<(), String> {
    let backend = match args {
        [] => "all",
        [flag, name] if flag == "--backend" => name.as_str(),
        [flag] if flag.starts_with("--backend=") => &flag["--backend=".len()..],
        _ => return Err(USAGE.to_owned()),
    };
    let selected: Vec<_> = match backend {
        "all" => BACKENDS.to_vec(),
        name if PLANNED.contains(&name) => {
            return Err(format!(
                "the {name} backend is not implemented yet; available: memory, fs, all"
            ));
        }
        name => BACKENDS.iter().copied().filter(|(n, _)| *n == name).collect(),
    };
    if selected.is_empty() {
        return Err(format!("unknown backend {backend:?}\n{USAGE}"));
    }
    for (name, package) in selected {
        let mut command = cargo();
        command.args([
            "test",
            "-p",
            package,
            "--all-features",
            "--test",
            "conformance",
            "--",
            "--nocapture",
            "--test-threads=1",
        ]);
        step(&format!("conformance: {name}"), command)?;
    }
    if backend == "all" {
        println!("not run (not implemented yet): {}", PLANNED.join(", "));
    }
    Ok(())
}

/// Known benchmarks: (name, package, bench target).
const BENCHES: &[(&str, &str, &str)] = &[("reload", "skills-middleware", "reload")];

fn bench(args: &[String]) -> Result<(), String> {
    let selected: Vec<_> = match args {
        [] => BENCHES.iter().collect(),
        [name] => match BENCHES.iter().find(|(n, _, _)| n == name) {
            Some(bench) => vec![bench],
            None => return Err(format!("unknown benchmark {name:?}\n\n{USAGE}")),
        },
        _ => return Err(USAGE.to_owned()),
    };
    for (name, package, target) in selected {
        let mut command = cargo();
        command.args(["bench", "-p", package, "--bench", target]);
        step(&format!("bench {name}"), command)?;
    }
    Ok(())
}

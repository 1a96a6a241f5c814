//! Project tasks, run as `cargo xtask <task>`.
//!
//! - `test`: format check, layout and documentation rules, clippy with `-D warnings`,
//!   every test of the workspace (all features; the README's and the guide's snippets
//!   are doctests of the facade), the API docs with warnings denied, the guide built
//!   with mdBook, and every publishable crate packaged. This is what CI runs.
//! - `man`: the manual page of `skills`, into `target/man/skills.1`.
//! - `mcp-conformance`: the official MCP conformance scenarios that apply to a skills
//!   server, against `skills serve --http` (part of `test`).
//! - `layout`: no source file over 500 lines, no two modules of a crate importing each
//!   other (directly or around a circle); part of `test`.
//! - `conformance [--backend memory|fs|s3|git|mcp|all]`: the backend conformance suite, with one
//!   table per backend.
//! - `realworld [--depth N] DIR...`: `skills validate` and deepagents side by side on
//!   real skill collections the caller fetched: folders, loaded by each, recovered,
//!   hidden, skipped by reason, peak memory of each.
//! - `test-tools`: installs what the tests run besides cargo, pinned: a Python virtual
//!   environment under `target/test-venv` with the S3-compatible server moto and the
//!   MCP Python SDK (a real MCP client), and the MCP inspector under `target/test-npm`.
//!   `test` and `conformance` do this themselves; the tests start and stop their own
//!   servers on 127.0.0.1.
//! - `bench [--quick]`: the side-by-side benchmark (crates/skills-bench): our release CLI
//!   and library against deepagents (pinned, in `target/bench-venv`) and a floor that only
//!   reads every `SKILL.md`, on seeded libraries; `bench reload|s3|git|micro|all` runs
//!   the named benchmarks: hot reload, S3 discovery with request counts, git discovery
//!   and commit-to-catalog latency, divan micro-benchmarks of the hot paths; `bench
//!   scale` lists one source of 100,000 skills; `bench install` times `skills add` and a
//!   no-op `skills sync` as whole processes; `bench cache [--serve DIR] [DIR...]` times
//!   `skills list --json` cold, warm and without the parse cache against the read floor.
//! - `hot-symbols`: the functions of the release `skills` its common commands run (under
//!   valgrind's callgrind), written for the linker to lay out together.
//!
//! Kept free of dependencies so it builds in seconds on a fresh machine.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod hot_symbols;
mod layout;
mod mcp_conformance;
mod realworld;
mod release;

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  test                                  fmt check, layout and docs rules, clippy -D warnings, all
                                        tests, API docs, the guide (mdbook build), cargo package
  man                                   the manual page of `skills` into target/man/skills.1
  mcp-conformance                       the official MCP conformance scenarios that apply to a
                                        skills server, against `skills serve --http`; part of test
  layout                                no source file over 500 lines, no import circle
                                        between the modules of a crate
  conformance [--backend NAME]          backend conformance suite; NAME: memory, fs, s3, git, mcp, all (default)
  realworld [--depth N] DIR...           our CLI and deepagents side by side on real skill
                                        collections fetched beforehand (nothing is fetched)
  test-tools                            install the pinned test tools: moto and the MCP Python SDK
                                        (target/test-venv), the MCP inspector (target/test-npm)
  bench [--quick]                       ours vs deepagents vs a read-only floor on generated
                                        libraries (100/1,000/10,000 skills; --quick: 100/1,000);
                                        table in target/bench/side-by-side.{md,json}
  bench reload|s3|git|micro|catalog|all
                                        one named benchmark (release build): hot reload, S3,
                                        git, divan micro-benchmarks, the catalog at 10,000
                                        skills (threads, load_skill, section, search), or all
  bench scale                           skills list on one source of 100,000 skills: every
                                        skill read, time and peak memory
  bench install                         skills add of 100 skills from a local git repository,
                                        and a no-op skills sync of 1,000 installed skills
  bench cache [--runs N] [--serve DIR] [DIR...]
                                        skills list --json without the parse cache, cold and
                                        warm, against the read floor, on a generated library
                                        and real ones (folders of skill folders); --serve: the
                                        first search_skills of skills serve, cold and warm
  bench search [NAME=DIR...]            search quality (hit@1, hit@5, MRR, ours vs plain BM25), per set and pooled by role
                                        on the synthetic set and on real libraries fetched
                                        beforehand, e.g. thereisnotime=DIR agentskillexchange=DIR
                                        (queries in crates/skills-bench/eval/NAME-queries.toml)
  bench fleet [--skills N,N] [--processes P] [--interval-ms I]
                                        S3 polling with and without the published index
                                        (requests per poll, a 1,000-process fleet's cost), and
                                        a fleet of P pollers converging on a change (moto)
  hot-symbols                           profile the release CLI's common commands under valgrind
                                        and write the functions they run, for the linker to lay
                                        out together, to crates/skills-runtime-cli/hot-symbols.txt";

/// Backends with a conformance test: (name, package).
const BACKENDS: &[(&str, &str)] = &[
    ("memory", "skills-core"),
    ("fs", "skills-backend-fs"),
    ("s3", "skills-backend-s3"),
    ("git", "skills-backend-git"),
    ("mcp", "skills-backend-mcp"),
];

/// The Python packages of the test venv, pinned: the S3-compatible test server, the
/// MCP SDK whose client drives `skills serve`, FastMCP, whose skills server the MCP
/// source reads, and `cryptography`, which makes the certificate of the https git test
/// server.
const PYTHON_TOOLS: &[&str] = &[
    "moto[server]==5.2.5",
    "mcp==2.3.0",
    "fastmcp==4.2.3",
    "cryptography==50.0.2",
];

/// The MCP inspector, pinned; its CLI checks `skills serve` against SEP-2640.
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") if args.len() == 1 => test(),
        Some("layout") if args.len() == 1 => layout::check(&workspace_root()).map(|report| println!("{report}")),
        Some("man") if args.len() == 1 => release::man(),
        Some("mcp-conformance") if args.len() == 1 => mcp_conformance::run(),
        Some("conformance") => conformance(&args[1..]),
        Some("realworld") => realworld::realworld(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("hot-symbols") if args.len() == 1 => hot_symbols::run(),
        Some("test-tools") if args.len() == 1 => test_tools().map(|tools| {
            for (name, path) in tools.env() {
                println!("{name}={}", path.display());
            }
        }),
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

/// Builds each of `packages` for release in a cargo invocation of its own. The CLI is
/// then built as `cargo install` builds it: built with skills-bench in one invocation,
/// its dependencies would take skills-bench's features too, and their functions other
/// names than the linker's ordering lists (decision 127).
fn build_release(packages: &[&str]) -> Result<(), String> {
    for package in packages {
        let mut build = cargo();
        build.args(["build", "--release", "-p", package]);
        step(&format!("build --release -p {package}"), build)?;
    }
    Ok(())
}

fn step(name: &str, mut command: Command) -> Result<(), String> {
    println!("==> {name}");
    let started = Instant::now();
    let status = command
        .status()
        .map_err(|e| format!("{name}: cannot run {}: {e}", command.get_program().to_string_lossy()))?;
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
    println!("{}", layout::check(&workspace_root())?);
    println!("{}", release::check_docs(&workspace_root())?);

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

    let tools = test_tools()?;
    let mut tests = cargo();
    // The binaries the tests run keep their parse caches under target/, not in the
    // user's cache folder.
    tests
        .args(["test", "--workspace", "--all-features"])
        .envs(tools.env())
        .env("SKILLS_CACHE_DIR", target_dir().join("test-skills-cache"));
    step("test", tests)?;

    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps", "--all-features"])
        .env("RUSTDOCFLAGS", "-D warnings");
    step("doc", doc)?;
    mcp_conformance::run()?;
    release::guide()?;
    release::package()?;
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
        name => BACKENDS.iter().copied().filter(|(n, _)| *n == name).collect(),
    };
    if selected.is_empty() {
        return Err(format!("unknown backend {backend:?}\n{USAGE}"));
    }
    // Only the S3 suite needs a tool: the moto server.
    let moto = if selected.iter().any(|(name, _)| *name == "s3") {
        Some(moto_server()?)
    } else {
        None
    };
    let mut failed = Vec::new();
    for (name, package) in selected {
        let mut command = cargo();
        if let Some(moto) = &moto {
            command.env(MOTO_SERVER_ENV, moto);
        }
        command.args(["test", "-p", package, "--all-features", "--test", "conformance"]);
        let started = Instant::now();
        let output = command
            .output()
            .map_err(|e| format!("conformance: {name}: cannot run cargo: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        println!("backend: {name} ({package}, {:.1}s)", started.elapsed().as_secs_f64());
        print!("{}", conformance_table(&stdout));
        if !output.status.success() {
            eprintln!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
            failed.push(name);
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("conformance failed on: {}", failed.join(", ")))
    }
}

/// One line per behaviour (`setup::behaviour  ok`) from libtest's output, then a count.
fn conformance_table(libtest: &str) -> String {
    let mut rows: Vec<(&str, &str)> = libtest
        .lines()
        .filter_map(|line| line.strip_prefix("test ")?.split_once(" ... "))
        .collect();
    rows.sort_unstable();
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut table = String::new();
    for (name, result) in &rows {
        table.push_str(&format!("  {name:<width$}  {result}\n"));
    }
    let passed = rows.iter().filter(|(_, r)| *r == "ok").count();
    table.push_str(&format!("  {passed} passed, {} failed\n\n", rows.len() - passed));
    table
}

/// Where moto's server program sits in the test venv.
const MOTO_IN_VENV: &str = "bin/moto_server";

/// The variable through which tests find the moto server.
const MOTO_SERVER_ENV: &str = "SKILLS_TEST_MOTO_SERVER";
/// The variable through which tests find the Python with the MCP SDK.
const PYTHON_ENV: &str = "SKILLS_TEST_PYTHON";
/// The variable through which tests find the MCP inspector.
const INSPECTOR_ENV: &str = "SKILLS_TEST_MCP_INSPECTOR";

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")))
}

/// Where the installed test tools are.
struct TestTools {
    venv: PathBuf,
    inspector: PathBuf,
}

impl TestTools {
    /// The variables the tests read.
    fn env(&self) -> [(&'static str, PathBuf); 3] {
        [
            (MOTO_SERVER_ENV, self.venv.join(MOTO_IN_VENV)),
            (PYTHON_ENV, self.venv.join("bin/python")),
            (INSPECTOR_ENV, self.inspector.clone()),
        ]
    }
}

/// Installs the pinned test tools unless they are there already.
fn test_tools() -> Result<TestTools, String> {
    Ok(TestTools {
        venv: python_tools()?,
        inspector: inspector()?,
    })
}

/// `target/test-venv` with [`PYTHON_TOOLS`]; returns the venv's path.
fn python_tools() -> Result<PathBuf, String> {
    venv("test-venv", PYTHON_TOOLS, "the S3 and MCP tests")
}

/// The moto server of the test venv (installed if needed).
fn moto_server() -> Result<PathBuf, String> {
    Ok(python_tools()?.join(MOTO_IN_VENV))
}

/// A Python virtual environment `target/NAME` with `packages` installed, unless it is
/// there already with exactly those; returns its path.
fn venv(name: &str, packages: &[&str], needed_by: &str) -> Result<PathBuf, String> {
    let venv = target_dir().join(name);
    let marker = venv.join(".installed");
    let wanted = packages.join("\n");
    if installed(&venv.join("bin/python"), &marker, &wanted) {
        return Ok(venv);
    }
    let mut create = Command::new("python3");
    create.args(["-m", "venv", "--clear"]).arg(&venv);
    step(&format!("{name}: python3 -m venv"), create)
        .map_err(|e| format!("{e}\n{needed_by} need Python 3 with the venv module (Debian: python3-venv)"))?;
    let mut install = Command::new(venv.join("bin/pip"));
    install
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(packages);
    step(&format!("{name}: pip install"), install)?;
    std::fs::write(&marker, wanted).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(venv)
}

/// Whether a tool is there as pinned: its `program` exists and its `marker` file holds
/// `wanted`, what was installed.
pub(crate) fn installed(program: &std::path::Path, marker: &std::path::Path, wanted: &str) -> bool {
    program.exists() && std::fs::read_to_string(marker).is_ok_and(|v| v == wanted)
}

/// `target/test-npm` with [`INSPECTOR`]; returns the path of its `mcp-inspector`.
fn inspector() -> Result<PathBuf, String> {
    let bin = npm_tools("test-npm", &[INSPECTOR], "mcp-inspector", "the MCP tests")?;
    Ok(bin.join("mcp-inspector"))
}

/// An npm prefix `target/NAME` with `packages` installed, unless `program` is there
/// already from exactly those; returns its `node_modules/.bin`.
pub(crate) fn npm_tools(name: &str, packages: &[&str], program: &str, needed_by: &str) -> Result<PathBuf, String> {
    let prefix = target_dir().join(name);
    let bin = prefix.join("node_modules/.bin");
    let marker = prefix.join(".installed");
    let wanted = packages.join("\n");
    if installed(&bin.join(program), &marker, &wanted) {
        return Ok(bin);
    }
    std::fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
    let mut install = Command::new("npm");
    install
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
        .arg(&prefix)
        .args(packages);
    step(&format!("{name}: npm install"), install)
        .map_err(|e| format!("{e}\n{needed_by} need Node.js 20+ with npm (Debian: nodejs npm) and the npm registry"))?;
    std::fs::write(&marker, wanted).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(bin)
}

/// The workspace root (this crate's parent directory).
fn workspace_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

//! `cargo xtask bench ...`: the benchmarks, each on a release build.

use std::process::Command;

use crate::{MOTO_SERVER_ENV, USAGE, build_release, cargo, moto_server, step, target_dir, venv, workspace_root};

/// Known benchmarks: (name, package, bench target).
const BENCHES: &[(&str, &str, &str)] = &[
    ("reload", "skills-middleware", "reload"),
    ("s3", "skills-backend-s3", "discovery"),
    ("git", "skills-backend-git", "discovery"),
    ("micro", "skills-middleware", "micro"),
    ("catalog", "skills-middleware", "catalog"),
];

/// The Python reference, pinned, for the side-by-side benchmark.
pub(crate) const DEEPAGENTS: &str = "deepagents==0.7.32";

pub(crate) fn bench(args: &[String]) -> Result<(), String> {
    let selected: Vec<_> = match args {
        [] => return side_by_side(false),
        [flag] if flag == "--quick" => return side_by_side(true),
        [name] if name == "scale" => return scale(),
        [name] if name == "install" => return step("install", release_bench("install")?),
        [name, rest @ ..] if name == "cache" => {
            let mut run = release_bench("cache")?;
            run.args(rest);
            return step("cache", run);
        }
        [name, libraries @ ..] if name == "search" => return search(libraries),
        [name, rest @ ..] if name == "fleet" => return fleet(rest),
        [name] if name == "all" => BENCHES.iter().collect(),
        [name] => match BENCHES.iter().find(|(n, _, _)| n == name) {
            Some(bench) => vec![bench],
            None => return Err(format!("unknown benchmark {name:?}\n\n{USAGE}")),
        },
        _ => return Err(USAGE.to_owned()),
    };
    for (name, package, target) in selected {
        let mut command = cargo();
        command.args(["bench", "-p", package, "--bench", target]);
        if *name == "s3" {
            command.env(MOTO_SERVER_ENV, moto_server()?);
        }
        step(&format!("bench {name}"), command)?;
    }
    Ok(())
}

/// Builds the release CLI and `skills-bench`, and gives `skills-bench COMMAND --cli
/// <release skills> --out target/bench` to add arguments to.
fn release_bench(command: &str) -> Result<Command, String> {
    build_release(&["skills-runtime-cli", "skills-bench"])?;
    let target = target_dir();
    if let Some(line) = crate::hot_symbols::freshness(&target.join("release/skills")) {
        println!("{line}");
    }
    let mut run = Command::new(target.join("release/skills-bench"));
    run.arg(command)
        .arg("--cli")
        .arg(target.join("release/skills"))
        .arg("--out")
        .arg(target.join("bench"));
    Ok(run)
}

/// Ours (release CLI and library) against deepagents and the read-only floor, on
/// generated libraries; the table goes to stdout and `target/bench/side-by-side.{json,md}`.
fn side_by_side(quick: bool) -> Result<(), String> {
    let venv = venv("bench-venv", &[DEEPAGENTS], "the side-by-side benchmark")?;
    let mut run = release_bench("run")?;
    run.arg("--python")
        .arg(venv.join("bin/python"))
        .arg("--script")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../crates/skills-bench/python/deepagents_bench.py"
        ));
    if quick {
        run.arg("--quick");
    }
    step("side-by-side", run)
}

/// The search evaluation: the committed synthetic set, then each real library given as
/// `NAME=DIR` against `crates/skills-bench/eval/NAME-queries.toml`, in one run that also
/// pools the development sets' requests and the held-out sets'.
fn search(libraries: &[String]) -> Result<(), String> {
    build_release(&["skills-bench"])?;
    let root = workspace_root();
    let bench = target_dir().join("release/skills-bench");
    let mut synthetic = Command::new(&bench);
    synthetic
        .arg("search")
        .arg("--queries")
        .arg(root.join("crates/skills-catalog/tests/search/queries.toml"))
        .arg("--library")
        .arg(root.join("crates/skills-catalog/tests/search/library.toml"));
    step("search: synthetic", synthetic)?;
    if libraries.is_empty() {
        return Ok(());
    }
    for library in libraries {
        let Some((name, _)) = library.split_once('=') else {
            return Err(format!("search: {library:?} is not NAME=DIR\n\n{USAGE}"));
        };
        let queries = root.join(format!("crates/skills-bench/eval/{name}-queries.toml"));
        if !queries.exists() {
            return Err(format!("search: no query set {}", queries.display()));
        }
    }
    // One run, so that the sets of each role are pooled as well as shown one by one.
    let mut real = Command::new(&bench);
    real.arg("search-sets")
        .arg(root.join("crates/skills-bench/eval"))
        .args(libraries);
    step("search: real libraries", real)
}

/// What polling an S3 library costs with and without its published index (1,000 and
/// 10,000 skills, counted requests against moto), and a simulated fleet polling one
/// library while it changes. Extra arguments go to `skills-bench fleet`.
fn fleet(rest: &[String]) -> Result<(), String> {
    build_release(&["skills-bench"])?;
    let mut run = Command::new(target_dir().join("release/skills-bench"));
    run.arg("fleet").args(rest).env(MOTO_SERVER_ENV, moto_server()?);
    step("fleet", run)
}

/// `skills list` on one source of 100,000 generated skills (kept in `target/bench`
/// between runs): every skill read, time and peak memory.
fn scale() -> Result<(), String> {
    step("scale", release_bench("scale")?)
}

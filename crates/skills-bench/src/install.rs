//! `skills-bench install --cli PATH --out DIR`: the installer as a user runs it, whole
//! processes of the release CLI: `skills add` of 100 skills from a local git repository
//! into a fresh project, and a `skills sync` with nothing to do over 1,000 installed
//! skills (goal: under 100 ms), each the median of several runs with its peak memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The no-op sync of 1,000 installed skills should take less than this.
const SYNC_GOAL_MS: f64 = 100.0;

/// Writes `skills` skill folders under `dir`, each a `SKILL.md`, a script and a
/// reference, as installed skills usually are.
fn write_library(dir: &Path, skills: usize) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    for i in 0..skills {
        let name = format!("skill-{i:04}");
        let folder = dir.join(&name);
        std::fs::create_dir_all(folder.join("scripts")).map_err(|e| format!("{}: {e}", folder.display()))?;
        std::fs::create_dir_all(folder.join("references")).map_err(|e| e.to_string())?;
        let md = format!(
            "---\nname: {name}\ndescription: Handles request kind {i} end to end\n---\n\n# {name}\n\n{}\n",
            "Check each result before the next step. ".repeat(20)
        );
        std::fs::write(folder.join("SKILL.md"), md).map_err(|e| e.to_string())?;
        std::fs::write(folder.join("scripts/run.py"), format!("print({i})\n").repeat(50)).map_err(|e| e.to_string())?;
        std::fs::write(folder.join("references/guide.md"), "A reference.\n".repeat(80)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@localhost")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@localhost")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("git: {e}"))?;
    status.success().then_some(()).ok_or(format!("git {args:?} failed"))
}

/// One run of `cli ARGS` in `cwd`: wall time (ms) and peak memory (MiB); a failed run
/// is an error.
fn run(cli: &Path, cwd: &Path, home: &Path, args: &[&str]) -> Result<(f64, f64), String> {
    let started = Instant::now();
    let child = Command::new(cli)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("SKILLS_GIT_CACHE", home.join("cache"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let (code, kib) = crate::wait_with_peak_rss(child)?;
    let ms = crate::ms(started.elapsed());
    if code != 0 {
        return Err(format!("skills {args:?} in {} exited with {code}", cwd.display()));
    }
    Ok((ms, kib as f64 / 1024.0))
}

fn medians(samples: Vec<(f64, f64)>) -> (f64, f64) {
    let (times, peaks) = samples.into_iter().unzip();
    (crate::median_ms(times), crate::median_ms(peaks))
}

pub fn install_command(args: &[String]) -> Result<(), String> {
    let mut flags = crate::flag_values(args, &["cli", "out"])?;
    let (Some(cli), Some(out)) = (flags.remove("cli"), flags.remove("out")) else {
        return Err("usage: skills-bench install --cli PATH --out DIR".into());
    };
    let (cli, out) = (PathBuf::from(cli), PathBuf::from(out));
    let root = out.join("install");
    let _ = std::fs::remove_dir_all(&root);
    let home = root.join("home");
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;

    // `add` of 100 skills from a local git repository, into a fresh project each run.
    let repo = root.join("repo");
    write_library(&repo.join("skills"), 100)?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    git(&repo, &["add", "."])?;
    git(&repo, &["commit", "-q", "-m", "library"])?;
    let source = format!("git+file://{}#ref=main&path=skills", repo.display());
    let mut samples = Vec::new();
    for i in 0..7 {
        let project = root.join(format!("add-{i}"));
        std::fs::create_dir_all(project.join(".claude")).map_err(|e| e.to_string())?;
        samples.push(run(&cli, &project, &home, &["add", &source])?);
    }
    let (add_ms, add_mib) = medians(samples);

    // A no-op `sync` over 1,000 installed skills.
    write_library(&root.join("lib"), 1_000)?;
    let project = root.join("sync");
    std::fs::create_dir_all(project.join(".claude")).map_err(|e| e.to_string())?;
    let lib = root.join("lib");
    run(
        &cli,
        &project,
        &home,
        &["add", lib.to_str().ok_or("paths must be UTF-8")?],
    )?;
    let samples = (0..11)
        .map(|_| run(&cli, &project, &home, &["sync"]))
        .collect::<Result<Vec<_>, _>>()?;
    let (sync_ms, sync_mib) = medians(samples);

    println!("the installer, whole processes of the release CLI (medians)");
    println!("| command | time | peak RSS | goal |");
    println!("|---|---:|---:|---|");
    println!(
        "| `skills add` of 100 skills from a local git repository (7 runs) | {add_ms:.0} ms | {add_mib:.1} MiB | - |"
    );
    println!(
        "| `skills sync` with nothing to do, 1,000 installed skills (11 runs) | {sync_ms:.0} ms | {sync_mib:.1} MiB | under {SYNC_GOAL_MS:.0} ms: {} |",
        if sync_ms < SYNC_GOAL_MS { "met" } else { "not met" }
    );
    Ok(())
}

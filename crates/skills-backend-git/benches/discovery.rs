//! Git figures for a generated library of 1,000 skills (a ~4 KiB SKILL.md and three
//! resources each, one commit):
//!
//! - cold open + discovery from the local repository;
//! - cold clone + discovery from `git daemon` on 127.0.0.1 (empty cache), and open +
//!   discovery with a warm cache (one fetch that brings nothing);
//! - commit-to-catalog latency with a watched local repository (notify on refs);
//! - growth: discovery of 1,000 / 3,000 / 10,000 skills in one folder (`SKILL.md` only,
//!   as `skills list` reads them) from disk, a packed repository and a loose one.
//!
//! `cargo xtask bench git`. Wall-clock figures: compare runs on one machine.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use skills_backend_git::test_support::{GitDaemon, TestRepo};
use skills_backend_git::{GitBackend, GitBackendBuilder, GitRef};
use skills_catalog::{SkillCatalog, SkillSource};

const SKILLS: usize = 1000;
const RUNS: usize = 7;
const EDITS: usize = 30;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn discover(builder: GitBackendBuilder) -> Duration {
    let started = Instant::now();
    let backend = builder.open().unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]);
    let snapshot = catalog.ensure_loaded().await;
    let elapsed = started.elapsed();
    assert_eq!(snapshot.skills().len(), SKILLS);
    elapsed
}

/// Median discovery time of `source()`'s library of `skills` skills, without resources.
async fn list(skills: usize, source: impl Fn() -> SkillSource) -> Duration {
    let mut runs = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let catalog = SkillCatalog::new(vec![source()]).with_resources(false);
        let snapshot = catalog.ensure_loaded().await;
        runs.push(started.elapsed());
        assert_eq!(snapshot.skills().len(), skills);
    }
    median(runs)
}

/// Disk, packed git and loose git at growing library sizes: time per skill stays flat
/// when discovery is linear.
async fn growth() {
    println!("growth: one folder of N skills (a ~3 KiB SKILL.md each), discovery without resources, 3 runs, median");
    println!("| skills | disk | git packed | git loose | packed / disk | packed per skill |");
    println!("|---|---|---|---|---|---|");
    let body = "Read the request, then follow these steps in order. ".repeat(60);
    for skills in [1_000, 3_000, 10_000] {
        let disk = tempfile::tempdir().unwrap();
        let mut repo = TestRepo::new();
        for i in 0..skills {
            let name = format!("skill-{i:05}");
            let md = format!("---\nname: {name}\ndescription: Does task {i} when asked\n---\n\n{body}\n");
            std::fs::create_dir(disk.path().join(&name)).unwrap();
            std::fs::write(disk.path().join(&name).join("SKILL.md"), &md).unwrap();
            repo.write(&format!("{name}/SKILL.md"), md);
        }
        repo.commit("main", "library");
        let fs = Arc::new(skills_backend_fs::FilesystemBackend::new(disk.path()).unwrap());
        let on_disk = list(skills, || SkillSource::new(fs.clone(), "/")).await;
        let git = || {
            GitBackend::open(repo.path())
                .reference(GitRef::Branch("main".into()))
                .open()
                .unwrap()
        };
        let loose = list(skills, || SkillSource::new(Arc::new(git()), "/")).await;
        repo.pack("main");
        let packed = list(skills, || SkillSource::new(Arc::new(git()), "/")).await;
        println!(
            "| {skills} | {} | {} | {} | {:.2}x | {:.1} µs |",
            ms(on_disk),
            ms(packed),
            ms(loose),
            packed.as_secs_f64() / on_disk.as_secs_f64(),
            packed.as_secs_f64() * 1e6 / skills as f64
        );
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut repo = TestRepo::new();
    let body = "Step by step instructions. ".repeat(150);
    for i in 0..SKILLS {
        let name = format!("skill-{i:04}");
        let md = format!("---\nname: {name}\ndescription: Does task {i}\n---\n\n{body}\n");
        repo.write(&format!("skills/{name}/SKILL.md"), md);
        repo.write(&format!("skills/{name}/scripts/run.sh"), "echo run\n");
        repo.write(&format!("skills/{name}/references/guide.md"), "# Guide\n");
        repo.write(&format!("skills/{name}/assets/logo.txt"), "logo\n");
    }
    repo.commit("main", "library");
    let local = || {
        GitBackend::open(repo.path())
            .reference(GitRef::Branch("main".into()))
            .subdir("skills")
            .unwrap()
    };
    let daemon = GitDaemon::start(repo.base());
    let url = daemon.url("repo.git");

    let mut local_runs = Vec::new();
    let mut cold_runs = Vec::new();
    let mut warm_runs = Vec::new();
    for _ in 0..RUNS {
        local_runs.push(discover(local()).await);
        let cache = tempfile::tempdir().unwrap();
        let remote = || GitBackend::remote(&url, cache.path()).subdir("skills").unwrap();
        cold_runs.push(discover(remote()).await);
        warm_runs.push(discover(remote()).await);
    }

    // Commit-to-catalog latency through the watch.
    let backend = local().open().unwrap();
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]));
    catalog.ensure_loaded().await;
    let mut events = catalog.subscribe();
    let _watch = catalog.watch().unwrap();
    let mut latencies = Vec::new();
    for edit in 0..EDITS {
        let name = format!("skill-{:04}", edit * 7);
        let md = format!("---\nname: {name}\ndescription: Edit {edit}\n---\n");
        repo.write(&format!("skills/{name}/SKILL.md"), md);
        let started = Instant::now();
        repo.commit("main", "edit");
        let wanted = format!("Edit {edit}");
        loop {
            tokio::time::timeout(Duration::from_secs(30), events.recv())
                .await
                .unwrap()
                .unwrap();
            if catalog.snapshot().get(&name).is_some_and(|s| s.description == wanted) {
                break;
            }
        }
        latencies.push(started.elapsed());
    }
    latencies.sort();

    println!(
        "git, {SKILLS} skills ({} files in the tree), {RUNS} runs, median",
        SKILLS * 4
    );
    println!("| measure | figure |");
    println!("|---|---|");
    println!(
        "| local repository: open + discovery (skills + resources) | {} |",
        ms(median(local_runs))
    );
    println!(
        "| git daemon: clone into an empty cache + discovery | {} |",
        ms(median(cold_runs))
    );
    println!(
        "| git daemon: warm cache, fetch + discovery | {} |",
        ms(median(warm_runs))
    );
    println!(
        "| commit to new catalog snapshot, local watch ({EDITS} commits) | {} median, {} max |",
        ms(latencies[EDITS / 2]),
        ms(latencies[EDITS - 1])
    );
    println!();
    growth().await;
}

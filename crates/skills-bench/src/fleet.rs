//! `skills-bench fleet`: what polling an S3 library costs, with and without its
//! published index, counted in HTTP requests against a real S3-compatible server (moto,
//! from the test tools), and a fleet of processes (tasks) polling one library while it
//! changes.
//!
//! ```text
//! skills-bench fleet [--skills 1000,10000] [--processes 50] [--interval-ms 1000]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use skills_backend_s3::counting::{CountingConnector, Requests};
use skills_backend_s3::object_store::ObjectStoreExt;
use skills_backend_s3::object_store::path::Path as ObjectPath;
use skills_backend_s3::test_server::{S3TestServer, sample_library};
use skills_backend_s3::{ObjectStoreBackend, publish_index};
use skills_catalog::{SkillCatalog, SkillSource};

/// Published S3 Standard request prices (us-east-1), dollars per 1,000 requests.
const GET_PRICE: f64 = 0.0004;
const LIST_PRICE: f64 = 0.005;
/// The fleet the cost table is for.
const FLEET: f64 = 1_000.0;
const FLEET_INTERVAL_S: f64 = 30.0;
/// Skills of the library the simulated fleet polls (each process discovers it once).
const FLEET_LIBRARY: usize = 200;

struct Options {
    skills: Vec<usize>,
    processes: usize,
    interval: Duration,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        skills: vec![1_000, 10_000],
        processes: 50,
        interval: Duration::from_millis(1_000),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--skills" => {
                options.skills = value()?
                    .split(',')
                    .map(|n| n.trim().parse().map_err(|e| format!("--skills: {e}")))
                    .collect::<Result<_, _>>()?;
            }
            "--processes" => options.processes = value()?.parse().map_err(|e| format!("--processes: {e}"))?,
            "--interval-ms" => {
                let ms: u64 = value()?.parse().map_err(|e| format!("--interval-ms: {e}"))?;
                options.interval = Duration::from_millis(ms.max(50));
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

fn counted(server: &S3TestServer, requests: &Arc<Requests>, index: bool, interval: Duration) -> ObjectStoreBackend {
    let connector = CountingConnector {
        requests: Arc::clone(requests),
        ..CountingConnector::default()
    };
    let builder = server.backend_builder("team", "library").http_connector(connector);
    builder
        .build()
        .expect("a backend on the test server")
        .with_index(index)
        .with_poll_interval(interval)
}

fn catalog(backend: ObjectStoreBackend) -> SkillCatalog {
    SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")])
}

async fn publish(server: &S3TestServer) {
    let backend = server.backend("team", "library");
    let (index, problems) = catalog(backend.clone()).library_index(0).await;
    assert!(problems.is_empty(), "{problems:?}");
    publish_index(&backend, &index).await.expect("the index is written");
}

async fn edit(server: &S3TestServer, skill: usize, text: &str) {
    let name = format!("skill-{skill:04}");
    let md = format!("---\nname: {name}\ndescription: {text}\n---\n");
    server
        .store("team")
        .put(&ObjectPath::from(format!("library/{name}/SKILL.md")), md.into())
        .await
        .expect("an edit");
}

/// Requests of one unchanged poll and of one change, without and with the index.
#[derive(Debug, Clone, Copy)]
struct PollCost {
    skills: usize,
    plain_poll: (usize, usize),
    plain_change: (usize, usize),
    indexed_poll: (usize, usize),
    indexed_change: (usize, usize),
}

/// (LISTs, GETs) of what `work` sends.
async fn count<F: std::future::Future>(requests: &Requests, work: F) -> (usize, usize) {
    requests.clear();
    work.await;
    (requests.lists(), requests.total() - requests.lists())
}

async fn poll_cost(skills: usize) -> PollCost {
    let server = S3TestServer::start();
    server
        .bucket_with("team", "library", &sample_library(skills, "Body."))
        .await;
    let requests = Arc::new(Requests::default());
    let plain = catalog(counted(&server, &requests, false, Duration::from_secs(30)));
    plain.ensure_loaded().await;
    let plain_poll = count(&requests, plain.reload()).await;
    edit(&server, 1, "Changed once").await;
    let plain_change = count(&requests, plain.reload()).await;

    publish(&server).await;
    let indexed = catalog(counted(&server, &requests, true, Duration::from_secs(30)));
    indexed.ensure_loaded().await;
    let indexed_poll = count(&requests, indexed.reload()).await;
    edit(&server, 2, "Changed twice").await;
    publish(&server).await;
    let indexed_change = count(&requests, indexed.reload()).await;
    PollCost {
        skills,
        plain_poll,
        plain_change,
        indexed_poll,
        indexed_change,
    }
}

/// Dollars a day for `fleet` processes each sending `lists` LISTs and `gets` GETs per
/// poll every `interval_s` seconds.
fn dollars_a_day(lists: usize, gets: usize) -> f64 {
    let polls = FLEET * 86_400.0 / FLEET_INTERVAL_S;
    polls * (lists as f64 * LIST_PRICE + gets as f64 * GET_PRICE) / 1_000.0
}

struct FleetRun {
    processes: usize,
    interval: Duration,
    converged: Vec<Duration>,
    requests: usize,
    polls: usize,
    skill_gets: usize,
    lists: usize,
}

/// `processes` catalogs polling one indexed library; one skill changes; how long each
/// takes to see it, and what the fleet sent.
async fn fleet(processes: usize, interval: Duration) -> FleetRun {
    let server = S3TestServer::start();
    server
        .bucket_with("team", "library", &sample_library(FLEET_LIBRARY, "Body."))
        .await;
    publish(&server).await;
    let requests = Arc::new(Requests::default());
    let mut members = Vec::with_capacity(processes);
    for _ in 0..processes {
        let catalog = Arc::new(catalog(counted(&server, &requests, true, interval)));
        catalog.ensure_loaded().await;
        members.push(catalog);
    }
    requests.clear();
    let mut watches = Vec::new();
    let mut events = Vec::new();
    for member in &members {
        events.push(member.subscribe());
        watches.push(member.watch().expect("a watch"));
    }
    // Some idle polls, then the change.
    tokio::time::sleep(interval * 3).await;
    edit(&server, 7, "Fleet edit").await;
    publish(&server).await;
    let changed_at = Instant::now();
    let mut converged = Vec::with_capacity(processes);
    for mut receiver in events {
        match tokio::time::timeout(interval * 10, receiver.recv()).await {
            Ok(Ok(_)) => converged.push(changed_at.elapsed()),
            _ => converged.push(Duration::MAX),
        }
    }
    tokio::time::sleep(interval).await;
    drop(watches);
    let skill_gets = requests.object_requests_to("/library/skill-0007/SKILL.md");
    let polls = requests.object_requests_to("/library/skills-index.json");
    FleetRun {
        processes,
        interval,
        converged,
        requests: requests.total(),
        polls,
        skill_gets,
        lists: requests.lists(),
    }
}

pub fn fleet_command(args: &[String]) -> Result<(), String> {
    let options = options(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        println!("| skills | objects | unchanged poll: no index | with the index | one change: no index | with the index | 1,000 processes every 30 s: no index | with the index |");
        println!("|---:|---:|---|---|---|---|---:|---:|");
        for &skills in &options.skills {
            let cost = poll_cost(skills).await;
            let shown = |(lists, gets): (usize, usize)| format!("{lists} LIST + {gets} GET");
            let per_second = |(lists, gets): (usize, usize)| (lists + gets) as f64 * FLEET / FLEET_INTERVAL_S;
            println!(
                "| {} | {} | {} | {} | {} | {} | {:.0} req/s, ${:.2}/day | {:.0} req/s, ${:.2}/day |",
                cost.skills,
                cost.skills * 4,
                shown(cost.plain_poll),
                shown(cost.indexed_poll),
                shown(cost.plain_change),
                shown(cost.indexed_change),
                per_second(cost.plain_poll),
                dollars_a_day(cost.plain_poll.0, cost.plain_poll.1),
                per_second(cost.indexed_poll),
                dollars_a_day(cost.indexed_poll.0, cost.indexed_poll.1),
            );
        }
        let run = fleet(options.processes, options.interval).await;
        let slowest = run.converged.iter().max().copied().unwrap_or_default();
        let within = run.converged.iter().filter(|d| **d <= run.interval).count();
        let late = run.converged.iter().filter(|d| **d > run.interval * 2).count();
        println!();
        println!(
            "fleet: {} processes polling a {FLEET_LIBRARY}-skill indexed library every {} ms; one skill changed",
            run.processes,
            run.interval.as_millis()
        );
        println!(
            "  converged: {within}/{} within one interval of the publish (slowest {} ms: the next poll, then the reload)",
            run.processes,
            slowest.as_millis()
        );
        println!(
            "  requests: {} in all = {} conditional GETs of the index + {} GETs of the changed SKILL.md (1 per process) + {} other; {} LIST",
            run.requests,
            run.polls,
            run.skill_gets,
            run.requests - run.polls - run.skill_gets,
            run.lists
        );
        let model_ok = run.skill_gets == run.processes && run.lists == 0 && run.requests == run.polls + run.skill_gets;
        println!("  matches the model (one GET per poll, one GET per changed file per process, no LIST): {model_ok}");
        if !model_ok || late > 0 {
            return Err("the fleet did not behave as the model says".to_owned());
        }
        Ok(())
    })
}

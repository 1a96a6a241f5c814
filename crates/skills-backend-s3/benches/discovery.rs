//! Discovery from an S3-compatible server (moto on 127.0.0.1) for libraries of 100 and
//! 1,000 skills (a SKILL.md of ~4 KiB and three resources each):
//!
//! - cold discovery (a new backend and catalog: listing, every SKILL.md, resources);
//! - reload with nothing changed, and reload after one edit;
//! - the HTTP requests each of them sends (LIST pages, GETs, HEADs);
//! - a floor: `object_store` alone listing the prefix and fetching every SKILL.md with
//!   the same concurrency (32), no parsing, no catalog: what the server allows.
//!
//! `cargo xtask bench s3` (installs the server) or `cargo bench -p skills-backend-s3
//! --bench discovery`. Wall-clock figures include moto, a Python server: they show what
//! the backend costs against a local server, not against AWS.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{CountingConnector, Requests};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use skills_backend_s3::test_server::sample_library as library;
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_catalog::{SkillCatalog, SkillSource};

const RUNS: usize = 7;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn counts(requests: &Requests) -> String {
    format!(
        "{} LIST, {} GET, {} HEAD",
        requests.lists(),
        requests.gets(),
        requests.heads()
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = S3TestServer::start();
    server.create_bucket("bench");
    let uploader = server.store("bench");
    println!(
        "S3 discovery against moto at {} ({RUNS} runs, median)",
        server.endpoint()
    );
    println!(
        "| skills | objects | floor (LIST + GET all) | cold discovery | requests | unchanged reload | requests | one edit | requests |"
    );
    println!("|---:|---:|---:|---:|---|---:|---|---:|---|");
    for count in [100usize, 1000] {
        let prefix = format!("lib-{count}");
        let files = library(count, &"Step by step instructions. ".repeat(150));
        upload(&*uploader, &prefix, files.iter().map(|(p, c)| (p.as_str(), c.clone()))).await;

        let floor = {
            let mut runs = Vec::new();
            for _ in 0..RUNS {
                let started = Instant::now();
                assert_eq!(read_all_skill_md(&*uploader, &prefix).await, count);
                runs.push(started.elapsed());
            }
            median(runs)
        };
        let mut cold = Vec::new();
        let mut unchanged = Vec::new();
        let mut edited = Vec::new();
        let (mut cold_counts, mut unchanged_counts, mut edit_counts) = (String::new(), String::new(), String::new());
        for run in 0..RUNS {
            let connector = CountingConnector::default();
            let requests = Arc::clone(&connector.requests);
            let backend = server
                .backend_builder("bench", &prefix)
                .http_connector(connector)
                .build()
                .unwrap();
            let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]);

            let started = Instant::now();
            let snapshot = catalog.ensure_loaded().await;
            cold.push(started.elapsed());
            assert_eq!(snapshot.skills().len(), count);
            cold_counts = counts(&requests);

            requests.clear();
            let started = Instant::now();
            assert!(catalog.reload().await.is_none());
            unchanged.push(started.elapsed());
            unchanged_counts = counts(&requests);

            let md = format!("---\nname: skill-0007\ndescription: Edited in run {run}\n---\n");
            uploader
                .put(&Path::from(format!("{prefix}/skill-0007/SKILL.md")), md.into())
                .await
                .unwrap();
            requests.clear();
            let started = Instant::now();
            assert!(catalog.reload().await.is_some());
            edited.push(started.elapsed());
            edit_counts = counts(&requests);
        }
        println!(
            "| {count} | {} | {} | {} | {cold_counts} | {} | {unchanged_counts} | {} | {edit_counts} |",
            files.len(),
            ms(floor),
            ms(median(cold)),
            ms(median(unchanged)),
            ms(median(edited)),
        );
    }
}

/// The floor: one listing, then every SKILL.md fetched 32 at a time; returns how many.
async fn read_all_skill_md(store: &dyn ObjectStore, prefix: &str) -> usize {
    let listed: Vec<_> = store.list(Some(&Path::from(prefix))).try_collect().await.unwrap();
    let keys: Vec<Path> = listed
        .into_iter()
        .map(|meta| meta.location)
        .filter(|key| key.as_ref().ends_with("/SKILL.md"))
        .collect();
    futures::stream::iter(
        keys.iter()
            .map(|key| async move { store.get(key).await.unwrap().bytes().await.unwrap() }),
    )
    .buffer_unordered(32)
    .count()
    .await
}

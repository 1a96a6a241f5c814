//! A published index against a real S3-compatible server: what a poll and a reload cost
//! with it (counted HTTP requests), and the fallbacks to listing when it is missing,
//! invalid or stale.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::counted_backend;
use object_store::ObjectStoreExt;
use object_store::path::Path;
use skills_backend_s3::test_server::S3TestServer;
use skills_backend_s3::test_server::sample_library as library;
use skills_backend_s3::{ObjectStoreBackend, publish_index};
use skills_catalog::{SkillCatalog, SkillSource};
use skills_core::DiagnosticKind;

const SKILLS: usize = 200;
const POLL: Duration = Duration::from_millis(200);

async fn publish(server: &S3TestServer) {
    let backend = server.backend("team", "library");
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend.clone()), "/")]);
    let (index, problems) = catalog.library_index(0).await;
    assert!(problems.is_empty(), "{problems:?}");
    publish_index(&backend, &index).await.unwrap();
}

fn indexed_catalog(server: &S3TestServer) -> (SkillCatalog, Arc<common::Requests>) {
    let (backend, requests) = counted_backend(server, "team", "library");
    let backend: ObjectStoreBackend = backend.with_index(true).with_poll_interval(POLL);
    (
        SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]),
        requests,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_library_costs_one_conditional_get_and_no_listing() {
    let server = S3TestServer::start();
    server.bucket_with("team", "library", &library(SKILLS, "Body.")).await;
    publish(&server).await;

    let (catalog, requests) = indexed_catalog(&server);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills().len(), SKILLS);
    assert!(
        snapshot.resources().values().all(|r| r.len() == 3),
        "resources come from the index too"
    );
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
    assert_eq!(requests.lists(), 0, "no LIST at all");
    assert_eq!(requests.gets(), 1 + SKILLS, "the index, then each SKILL.md");

    requests.clear();
    assert!(catalog.reload().await.is_none());
    assert_eq!((requests.total(), requests.lists()), (1, 0), "one GET answered 304");

    // One skill changes and the index is published again: the index, that SKILL.md.
    let edited = "---\nname: skill-0042\ndescription: Edited\n---\nNew body.\n";
    server
        .store("team")
        .put(&Path::from("library/skill-0042/SKILL.md"), edited.into())
        .await
        .unwrap();
    publish(&server).await;
    requests.clear();
    let event = catalog.reload().await.expect("a change");
    assert_eq!(event.changes.len(), 1, "{:?}", event.changes);
    assert_eq!(requests.lists(), 0);
    assert_eq!(requests.gets(), 2, "the index and the one changed SKILL.md");
    assert_eq!(requests.object_requests_to("/library/skill-0042/SKILL.md"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_or_invalid_index_falls_back_to_listing_with_a_warning() {
    let server = S3TestServer::start();
    let store = server.bucket_with("team", "library", &library(20, "Body.")).await;
    publish(&server).await;
    // A file changed after publishing: the index no longer tells the truth.
    let changed = "---\nname: skill-0003\ndescription: Changed behind the index\n---\n";
    store
        .put(&Path::from("library/skill-0003/SKILL.md"), changed.into())
        .await
        .unwrap();

    let (catalog, requests) = indexed_catalog(&server);
    catalog.ensure_loaded().await;
    requests.clear();
    catalog.reload().await;
    let snapshot = catalog.snapshot();
    assert!(requests.lists() >= 1, "listing again");
    let stale: Vec<&str> = snapshot
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::SourceStale)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(stale.len(), 1, "{:?}", snapshot.diagnostics());
    assert!(
        stale[0].contains("/skill-0003/SKILL.md is not the file it indexes"),
        "{}",
        stale[0]
    );
    assert_eq!(
        snapshot.get("skill-0003").unwrap().description,
        "Changed behind the index"
    );

    // An index that is not one: listings from the start, and a warning.
    store
        .put(&Path::from("library/skills-index.json"), "{\"format\": 1}".into())
        .await
        .unwrap();
    let (catalog, requests) = indexed_catalog(&server);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills().len(), 20);
    assert!(requests.lists() >= 1);
    assert!(
        snapshot
            .diagnostics()
            .iter()
            .any(|d| d.kind == DiagnosticKind::SourceStale)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_index_it_lists_as_before() {
    let server = S3TestServer::start();
    server.bucket_with("team", "library", &library(10, "Body.")).await;
    let (catalog, requests) = indexed_catalog(&server);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills().len(), 10);
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
    assert_eq!(requests.gets(), 1 + 10, "one GET found no index");
    assert!(requests.lists() >= 1);
    requests.clear();
    catalog.reload().await;
    assert_eq!(requests.gets(), 0, "a missing index is not asked for again soon");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_polls_the_index_and_reloads_with_the_changed_file_only() {
    let server = S3TestServer::start();
    server.bucket_with("team", "library", &library(50, "Body.")).await;
    publish(&server).await;
    let (catalog, requests) = indexed_catalog(&server);
    let catalog = Arc::new(catalog);
    catalog.ensure_loaded().await;
    requests.clear();
    let mut events = catalog.subscribe();
    let _watch = catalog.watch().unwrap();

    // Polls of an unchanged library: conditional GETs of the index, nothing else.
    while requests.total() < 4 {
        tokio::time::sleep(POLL / 4).await;
    }
    assert_eq!(requests.lists(), 0);
    assert_eq!(
        requests.total(),
        requests.object_requests_to("/library/skills-index.json")
    );

    let edited = "---\nname: skill-0007\ndescription: Edited\n---\n";
    server
        .store("team")
        .put(&Path::from("library/skill-0007/SKILL.md"), edited.into())
        .await
        .unwrap();
    publish(&server).await;
    let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
        .await
        .expect("the change is seen")
        .unwrap();
    assert_eq!(event.changes.len(), 1, "{:?}", event.changes);
    assert_eq!(requests.lists(), 0);
    assert_eq!(requests.object_requests_to("/library/skill-0007/SKILL.md"), 1);
    let others = requests.total()
        - requests.object_requests_to("/library/skills-index.json")
        - requests.object_requests_to("/library/skill-0007/SKILL.md");
    assert_eq!(others, 0, "only the index and the changed file");
    assert_eq!(catalog.snapshot().get("skill-0007").unwrap().description, "Edited");
}

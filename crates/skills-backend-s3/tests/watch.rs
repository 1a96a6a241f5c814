//! Hot reload from a bucket: the polling watch feeding a live catalog, on a real
//! S3-compatible server, including the server going away and coming back.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::counted_backend;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_catalog::{CatalogChange, CatalogEvent, CatalogSnapshot, SkillCatalog, SkillSource};
use skills_conformance::BeforeReads;
use skills_core::{BackendProtocol, ChangeEvent, DiagnosticKind, Watch};
use tokio::sync::{broadcast, mpsc};

const POLL: Duration = Duration::from_millis(50);
const TIMEOUT: Duration = Duration::from_secs(30);

fn skill(name: &str, description: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n").into_bytes()
}

async fn put(store: &dyn ObjectStore, key: &str, content: Vec<u8>) {
    store.put(&Path::from(key), content.into()).await.unwrap();
}

/// Waits (event-driven, bounded) until the catalog's snapshot satisfies `done`; returns
/// it with the changes announced meanwhile.
async fn wait_for(
    catalog: &SkillCatalog,
    events: &mut broadcast::Receiver<CatalogEvent>,
    what: &str,
    done: impl Fn(&CatalogSnapshot) -> bool,
) -> (Arc<CatalogSnapshot>, Vec<CatalogChange>) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let mut changes = Vec::new();
    loop {
        let snapshot = catalog.snapshot();
        if done(&snapshot) {
            return (snapshot, changes);
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => changes.extend(event.changes),
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => panic!("fell behind the catalog's events"),
            Ok(Err(error)) => panic!("catalog events closed while waiting for {what}: {error}"),
            Err(_) => panic!("timed out waiting for {what}; last snapshot: {snapshot:#?}"),
        }
    }
}

fn names(snapshot: &CatalogSnapshot) -> Vec<&str> {
    snapshot.skills().iter().map(|s| s.name.as_str()).collect()
}

fn unreadable(snapshot: &CatalogSnapshot) -> bool {
    snapshot
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::SourceUnreadable)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polls_report_changed_paths_and_download_nothing() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    upload(&*uploader, "lib", [("web/SKILL.md", skill("web", "Search"))]).await;
    let (backend, requests) = counted_backend(&server, "team", "lib");
    let backend = backend.with_poll_interval(POLL);

    // A reader discovers the library, then the bucket changes before the watch starts.
    assert_eq!(backend.walk("/", 3).await.unwrap().entries.len(), 2);
    put(&*uploader, "lib/pdf/SKILL.md", skill("pdf", "New")).await;

    let (tx, mut rx) = mpsc::unbounded_channel();
    let _guard = backend.watch("/", Arc::new(move |event| drop(tx.send(event)))).unwrap();
    // The first poll compares with what the reader saw, so that change is not lost.
    let first = tokio::time::timeout(TIMEOUT, rx.recv()).await.unwrap().unwrap();
    assert_eq!(first, ChangeEvent::Changed(vec!["/pdf/SKILL.md".to_owned()]));

    // More polls of an unchanged bucket: one listing each, never a GET, no event.
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while requests.lists() < 6 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "fewer than 5 polls in {TIMEOUT:?}"
        );
        tokio::time::sleep(POLL).await;
    }
    assert_eq!(
        requests.total(),
        requests.lists(),
        "polls sent something else than LISTs"
    );
    assert!(rx.try_recv().is_err(), "an unchanged bucket produced an event");

    put(&*uploader, "lib/web/SKILL.md", skill("web", "Edited")).await;
    uploader.delete(&Path::from("lib/pdf/SKILL.md")).await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        match tokio::time::timeout(TIMEOUT, rx.recv()).await.unwrap().unwrap() {
            ChangeEvent::Changed(paths) => seen.extend(paths),
            other => panic!("unexpected {other:?}"),
        }
    }
    seen.sort();
    assert_eq!(seen, ["/pdf/SKILL.md", "/web/SKILL.md"]);
    assert_eq!(requests.gets() + requests.heads(), 0, "polling downloaded something");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_catalog_follows_the_bucket() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    upload(&*uploader, "lib", [("web/SKILL.md", skill("web", "Search"))]).await;
    let backend = server
        .backend_builder("team", "lib")
        .build()
        .unwrap()
        .with_poll_interval(POLL);
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]));
    catalog.ensure_loaded().await;
    let mut events = catalog.subscribe();
    let watch = catalog.watch().unwrap();
    assert!(watch.unwatched().is_empty());

    put(&*uploader, "lib/pdf/SKILL.md", skill("pdf", "Read PDFs")).await;
    wait_for(&catalog, &mut events, "pdf to appear", |s| s.get("pdf").is_some()).await;

    put(&*uploader, "lib/web/SKILL.md", skill("web", "Search, edited")).await;
    wait_for(&catalog, &mut events, "the web edit", |s| {
        s.get("web").is_some_and(|w| w.description == "Search, edited")
    })
    .await;

    // A broken edit keeps the last good version.
    put(&*uploader, "lib/web/SKILL.md", b"no frontmatter".to_vec()).await;
    let (snapshot, _) = wait_for(&catalog, &mut events, "kept-last-good", |s| {
        s.diagnostics().iter().any(|d| d.kind == DiagnosticKind::KeptLastGood)
    })
    .await;
    assert_eq!(snapshot.get("web").unwrap().description, "Search, edited");

    uploader.delete(&Path::from("lib/pdf/SKILL.md")).await.unwrap();
    let (snapshot, changes) = wait_for(&catalog, &mut events, "pdf to go", |s| s.get("pdf").is_none()).await;
    assert!(
        changes.contains(&CatalogChange::Removed { name: "pdf".into() }),
        "{changes:?}"
    );
    assert_eq!(names(&snapshot), ["web"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_keeps_the_last_good_catalog_and_recovery_is_automatic() {
    let mut server = S3TestServer::start();
    server.create_bucket("team");
    let library = [
        ("alpha/SKILL.md", skill("alpha", "A")),
        ("beta/SKILL.md", skill("beta", "B")),
    ];
    upload(&*server.store("team"), "lib", library.clone()).await;
    let backend = server
        .backend_builder("team", "lib")
        .connect_timeout(Duration::from_millis(500))
        .build()
        .unwrap()
        .with_poll_interval(POLL);
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]));
    assert_eq!(names(&*catalog.ensure_loaded().await), ["alpha", "beta"]);
    let mut events = catalog.subscribe();
    let _watch = catalog.watch().unwrap();

    server.stop();
    let (snapshot, changes) = wait_for(&catalog, &mut events, "the outage to be reported", unreadable).await;
    assert_eq!(names(&snapshot), ["alpha", "beta"], "the last good catalog is served");
    assert!(
        changes.iter().all(|c| matches!(c, CatalogChange::Problem(_))),
        "an outage is a problem, not removals: {changes:?}"
    );
    // Explicit reloads during the outage fail the same way and change nothing else.
    catalog.reload().await;
    assert_eq!(names(&catalog.snapshot()), ["alpha", "beta"]);

    server.restart();
    server.create_bucket("team");
    let store = server.store("team");
    upload(&*store, "lib", library).await;
    put(
        &*store,
        "lib/delta/SKILL.md",
        skill("delta", "Added while we were away"),
    )
    .await;
    let (snapshot, _) = wait_for(&catalog, &mut events, "recovery", |s| {
        !unreadable(s) && s.get("delta").is_some()
    })
    .await;
    assert_eq!(names(&snapshot), ["alpha", "beta", "delta"]);
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_during_discovery_keeps_the_last_good_skills_and_recovers() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    upload(
        &*server.store("team"),
        "lib",
        [
            ("alpha/SKILL.md", skill("alpha", "A1")),
            ("beta/SKILL.md", skill("beta", "B1")),
        ],
    )
    .await;
    let inner = server
        .backend_builder("team", "lib")
        .connect_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let server = Arc::new(Mutex::new(server));
    // Armed, the backend kills the server when the next batch of reads starts: after a
    // discovery's listing, before its GETs.
    let armed = Arc::new(AtomicBool::new(false));
    let backend = Arc::new(BeforeReads::new(inner, {
        let (server, armed) = (server.clone(), armed.clone());
        move |_: &[String]| {
            if armed.swap(false, Ordering::SeqCst) {
                server.lock().unwrap().stop();
            }
        }
    }));
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/")]);
    assert_eq!(names(&*catalog.ensure_loaded().await), ["alpha", "beta"]);

    // Both skills are edited; the reload lists the new ETags, then the server dies.
    let store = server.lock().unwrap().store("team");
    put(&*store, "lib/alpha/SKILL.md", skill("alpha", "A2")).await;
    put(&*store, "lib/beta/SKILL.md", skill("beta", "B2")).await;
    armed.store(true, Ordering::SeqCst);
    let event = catalog.reload().await.expect("the failed reads are news");
    let snapshot = catalog.snapshot();
    assert_eq!(names(&snapshot), ["alpha", "beta"], "nothing is lost");
    assert_eq!(
        snapshot.get("alpha").unwrap().description,
        "A1",
        "the last good version"
    );
    let kept: Vec<_> = event
        .changes
        .iter()
        .filter(|c| matches!(c, CatalogChange::KeptLastGood { .. }))
        .collect();
    assert_eq!(kept.len(), 2, "{:?}", event.changes);
    let read_failed = snapshot
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::ReadFailed)
        .count();
    assert_eq!(read_failed, 2, "typed and visible: {:?}", snapshot.diagnostics());

    // A reload while the server is down keeps everything (the listing fails now).
    catalog.reload().await;
    assert_eq!(names(&catalog.snapshot()), ["alpha", "beta"]);
    assert!(unreadable(&catalog.snapshot()));

    // The server comes back with the edits: the next reload serves them, problems gone.
    let store = {
        let mut server = server.lock().unwrap();
        server.restart();
        server.create_bucket("team");
        server.store("team")
    };
    put(&*store, "lib/alpha/SKILL.md", skill("alpha", "A2")).await;
    put(&*store, "lib/beta/SKILL.md", skill("beta", "B2")).await;
    catalog.reload().await.expect("recovery is a change");
    let snapshot = catalog.snapshot();
    assert_eq!(snapshot.get("alpha").unwrap().description, "A2");
    assert_eq!(snapshot.get("beta").unwrap().description, "B2");
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
}

//! What discovery costs against a real S3-compatible server, counted twice: calls on the
//! `ObjectStore` (a counting wrapper) and HTTP requests that reach the server (LIST pages,
//! GETs, HEADs).

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::Arc;

use common::{CountingStore, counted_backend};
use object_store::ObjectStoreExt;
use object_store::path::Path;
use skills_backend_s3::ObjectStoreBackend;
use skills_backend_s3::test_server::sample_library as library;
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_catalog::{SkillCatalog, SkillSource};
use skills_core::{BackendExt, BackendProtocol, DiagnosticKind, FileErrorKind};

const SKILLS: usize = 1_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_costs_pages_and_one_get_per_changed_skill() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    let files = library(SKILLS, "Body.");
    let objects = files.len();
    upload(
        &*uploader,
        "library",
        files.iter().map(|(p, c)| (p.as_str(), c.clone())),
    )
    .await;

    let (s3, requests) = counted_backend(&server, "team", "");
    let store = Arc::new(CountingStore::new(Arc::clone(s3.store())));
    let calls = Arc::clone(&store.calls);
    let backend = ObjectStoreBackend::new(store).with_prefix("library").unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]);

    // Cold discovery of the whole source, resources included.
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills().len(), SKILLS);
    assert_eq!(snapshot.resources().len(), SKILLS);
    assert!(snapshot.resources().values().all(|r| r.len() == 3));
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
    let pages = objects.div_ceil(1000);
    // list, list_with_delimiter, get, head, other
    assert_eq!(
        calls.snapshot(),
        [1, 0, SKILLS, 0, 0],
        "store calls of a cold discovery"
    );
    assert!(
        requests.lists() <= pages,
        "{} LIST requests for {objects} objects",
        requests.lists()
    );
    assert_eq!(requests.gets(), SKILLS, "one GET per SKILL.md");
    assert_eq!(requests.total(), requests.lists() + SKILLS, "nothing else was sent");

    // Nothing changed: listings only.
    requests.clear();
    assert!(catalog.reload().await.is_none());
    assert_eq!(requests.gets(), 0, "GETs of an unchanged reload");
    assert_eq!(requests.heads(), 0);
    assert!(requests.lists() <= pages);
    assert_eq!(calls.snapshot(), [2, 0, SKILLS, 0, 0]);

    // One edit: exactly one GET, of that skill.
    let edited = "---\nname: skill-0421\ndescription: Edited in the bucket\n---\n";
    uploader
        .put(&Path::from("library/skill-0421/SKILL.md"), edited.into())
        .await
        .unwrap();
    requests.clear();
    let event = catalog.reload().await.expect("the edit is a change");
    assert_eq!(requests.gets(), 1, "GETs after one edit");
    assert_eq!(requests.object_requests_to("/library/skill-0421/SKILL.md"), 1);
    assert_eq!(event.changes.len(), 1, "{:?}", event.changes);
    let snapshot = catalog.snapshot();
    assert_eq!(snapshot.get("skill-0421").unwrap().description, "Edited in the bucket");
    assert_eq!(catalog.stats().files_read, (SKILLS + 1) as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_skill_md_is_never_fetched() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    let mut huge = b"---\nname: huge\ndescription: Eleven mebibytes\n---\n".to_vec();
    huge.resize(11 * 1024 * 1024, b'x');
    let small = b"---\nname: small\ndescription: Fine\n---\n".to_vec();
    upload(
        &*uploader,
        "library",
        [("huge/SKILL.md", huge), ("small/SKILL.md", small)],
    )
    .await;

    let (backend, requests) = counted_backend(&server, "team", "library");
    let backend: Arc<dyn BackendProtocol> = Arc::new(backend);

    // Asked for directly, before any listing: the size comes from a HEAD.
    let answer = backend.download_files(&["/huge/SKILL.md".to_owned()]).await;
    assert_eq!(answer[0].error.as_ref().map(|e| e.kind), Some(FileErrorKind::TooLarge));
    assert_eq!((requests.heads(), requests.gets()), (1, 0));

    // Through discovery: the size comes from the listing.
    requests.clear();
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::clone(&backend), "/")]);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(
        snapshot.skills().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["small"]
    );
    let kinds: Vec<_> = snapshot
        .diagnostics()
        .iter()
        .map(|d| (d.path.as_str(), d.kind))
        .collect();
    assert_eq!(kinds, [("/huge/SKILL.md", DiagnosticKind::TooLarge)]);
    assert_eq!(
        requests.object_requests_to("/huge/SKILL.md"),
        0,
        "the oversized object was requested"
    );
    assert_eq!(requests.gets(), 1, "only small/SKILL.md is fetched");

    // Asked for again after the listing (load_skill, read_file): no request at all.
    requests.clear();
    let answer = backend.download_files(&["/huge/SKILL.md".to_owned()]).await;
    assert_eq!(answer[0].error.as_ref().map(|e| e.kind), Some(FileErrorKind::TooLarge));
    assert_eq!(requests.total(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_that_grew_after_listing_is_refused_from_its_headers() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    upload(&*uploader, "", [("web/SKILL.md", b"small".to_vec())]).await;
    let (backend, requests) = counted_backend(&server, "team", "");
    let backend = backend.with_max_file_size(1024);
    assert_eq!(backend.walk("/", 3).await.unwrap().entries.len(), 2);
    uploader
        .put(&Path::from("web/SKILL.md"), vec![b'x'; 4096].into())
        .await
        .unwrap();

    requests.clear();
    let answer = backend.download_files(&["/web/SKILL.md".to_owned()]).await;
    let error = answer[0].error.as_ref().unwrap();
    assert_eq!(error.kind, FileErrorKind::TooLarge);
    assert!(error.message.contains("4096"), "{}", error.message);
    assert!(answer[0].content.is_none());
    // The listing said small: one GET, refused from its headers (no HEAD first).
    assert_eq!((requests.gets(), requests.heads()), (1, 0));
    // Now known to be large: refused without a request.
    requests.clear();
    let again = backend.download_file("/web/SKILL.md").await.unwrap_err();
    assert_eq!(again.kind, FileErrorKind::TooLarge);
    assert_eq!(requests.total(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_run_concurrently_up_to_the_limit() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let files: Vec<_> = (0..60)
        .map(|i| (format!("f{i:02}.txt"), vec![b'x'; 64 * 1024]))
        .collect();
    upload(
        &*server.store("team"),
        "",
        files.iter().map(|(p, c)| (p.as_str(), c.clone())),
    )
    .await;
    let paths: Vec<String> = files.iter().map(|(p, _)| format!("/{p}")).collect();

    for limit in [1, 4] {
        let (backend, requests) = counted_backend(&server, "team", "");
        let backend = backend.with_concurrency(limit);
        backend.walk("/", 1).await.unwrap();
        requests.clear();
        let answers = backend.download_files(&paths).await;
        assert!(
            answers
                .iter()
                .all(|a| a.content.as_ref().is_some_and(|c| c.len() == 64 * 1024))
        );
        let got: Vec<&str> = answers.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(got, paths, "answers keep the order asked");
        assert_eq!(requests.gets(), 60);
        assert!(
            requests.max_in_flight() <= limit,
            "{} in flight, limit {limit}",
            requests.max_in_flight()
        );
        if limit > 1 {
            assert!(requests.max_in_flight() > 1, "downloads ran one at a time");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_that_are_not_backend_paths_are_never_served() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let skill = |name: &str| format!("---\nname: {name}\ndescription: Skill {name}\n---\n").into_bytes();
    assert_eq!(server.put_raw("/team/lib/ok/SKILL.md", &skill("ok")), 200);
    // Keys a client library could not even write; the server takes them as they come.
    for target in [
        "/team/lib/back%5Cslash/SKILL.md",
        "/team/lib/pct%252e%252e/SKILL.md",
        "/team/lib/sep%252f/SKILL.md",
    ] {
        assert_eq!(server.put_raw(target, &skill("evil")), 200, "{target}");
    }
    let backend = server.backend("team", "lib");
    let walk = backend.walk("/", 3).await.unwrap();
    let listed: Vec<_> = walk.entries.iter().map(|e| e.path.as_str()).collect();
    for path in &listed {
        assert_eq!(skills_core::path::normalize(path).as_deref(), Ok(*path), "{listed:?}");
    }
    assert!(listed.contains(&"/ok/SKILL.md"), "{listed:?}");
    let listing = skills_core::list_skills(&backend, "/").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ok"], "{listed:?}");

    // Keys with `.`, `..`, empty segments or control characters make object_store refuse
    // the whole listing page: a typed error that names the key (the catalog then keeps
    // its last listing).
    for target in [
        "/team/lib/ctl%01/SKILL.md",
        "/team/lib/evil/../../escape/SKILL.md",
        "/team/lib/dots/%2E%2E/SKILL.md",
        "/team/lib/a//b/SKILL.md",
        "/team/lib/./dot/SKILL.md",
    ] {
        let fresh = S3TestServer::start();
        fresh.create_bucket("team");
        assert_eq!(fresh.put_raw("/team/lib/ok/SKILL.md", &skill("ok")), 200);
        assert_eq!(fresh.put_raw(target, &skill("evil")), 200, "{target}");
        let error = fresh.backend("team", "lib").walk("/", 3).await.unwrap_err();
        assert!(
            matches!(error, skills_core::BackendError::Other { .. }) && error.to_string().contains("invalid path"),
            "{target}: {error:?}"
        );
    }
}

/// A start with a persistent cache, after one that wrote it: the listing, and no GET of
/// any `SKILL.md` (for discovery or for the search index's instructions) unless it changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_start_sends_the_listing_and_no_get() {
    use skills_catalog::PersistentCache;

    let server = S3TestServer::start();
    server.create_bucket("team");
    let uploader = server.store("team");
    let files = library(200, "Body with glaciers.");
    upload(
        &*uploader,
        "library",
        files.iter().map(|(p, c)| (p.as_str(), c.clone())),
    )
    .await;
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(cache_dir.path());
    let start = || {
        let (backend, requests) = counted_backend(&server, "team", "library");
        let source = SkillSource::new(Arc::new(backend), "/").with_spec("s3://team/library");
        let catalog = SkillCatalog::new(vec![source]).with_persistent_cache(cache.clone());
        (catalog, requests)
    };

    let (cold, requests) = start();
    assert_eq!(cold.ensure_loaded().await.skills().len(), 200);
    cold.prepare_search().await;
    assert_eq!(
        requests.gets(),
        400,
        "cold: each SKILL.md for discovery, and again for search"
    );
    let answer = cold.search("glaciers skill number 7", 5).unwrap();

    let (warm, requests) = start();
    assert_eq!(warm.ensure_loaded().await.skills().len(), 200);
    warm.prepare_search().await;
    assert_eq!(requests.gets(), 0, "warm: no GET");
    assert_eq!(requests.heads(), 0);
    assert_eq!(requests.total(), requests.lists(), "the listing only");
    assert_eq!(warm.search("glaciers skill number 7", 5).unwrap(), answer);
    assert_eq!(warm.snapshot().skills(), cold.snapshot().skills());

    // One object changed: one GET for discovery, one for its instructions.
    let edited = "---\nname: skill-0007\ndescription: Edited in the bucket\n---\nNew body.\n";
    uploader
        .put(&Path::from("library/skill-0007/SKILL.md"), edited.into())
        .await
        .unwrap();
    let (after_edit, requests) = start();
    after_edit.ensure_loaded().await;
    after_edit.prepare_search().await;
    assert_eq!(requests.gets(), 2);
    assert_eq!(requests.object_requests_to("/library/skill-0007/SKILL.md"), 2);
    assert_eq!(
        after_edit.snapshot().get("skill-0007").unwrap().description,
        "Edited in the bucket"
    );
}

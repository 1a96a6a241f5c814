//! Hot reload from git: commits on the followed branch reach the middleware's live
//! catalog (local repository: notify on refs; remote: periodic fetch from `git daemon`).
//! Event-driven waits with timeouts, no sleeps.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;
use std::time::Duration;

use skills_backend_git::test_support::{GitDaemon, TestRepo};
use skills_backend_git::{GitBackend, GitRef};
use skills_catalog::{CatalogEvent, CatalogSnapshot, SkillCatalog, SkillSource};
use skills_core::DiagnosticKind;
use skills_middleware::SkillsMiddleware;
use tokio::sync::broadcast;

const TIMEOUT: Duration = Duration::from_secs(30);

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

async fn wait_for(
    catalog: &SkillCatalog,
    events: &mut broadcast::Receiver<CatalogEvent>,
    what: &str,
    done: impl Fn(&CatalogSnapshot) -> bool,
) -> Arc<CatalogSnapshot> {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let snapshot = catalog.snapshot();
        if done(&snapshot) {
            return snapshot;
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => panic!("catalog events failed while waiting for {what}: {error}"),
            Err(_) => panic!("timed out waiting for {what}; last snapshot: {snapshot:#?}"),
        }
    }
}

fn stale(snapshot: &CatalogSnapshot) -> bool {
    snapshot
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::SourceStale)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_on_the_followed_branch_reaches_the_live_catalog_and_rereads_one_skill() {
    let mut repo = TestRepo::new();
    for i in 0..20 {
        repo.write(&format!("skills/s{i:02}/SKILL.md"), skill(&format!("s{i:02}"), "first"));
    }
    repo.commit("main", "twenty skills");
    let backend = GitBackend::open(repo.path())
        .reference(GitRef::Branch("main".into()))
        .subdir("skills")
        .unwrap()
        .open()
        .unwrap();
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(Arc::new(backend), "/").with_label("Git"))
        .build()
        .unwrap();
    let catalog = Arc::clone(skills.catalog());
    catalog.ensure_loaded().await;
    let read_before = catalog.stats().files_read;
    assert_eq!(read_before, 20);
    let mut events = catalog.subscribe();
    let watch = skills.watch().unwrap();
    assert!(watch.unwatched().is_empty());

    repo.write("skills/s07/SKILL.md", skill("s07", "second"));
    repo.commit("main", "edit one skill");
    let snapshot = wait_for(&catalog, &mut events, "the edit", |s| {
        s.get("s07").is_some_and(|m| m.description == "second")
    })
    .await;
    assert_eq!(
        catalog.stats().files_read - read_before,
        1,
        "only the changed skill is re-read"
    );
    let section = skills.render_section(Some(&snapshot.to_state(Vec::new())));
    assert!(section.contains("**s07**: second"), "{section}");

    repo.write("skills/new/SKILL.md", skill("new", "added"));
    repo.remove("skills/s00");
    repo.commit("main", "add and remove");
    let snapshot2 = wait_for(&catalog, &mut events, "add + remove", |s| {
        s.get("new").is_some() && s.get("s00").is_none()
    })
    .await;
    assert!(snapshot2.version() > snapshot.version());

    // A commit on another branch changes nothing that is served.
    repo.write("skills/other/SKILL.md", skill("other", "elsewhere"));
    repo.commit("feature", "not followed");
    repo.remove("skills/other");
    repo.write("skills/last/SKILL.md", skill("last", "on main"));
    repo.commit("main", "after");
    let snapshot = wait_for(&catalog, &mut events, "the last commit", |s| s.get("last").is_some()).await;
    assert!(snapshot.get("other").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_is_fetched_and_an_unreachable_one_keeps_the_last_good_commit() {
    let mut origin = TestRepo::new();
    origin.write("skills/web/SKILL.md", skill("web", "v1"));
    origin.commit("main", "v1");
    let mut daemon = GitDaemon::start(origin.base());
    let cache = tempfile::tempdir().unwrap();
    let backend = GitBackend::remote(&daemon.url("repo.git"), cache.path())
        .reference(GitRef::Branch("main".into()))
        .subdir("skills")
        .unwrap()
        .fetch_interval(Duration::from_millis(50))
        .open()
        .unwrap();
    let first = backend.commit_id();
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(
        Arc::new(backend.clone()),
        "/",
    )]));
    catalog.ensure_loaded().await;
    let mut events = catalog.subscribe();
    let _watch = catalog.watch().unwrap();

    origin.write("skills/web/SKILL.md", skill("web", "v2"));
    origin.commit("main", "v2");
    wait_for(&catalog, &mut events, "v2 from the remote", |s| {
        s.get("web").is_some_and(|m| m.description == "v2")
    })
    .await;
    let second = backend.commit_id();
    assert_ne!(first, second);

    daemon.stop();
    let snapshot = wait_for(&catalog, &mut events, "the failed fetch", stale).await;
    assert_eq!(
        snapshot.get("web").unwrap().description,
        "v2",
        "the last good commit is served"
    );
    assert_eq!(backend.commit_id(), second);
    assert!(backend.problem().unwrap().contains("fetch failed"));

    origin.write("skills/web/SKILL.md", skill("web", "v3"));
    origin.commit("main", "v3");
    daemon.restart();
    wait_for(&catalog, &mut events, "recovery", |s| {
        !stale(s) && s.get("web").is_some_and(|m| m.description == "v3")
    })
    .await;
    assert_eq!(backend.problem(), None);
}

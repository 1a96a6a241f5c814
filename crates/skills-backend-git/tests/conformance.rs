//! The conformance suite against `GitBackend`: a local bare repository (with a
//! sub-directory and as a whole tree), a remote served by `git daemon` on 127.0.0.1 and
//! cloned into a cache, and the watch of both (refs watched locally, fetches remotely).

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use skills_backend_git::test_support::{GitDaemon, TestRepo};
use skills_backend_git::{GitBackend, GitRef};
use skills_conformance::{Fixture, backend_conformance, fixture, watch_conformance};

fn fixture_repo() -> TestRepo {
    let mut repo = TestRepo::new();
    for (path, content) in fixture() {
        repo.write(&format!("lib/{path}"), content);
    }
    repo.write("outside.txt", "not under lib/");
    repo.commit("main", "fixture");
    repo
}

/// A writer that commits each file to `main` under `lib/`.
fn committing(fixture: Fixture, repo: Arc<Mutex<TestRepo>>, quiet: Duration) -> Fixture {
    fixture.writer(quiet, move |rel, content| {
        let repo = Arc::clone(&repo);
        async move {
            let mut repo = repo.lock().unwrap();
            repo.write(&format!("lib/{rel}"), content);
            repo.commit("main", &format!("write {rel}"));
        }
    })
}

/// `main`'s `lib/` in the local repository.
fn open_local(repo: &TestRepo) -> GitBackend {
    GitBackend::open(repo.path())
        .reference(GitRef::Branch("main".into()))
        .subdir("lib")
        .unwrap()
        .open()
        .unwrap()
}

async fn local_subdir() -> Fixture {
    let repo = fixture_repo();
    Fixture::new(Arc::new(open_local(&repo)), "/").keep(repo)
}

async fn local_whole_tree() -> Fixture {
    let repo = fixture_repo();
    let backend = GitBackend::open(repo.path()).open().unwrap();
    Fixture::new(Arc::new(backend), "/lib").keep(repo)
}

async fn daemon_remote() -> Fixture {
    let repo = fixture_repo();
    let daemon = GitDaemon::start(repo.base());
    let cache = tempfile::tempdir().unwrap();
    let backend = GitBackend::remote(&daemon.url("repo.git"), cache.path())
        .subdir("lib")
        .unwrap()
        .open()
        .unwrap();
    Fixture::new(Arc::new(backend), "/").keep((daemon, cache, repo))
}

async fn local_watched() -> Fixture {
    let repo = fixture_repo();
    let backend = open_local(&repo);
    let repo = Arc::new(Mutex::new(repo));
    committing(
        Fixture::new(Arc::new(backend), "/"),
        Arc::clone(&repo),
        Duration::from_millis(500),
    )
    .keep(repo)
}

async fn remote_watched() -> Fixture {
    let repo = fixture_repo();
    let daemon = GitDaemon::start(repo.base());
    let cache = tempfile::tempdir().unwrap();
    let backend = GitBackend::remote(&daemon.url("repo.git"), cache.path())
        .subdir("lib")
        .unwrap()
        .fetch_interval(Duration::from_millis(300))
        .open()
        .unwrap();
    let repo = Arc::new(Mutex::new(repo));
    committing(
        Fixture::new(Arc::new(backend), "/"),
        Arc::clone(&repo),
        Duration::from_millis(700),
    )
    .keep((daemon, cache, repo))
}

backend_conformance!(conformance, local_subdir());
backend_conformance!(conformance_whole_tree, local_whole_tree());
backend_conformance!(conformance_daemon, daemon_remote());
watch_conformance!(watch_conformance, local_watched());
watch_conformance!(watch_conformance_daemon, remote_watched());

//! The conformance suite against `GitBackend`: a local bare repository, and a remote
//! served by `git daemon` on 127.0.0.1 and cloned into a cache.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_backend_git::test_support::{GitDaemon, TestRepo};
use skills_backend_git::{GitBackend, GitRef};
use skills_core::conformance;

fn fixture_repo() -> TestRepo {
    let mut repo = TestRepo::new();
    for (path, content) in conformance::fixture() {
        repo.write(&format!("lib/{path}"), content);
    }
    repo.write("outside.txt", "not under lib/");
    repo.commit("main", "fixture");
    repo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_repository_passes_the_conformance_suite() {
    let repo = fixture_repo();
    let backend = GitBackend::open(repo.path())
        .reference(GitRef::Branch("main".into()))
        .subdir("lib")
        .unwrap()
        .open()
        .unwrap();
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: git (local bare repository, path=lib)\n{report}");
    assert!(report.passed(), "{report}");

    let whole = GitBackend::open(repo.path()).open().unwrap();
    let report = conformance::run_all(&whole, "/lib").await;
    println!("backend: git (local, whole tree, root /lib)\n{report}");
    assert!(report.passed(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_daemon_remote_passes_the_conformance_suite() {
    let repo = fixture_repo();
    let daemon = GitDaemon::start(repo.base());
    let cache = tempfile::tempdir().unwrap();
    let backend = GitBackend::remote(&daemon.url("repo.git"), cache.path())
        .subdir("lib")
        .unwrap()
        .open()
        .unwrap();
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: git ({}, cloned, path=lib)\n{report}", daemon.url("repo.git"));
    assert!(report.passed(), "{report}");
}

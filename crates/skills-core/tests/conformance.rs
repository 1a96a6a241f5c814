//! The conformance suite against `MemoryBackend`.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_core::{MemoryBackend, conformance, path};

#[tokio::test]
async fn memory_backend_passes_the_conformance_suite() {
    let backend = MemoryBackend::new();
    for (rel, content) in conformance::fixture() {
        backend.insert(&path::join("/", rel), content).unwrap();
    }
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: memory\n{report}");
    assert!(report.passed(), "{report}");
}

#[tokio::test]
async fn memory_backend_passes_under_a_prefix() {
    let backend = MemoryBackend::new();
    for (rel, content) in conformance::fixture() {
        backend.insert(&path::join("/fixture/root", rel), content).unwrap();
    }
    let report = conformance::run_all(&backend, "/fixture/root").await;
    assert!(report.passed(), "{report}");
}

#[tokio::test]
async fn a_broken_backend_fails_the_suite() {
    // The suite must be able to fail: an empty backend breaks nearly every case.
    let report = conformance::run_all(&MemoryBackend::new(), "/").await;
    let failed: Vec<_> = report
        .results
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| *n)
        .collect();
    assert!(!report.passed());
    assert!(failed.contains(&"list_skills_parses_fixture_source"), "{report}");
    assert!(failed.contains(&"walk_returns_whole_tree_sorted"), "{report}");
}

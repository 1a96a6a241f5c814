//! The conformance suite against `MemoryBackend`: at the root and under a prefix.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;

use skills_conformance::{Fixture, backend_conformance, behaviour, fixture};
use skills_core::{MemoryBackend, path};

async fn memory_at(root: &str) -> Fixture {
    let backend = MemoryBackend::new();
    for (rel, content) in fixture() {
        backend.insert(&path::join(root, rel), content).unwrap();
    }
    Fixture::new(Arc::new(backend), root)
}

backend_conformance!(conformance, memory_at("/"));
backend_conformance!(conformance_under_a_prefix, memory_at("/fixture/root"));

/// The suite must be able to fail: an empty backend breaks the behaviours that read the
/// fixture.
#[tokio::test]
async fn an_empty_backend_fails_the_behaviours_that_read_the_fixture() {
    use futures_util::FutureExt as _;
    let empty = MemoryBackend::new();
    for (name, case) in [
        (
            "walk_returns_whole_tree_sorted",
            behaviour::walk_returns_whole_tree_sorted(&empty, "/").boxed(),
        ),
        (
            "list_skills_parses_fixture_source",
            behaviour::list_skills_parses_fixture_source(&empty, "/").boxed(),
        ),
        (
            "ls_info_lists_children_sorted",
            behaviour::ls_info_lists_children_sorted(&empty, "/").boxed(),
        ),
    ] {
        let outcome = std::panic::AssertUnwindSafe(case).catch_unwind().await;
        assert!(outcome.is_err(), "{name} passed on an empty backend");
    }
}

//! The assertions the behaviours share: each panics with what was expected and what came.

use skills_core::path::join;

/// Panics with `message` unless `condition` holds.
pub(crate) fn ensure(condition: bool, message: impl FnOnce() -> String) {
    assert!(condition, "{}", message());
}

/// Panics unless `actual == expected`, naming `what`.
pub(crate) fn ensure_eq<T: PartialEq + std::fmt::Debug>(actual: T, expected: T, what: &str) {
    assert!(actual == expected, "{what}: expected {expected:?}, got {actual:?}");
}

/// The backend paths of `rels` under `root`.
pub(crate) fn paths(root: &str, rels: &[&str]) -> Vec<String> {
    rels.iter().map(|r| join(root, r)).collect()
}

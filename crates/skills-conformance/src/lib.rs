//! The backend conformance suite of agent-skills, as ordinary tests.
//!
//! Every behaviour of the [`BackendProtocol`](skills_core::BackendProtocol) contract is
//! one async function in [`behaviour`] (and of [`Watch`](skills_core::Watch) in
//! [`watch`]) that panics, as a test does, on the first thing that breaks the contract.
//! A backend's `tests/conformance.rs` stores the canonical [`fixture()`] tree, hands a
//! [`Fixture`] to [`backend_conformance!`] (and, if it can watch, [`watch_conformance!`]),
//! and gets one `#[test]` per behaviour, in a module it names:
//!
//! ```text
//! async fn setup() -> skills_conformance::Fixture {
//!     let dir = tempfile::tempdir().unwrap();
//!     skills_conformance::write_fixture(dir.path());
//!     let backend = FilesystemBackend::new(dir.path()).unwrap();
//!     skills_conformance::Fixture::new(Arc::new(backend), "/").keep(dir)
//! }
//! skills_conformance::backend_conformance!(conformance, setup());
//! ```
//!
//! `cargo test -p skills-backend-fs conformance::walk_respects_max_depth` then runs one
//! case, and a failure names it. The in-process suite of one backend is a test binary
//! like any other; `cargo xtask conformance` runs them all and prints a table per backend.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use skills_conformance::{behaviour, fixture};
//! use skills_core::{path, MemoryBackend};
//! let backend = MemoryBackend::new();
//! for (rel, content) in fixture() {
//!     backend.insert(&path::join("/", rel), content).unwrap();
//! }
//! behaviour::walk_respects_max_depth(&backend, "/").await;   // panics if it does not
//! # });
//! ```
//!
//! The choice a newcomer would not guess: the suite is a dev crate of its own, not a
//! feature of `skills-core`, so the behaviours can use what tests use (tokio's clock,
//! panics) without any of it reaching the library.

#![warn(missing_docs)]
#![allow(clippy::unwrap_used, clippy::missing_panics_doc)] // Panicking is how a behaviour fails.

mod before_reads;
pub mod behaviour;
mod check;
mod child_files;
mod fixture;
mod skill_file;
pub mod watch;

pub use before_reads::BeforeReads;
pub use fixture::{Fixture, Writer, fixture};

/// Writes the [`fixture()`] tree under a directory on disk (for the disk backend's
/// setups and tests that build other storage from a directory).
///
/// # Panics
///
/// When the directory cannot be written.
pub fn write_fixture(dir: &std::path::Path) {
    for (rel, content) in fixture() {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        std::fs::write(&path, content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Stamps one `#[tokio::test]` per behaviour of the storage contract into a module
/// `$module`; `$setup` is an expression of a future giving a [`Fixture`], evaluated in
/// every test (each gets fresh storage). The module sees the caller's items
/// (`use super::*`). The calling crate needs `tokio` with the `macros` and
/// `rt-multi-thread` features.
#[macro_export]
macro_rules! backend_conformance {
    ($module:ident, $setup:expr) => {
        $crate::__stamp!(behaviour, $module, $setup;
            ls_info_lists_children_sorted,
            ls_info_reports_files_dirs_and_sizes,
            ls_info_ignores_trailing_and_double_slashes,
            ls_info_missing_path_is_not_found,
            ls_info_file_path_is_not_a_directory,
            download_files_keeps_order_with_partial_success,
            download_files_empty_request_is_empty,
            download_files_directory_is_is_directory,
            download_files_too_large_is_refused,
            read_skill_files_answers_as_download_then_parse,
            invalid_paths_are_refused,
            lookalike_and_outside_paths_are_not_found,
            files_have_stable_distinct_etags,
            walk_returns_whole_tree_sorted,
            walk_respects_max_depth,
            walk_missing_root_is_not_found,
            walk_each_answers_as_one_walk_per_path,
            child_files_is_a_filtered_two_level_walk,
            child_files_only_is_child_files_without_the_first_level,
            child_files_read_walks_as_child_files_only,
            find_files_finds_what_a_walk_finds,
            list_skills_parses_fixture_source,
            list_skills_missing_or_file_source_is_source_error,
            list_skills_reads_a_lowercase_skill_md,
        );
    };
}

/// Stamps the behaviours a skills server can meet (the `skills-backend-mcp` backend):
/// those about the fixture's skill folders, not about files outside every skill folder,
/// which such a server does not publish.
#[macro_export]
macro_rules! skill_server_conformance {
    ($module:ident, $setup:expr) => {
        $crate::__stamp!(behaviour, $module, $setup;
            ls_info_reports_files_dirs_and_sizes,
            ls_info_ignores_trailing_and_double_slashes,
            ls_info_missing_path_is_not_found,
            ls_info_file_path_is_not_a_directory,
            download_files_keeps_order_with_partial_success,
            download_files_empty_request_is_empty,
            download_files_directory_is_is_directory,
            download_files_too_large_is_refused,
            read_skill_files_answers_as_download_then_parse,
            invalid_paths_are_refused,
            lookalike_and_outside_paths_are_not_found,
            files_have_stable_distinct_etags,
        );
    };
}

/// Stamps one `#[tokio::test]` per behaviour of [`Watch`](skills_core::Watch) into a
/// module `$module`; `$setup` gives a [`Fixture`] with a
/// [writer](Fixture::writer).
#[macro_export]
macro_rules! watch_conformance {
    ($module:ident, $setup:expr) => {
        $crate::__stamp!(watch, $module, $setup;
            watch_reports_a_change,
            watch_coalesces_a_burst,
            watch_ignores_paths_outside_the_watched_path,
            dropping_the_guard_stops_the_watch,
        );
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __stamp {
    ($group:ident, $module:ident, $setup:expr; $($name:ident),* $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let fixture: $crate::Fixture = $setup.await;
                    $crate::__run!($group, $name, fixture);
                }
            )*
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __run {
    (behaviour, $name:ident, $fixture:ident) => {
        $crate::behaviour::$name(&*$fixture.backend, &$fixture.root).await
    };
    (watch, $name:ident, $fixture:ident) => {
        $crate::watch::$name(&$fixture).await
    };
}

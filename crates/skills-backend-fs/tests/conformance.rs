//! The conformance suite against `FilesystemBackend` on a temp directory: virtual paths,
//! host paths, and the watch (notify, debounced).

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use skills_backend_fs::FilesystemBackend;
use skills_conformance::{Fixture, backend_conformance, watch_conformance, write_fixture};

/// The fixture on disk, served in virtual mode (`/` is the temp directory).
async fn virtual_mode() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    Fixture::new(Arc::new(backend), "/").keep(dir)
}

/// The fixture on disk, served with host paths (the root is the temp directory's path).
async fn host_paths() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let backend = FilesystemBackend::new(dir.path())
        .unwrap()
        .with_virtual_mode(false)
        .unwrap();
    let root = backend.root_path().to_owned();
    assert_ne!(root, "/");
    Fixture::new(Arc::new(backend), root).keep(dir)
}

/// Virtual mode with a short debounce, and a writer that writes files on disk.
async fn watched() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let debounce = Duration::from_millis(50);
    let backend = FilesystemBackend::new(dir.path()).unwrap().with_debounce(debounce);
    let base: PathBuf = dir.path().to_path_buf();
    Fixture::new(Arc::new(backend), "/")
        .writer(Duration::from_millis(300), move |rel, content| {
            let path = base.join(rel);
            async move {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, content).unwrap();
            }
        })
        .keep(dir)
}

backend_conformance!(conformance, virtual_mode());
backend_conformance!(conformance_host_paths, host_paths());
watch_conformance!(watch_conformance, watched());

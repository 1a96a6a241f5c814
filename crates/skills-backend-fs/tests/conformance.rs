//! The conformance suite against `FilesystemBackend` on a temp directory.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::path::Path;

use skills_backend_fs::FilesystemBackend;
use skills_core::conformance;

fn write_fixture(root: &Path) {
    for (rel, content) in conformance::fixture() {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_backend_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: fs (virtual mode)\n{report}");
    assert!(report.passed(), "{report}");
}

#[tokio::test]
async fn filesystem_backend_with_host_paths_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let backend = FilesystemBackend::new(dir.path())
        .unwrap()
        .with_virtual_mode(false)
        .unwrap();
    let root = backend.root_path().to_owned();
    assert_ne!(root, "/");
    let report = conformance::run_all(&backend, &root).await;
    println!("backend: fs (host paths)\n{report}");
    assert!(report.passed(), "{report}");
}

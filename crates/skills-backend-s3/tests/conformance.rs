//! The conformance suite against `ObjectStoreBackend` on a real S3-compatible server
//! (moto on 127.0.0.1), and on `object_store`'s in-memory store.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;

use object_store::memory::InMemory;
use skills_backend_s3::ObjectStoreBackend;
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_core::conformance;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_backend_passes_the_conformance_suite() {
    let server = S3TestServer::start();
    server.create_bucket("conformance");
    let store = server.store("conformance");
    // The fixture under a prefix, next to look-alike keys the backend must not see.
    upload(&*store, "team/library", conformance::fixture()).await;
    upload(
        &*store,
        "team/library-old",
        [("skills/alpha/SKILL.md", b"decoy".to_vec())],
    )
    .await;
    upload(&*store, "", [("team/librarything", b"decoy".to_vec())]).await;

    let backend = server.backend("conformance", "team/library");
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: s3 ({}, moto)\n{report}", server.endpoint());
    assert!(report.passed(), "{report}");

    // The same objects seen from the bucket's root, with the fixture below `/team/library`.
    let whole_bucket = server.backend("conformance", "");
    let report = conformance::run_all(&whole_bucket, "/team/library").await;
    println!("backend: s3 (whole bucket, root /team/library)\n{report}");
    assert!(report.passed(), "{report}");
}

#[tokio::test]
async fn object_store_in_memory_passes_the_conformance_suite() {
    let store = Arc::new(InMemory::new());
    upload(&*store, "lib", conformance::fixture()).await;
    let backend = ObjectStoreBackend::new(store).with_prefix("lib").unwrap();
    let report = conformance::run_all(&backend, "/").await;
    println!("backend: object_store InMemory\n{report}");
    assert!(report.passed(), "{report}");
}

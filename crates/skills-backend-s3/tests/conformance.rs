//! The conformance suite against `ObjectStoreBackend` on a real S3-compatible server
//! (moto on 127.0.0.1) under a prefix and from the bucket's root, on `object_store`'s
//! in-memory store, and the polling watch.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use object_store::memory::InMemory;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use skills_backend_s3::ObjectStoreBackend;
use skills_backend_s3::test_server::{S3TestServer, upload};
use skills_conformance::{Fixture, backend_conformance, fixture, watch_conformance};

/// One moto server for the tests of this binary that run at the same time: each holds an
/// `Arc`, the last one to finish stops it (a later test starts another).
fn server() -> Arc<S3TestServer> {
    static SHARED: Mutex<Weak<S3TestServer>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(server) = shared.upgrade() {
        return server;
    }
    let server = Arc::new(S3TestServer::start());
    *shared = Arc::downgrade(&server);
    server
}

/// A bucket of its own for each test, holding the fixture under `team/library` next to
/// look-alike keys the backend must not see.
async fn bucket(server: &S3TestServer) -> (String, Arc<dyn ObjectStore>) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let name = format!("conformance-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    server.create_bucket(&name);
    let store = server.store(&name);
    upload(&*store, "team/library", fixture()).await;
    upload(
        &*store,
        "team/library-old",
        [("skills/alpha/SKILL.md", b"decoy".to_vec())],
    )
    .await;
    upload(&*store, "", [("team/librarything", b"decoy".to_vec())]).await;
    (name, store)
}

async fn under_a_prefix() -> Fixture {
    let server = server();
    let (name, _) = bucket(&server).await;
    let backend = server.backend(&name, "team/library");
    Fixture::new(Arc::new(backend), "/").keep(server)
}

async fn whole_bucket() -> Fixture {
    let server = server();
    let (name, _) = bucket(&server).await;
    let backend = server.backend(&name, "");
    Fixture::new(Arc::new(backend), "/team/library").keep(server)
}

async fn in_memory() -> Fixture {
    let store = Arc::new(InMemory::new());
    upload(&*store, "lib", fixture()).await;
    let backend = ObjectStoreBackend::new(store).with_prefix("lib").unwrap();
    Fixture::new(Arc::new(backend), "/")
}

async fn polled() -> Fixture {
    let server = server();
    let (name, store) = bucket(&server).await;
    let poll = Duration::from_millis(200);
    let backend = server.backend(&name, "team/library").with_poll_interval(poll);
    Fixture::new(Arc::new(backend), "/")
        .writer(Duration::from_millis(600), move |rel, content| {
            let store = Arc::clone(&store);
            async move {
                let key = object_store::path::Path::from(format!("team/library/{rel}"));
                store.put(&key, PutPayload::from(content)).await.unwrap();
            }
        })
        .keep(server)
}

backend_conformance!(conformance, under_a_prefix());
backend_conformance!(conformance_whole_bucket, whole_bucket());
backend_conformance!(conformance_in_memory, in_memory());
watch_conformance!(watch_conformance, polled());

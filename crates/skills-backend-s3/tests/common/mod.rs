//! Request counters for the S3 tests: an `ObjectStore` wrapper that counts the calls the
//! backend makes, and an HTTP connector that counts the requests that reach the server
//! (one listing call can be several LIST pages).

#![allow(dead_code, clippy::unwrap_used)] // Each test binary uses part of it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore, PutMultipartOptions,
    PutOptions, PutPayload, PutResult, Result,
};

/// Calls made on an `ObjectStore`.
#[derive(Debug, Default)]
pub struct StoreCalls {
    pub list: AtomicUsize,
    pub list_with_delimiter: AtomicUsize,
    pub get: AtomicUsize,
    pub head: AtomicUsize,
    pub other: AtomicUsize,
}

impl StoreCalls {
    pub fn snapshot(&self) -> [usize; 5] {
        [
            &self.list,
            &self.list_with_delimiter,
            &self.get,
            &self.head,
            &self.other,
        ]
        .map(|c| c.load(Ordering::SeqCst))
    }
}

/// Counts every call, then forwards it.
#[derive(Debug)]
pub struct CountingStore {
    inner: Arc<dyn ObjectStore>,
    pub calls: Arc<StoreCalls>,
}

impl CountingStore {
    pub fn new(inner: Arc<dyn ObjectStore>) -> Self {
        Self {
            inner,
            calls: Arc::default(),
        }
    }

    fn count(&self, counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

impl fmt::Display for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for CountingStore {
    async fn put_opts(&self, location: &Path, payload: PutPayload, opts: PutOptions) -> Result<PutResult> {
        self.count(&self.calls.other);
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(&self, location: &Path, opts: PutMultipartOptions) -> Result<Box<dyn MultipartUpload>> {
        self.count(&self.calls.other);
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.count(if options.head {
            &self.calls.head
        } else {
            &self.calls.get
        });
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(&self, locations: BoxStream<'static, Result<Path>>) -> BoxStream<'static, Result<Path>> {
        self.count(&self.calls.other);
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.count(&self.calls.list);
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.count(&self.calls.list_with_delimiter);
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.count(&self.calls.other);
        self.inner.copy_opts(from, to, options).await
    }
}

pub use skills_backend_s3::counting::{CountingConnector, Requests};

/// A backend on `bucket`/`prefix` of the test server whose HTTP requests are recorded.
pub fn counted_backend(
    server: &skills_backend_s3::test_server::S3TestServer,
    bucket: &str,
    prefix: &str,
) -> (skills_backend_s3::ObjectStoreBackend, Arc<Requests>) {
    let connector = CountingConnector::default();
    let requests = Arc::clone(&connector.requests);
    let backend = server
        .backend_builder(bucket, prefix)
        .http_connector(connector)
        .build()
        .unwrap();
    (backend, requests)
}

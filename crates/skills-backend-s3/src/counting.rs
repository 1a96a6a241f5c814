//! Counting the HTTP requests that reach an S3 server: a connector for
//! [`S3BackendBuilder::http_connector`](crate::S3BackendBuilder) that records each
//! request (and can answer the next ones with `503` instead), for tests and benchmarks
//! (feature `test-server`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use object_store::client::{
    ClientOptions, HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};

/// HTTP requests that reached the server.
#[derive(Debug, Default)]
pub struct Requests {
    /// `(method, path, is a listing)` in the order sent.
    log: Mutex<Vec<(String, String, bool)>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Requests {
    /// Forgets every request recorded.
    pub fn clear(&self) {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        self.max_in_flight.store(0, Ordering::SeqCst);
    }

    /// The most requests that were waiting for an answer at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// LIST requests (pages).
    pub fn lists(&self) -> usize {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(_, _, list)| *list)
            .count()
    }

    /// Object GETs.
    pub fn gets(&self) -> usize {
        self.count("GET")
    }

    /// Object HEADs.
    pub fn heads(&self) -> usize {
        self.count("HEAD")
    }

    /// Object GETs and HEADs of URL paths ending with `suffix`.
    pub fn object_requests_to(&self, suffix: &str) -> usize {
        let log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.iter()
            .filter(|(_, path, list)| !list && path.ends_with(suffix))
            .count()
    }

    /// Every request.
    pub fn total(&self) -> usize {
        self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    fn count(&self, method: &str) -> usize {
        let log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.iter().filter(|(m, _, list)| m == method && !list).count()
    }
}

/// The default reqwest connector, recording each request; it can also answer the next
/// requests with `503 Service Unavailable` instead of sending them.
#[derive(Debug, Default)]
pub struct CountingConnector {
    /// The requests recorded.
    pub requests: Arc<Requests>,
    /// How many of the next requests get a 503.
    pub fail_next: Arc<AtomicUsize>,
}

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(CountingService {
            inner,
            requests: Arc::clone(&self.requests),
            fail_next: Arc::clone(&self.fail_next),
        }))
    }
}

#[derive(Debug)]
struct CountingService {
    inner: HttpClient,
    requests: Arc<Requests>,
    fail_next: Arc<AtomicUsize>,
}

#[async_trait]
impl HttpService for CountingService {
    async fn call(&self, request: HttpRequest) -> std::result::Result<HttpResponse, HttpError> {
        let uri = request.uri();
        let list = uri
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("list-type=")));
        self.requests
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((request.method().to_string(), uri.path().to_owned(), list));
        let fail = self
            .fail_next
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if fail {
            let mut response = HttpResponse::new(String::from("<Error><Code>SlowDown</Code></Error>").into());
            *response.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
            return Ok(response);
        }
        let now = self.requests.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.requests.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let response = self.inner.execute(request).await;
        self.requests.in_flight.fetch_sub(1, Ordering::SeqCst);
        response
    }
}

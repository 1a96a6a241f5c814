//! Errors of the S3 backend: typed, and free of credentials.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::CountingConnector;
use object_store::{BackoffConfig, RetryConfig};

use skills_backend_s3::S3BackendBuilder;
use skills_backend_s3::test_server::S3TestServer;
use skills_core::{BackendError, BackendProtocol, FileErrorKind, Watch};

const KEY_ID: &str = "AKIDSECRETKEYID";
const SECRET: &str = "s3cr3t-access-key-value";

fn with_secret_credentials(builder: S3BackendBuilder) -> S3BackendBuilder {
    builder.credentials(KEY_ID, SECRET)
}

fn assert_no_credentials(text: &str) {
    assert!(
        !text.contains(SECRET) && !text.contains(KEY_ID),
        "credentials leaked: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_of_a_dead_server_are_typed_and_free_of_credentials() {
    let mut server = S3TestServer::start();
    let backend = with_secret_credentials(server.backend_builder("team", "lib"))
        .connect_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    server.stop();

    let error = backend.ls_info("/").await.unwrap_err();
    assert!(matches!(error, BackendError::Other { .. }), "{error:?}");
    assert!(error.to_string().contains("s3://team/lib"), "{error}");
    // Why, from the HTTP client's causes, which the store's message leaves out.
    assert!(
        error.to_string().to_lowercase().contains("connection refused"),
        "{error}"
    );
    assert_no_credentials(&format!("{error} {error:?} {backend:?}"));

    let error = backend.walk("/", 3).await.unwrap_err();
    assert_no_credentials(&format!("{error} {error:?}"));

    let answer = backend.download_files(&["/web/SKILL.md".to_owned()]).await;
    let error = answer[0].error.as_ref().unwrap();
    assert_eq!(error.kind, FileErrorKind::Other);
    assert_no_credentials(&format!("{error:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_bucket_is_an_error_and_an_empty_prefix_an_empty_library() {
    let server = S3TestServer::start();
    let missing = server.backend("no-such-bucket", "");
    let error = missing.ls_info("/").await.unwrap_err();
    assert!(error.to_string().contains("no-such-bucket"), "{error}");

    server.create_bucket("team");
    let backend = server.backend("team", "nothing/here");
    assert_eq!(backend.ls_info("/").await.unwrap(), []);
    assert!(backend.walk("/", 3).await.unwrap().entries.is_empty());
    assert!(matches!(
        backend.ls_info("/web").await,
        Err(BackendError::NotFound { .. })
    ));
}

#[test]
fn watching_needs_a_runtime() {
    let backend = S3BackendBuilder::new("s3://team/lib")
        .unwrap()
        .endpoint("http://127.0.0.1:1")
        .build()
        .unwrap();
    let error = backend.watch("/", Arc::new(|_| {})).unwrap_err();
    assert!(error.to_string().contains("Tokio runtime"), "{error}");
    let error = backend.watch("/../x", Arc::new(|_| {})).unwrap_err();
    assert!(matches!(error, BackendError::InvalidPath { .. }), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_server_errors_are_retried_with_backoff_then_reported() {
    let server = S3TestServer::start();
    server.create_bucket("team");
    let connector = CountingConnector::default();
    let (requests, fail_next) = (Arc::clone(&connector.requests), Arc::clone(&connector.fail_next));
    let retry = RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(10),
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(50),
            base: 2.0,
        },
    };
    let backend = server
        .backend_builder("team", "lib")
        .http_connector(connector)
        .retry(retry)
        .build()
        .unwrap();

    // Two 503s, then the server answers: the listing succeeds on the third request.
    fail_next.store(2, Ordering::SeqCst);
    assert_eq!(backend.ls_info("/").await.unwrap(), []);
    assert_eq!(requests.lists(), 3);

    // More failures than retries: an error after 1 + 3 requests.
    requests.clear();
    fail_next.store(10, Ordering::SeqCst);
    let error = backend.ls_info("/").await.unwrap_err();
    assert!(matches!(error, BackendError::Other { .. }), "{error:?}");
    assert_eq!(requests.lists(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_times_out() {
    // Accepts connections and never responds.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let _hold = std::thread::spawn(move || {
        let _open: Vec<_> = listener.incoming().take(4).collect();
        std::thread::park();
    });
    let backend = S3BackendBuilder::new("s3://team/lib")
        .unwrap()
        .endpoint(endpoint)
        .credentials("key", "secret")
        .retry(RetryConfig {
            max_retries: 0,
            ..RetryConfig::default()
        })
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), backend.ls_info("/")).await;
    let error = result.expect("the request timeout did not fire").unwrap_err();
    assert!(matches!(error, BackendError::Other { .. }), "{error:?}");
}

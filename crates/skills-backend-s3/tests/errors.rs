//! Errors of the S3 backend: typed, and free of credentials.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;
use std::time::Duration;

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

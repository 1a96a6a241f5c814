//! A real S3-compatible server for tests: the `moto` server, started on 127.0.0.1 and
//! stopped when dropped (feature `test-server`).
//!
//! The server program is found through `SKILLS_TEST_MOTO_SERVER` (the path of
//! `moto_server`), else in the virtual environment `cargo xtask` installs under
//! `target/test-venv`. `cargo xtask test` and `cargo xtask conformance --backend s3`
//! install it on a fresh machine (`cargo xtask test-tools` does only that).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3Builder;
use object_store::{ObjectStore, ObjectStoreExt, RetryConfig, path::Path};

use crate::{ObjectStoreBackend, S3BackendBuilder};

/// The variable naming the `moto_server` program.
pub const MOTO_SERVER_ENV: &str = "SKILLS_TEST_MOTO_SERVER";

/// How long a start may take before it is an error.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A `moto` S3 server on a loopback port, owned by one test. Dropping it stops it.
#[derive(Debug)]
pub struct S3TestServer {
    program: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl S3TestServer {
    /// Starts a server on a free loopback port and waits until it answers.
    ///
    /// # Panics
    /// When `moto_server` cannot be found or does not start: a test cannot run without it.
    pub fn start() -> Self {
        let program = program();
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut server = Self {
                program: program.clone(),
                port,
                child: None,
            };
            match server.spawn() {
                Ok(()) => return server,
                Err(error) => last_error = error,
            }
        }
        panic!("cannot start {}: {last_error}", program.display());
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the server (its data goes with it), as a crash would.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, empty.
    ///
    /// # Panics
    /// When it does not come back.
    pub fn restart(&mut self) {
        self.stop();
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match self.spawn() {
                Ok(()) => return,
                Err(error) if Instant::now() > deadline => panic!("cannot restart the S3 server: {error}"),
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    /// Creates a bucket.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn create_bucket(&self, bucket: &str) {
        let status = self.request("PUT", &format!("/{bucket}"));
        assert!(status == 200, "creating bucket {bucket}: HTTP {status}");
    }

    /// Creates `bucket` with `files` (`(relative path, content)`) under `prefix`, and
    /// returns the bucket's client.
    ///
    /// # Panics
    /// When the server refuses.
    pub async fn bucket_with(&self, bucket: &str, prefix: &str, files: &[(String, Vec<u8>)]) -> Arc<dyn ObjectStore> {
        self.create_bucket(bucket);
        let store = self.store(bucket);
        upload(&*store, prefix, files.iter().map(|(p, c)| (p.as_str(), c.clone()))).await;
        store
    }

    /// An `object_store` client for a bucket of this server (any credentials, no retries).
    ///
    /// # Panics
    /// When the client cannot be configured.
    pub fn store(&self, bucket: &str) -> Arc<dyn ObjectStore> {
        let store = self
            .s3_builder(AmazonS3Builder::new(), bucket)
            .build()
            .expect("an S3 client for the test server");
        Arc::new(store)
    }

    /// An [`S3BackendBuilder`] for `s3://bucket/prefix` on this server, with test
    /// credentials, and no retries so that a stopped server fails fast.
    ///
    /// # Panics
    /// When the location is invalid.
    pub fn backend_builder(&self, bucket: &str, prefix: &str) -> S3BackendBuilder {
        let location = format!("s3://{bucket}/{prefix}").parse().expect("a valid S3 location");
        S3BackendBuilder::from_location(location, self.s3_builder(AmazonS3Builder::new(), bucket))
            .retry(no_retries())
            .timeout(Duration::from_secs(10))
            .connect_timeout(Duration::from_secs(2))
    }

    /// A backend on `s3://bucket/prefix` of this server.
    ///
    /// # Panics
    /// When it cannot be built.
    pub fn backend(&self, bucket: &str, prefix: &str) -> ObjectStoreBackend {
        self.backend_builder(bucket, prefix).build().expect("an S3 backend")
    }

    fn s3_builder(&self, builder: AmazonS3Builder, bucket: &str) -> AmazonS3Builder {
        builder
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_access_key_id("test-key-id")
            .with_secret_access_key("test-secret")
            .with_retry(no_retries())
    }

    fn spawn(&mut self) -> Result<(), String> {
        let mut child = Command::new(&self.program)
            .args(["-H", "127.0.0.1", "-p", &self.port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", self.program.display()))?;
        let deadline = Instant::now() + START_TIMEOUT;
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited with {status} (port {} taken?)", self.port));
            }
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                self.child = Some(child);
                return Ok(());
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("not listening on port {} after {START_TIMEOUT:?}", self.port));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// One bodiless HTTP/1.1 request; returns the status code (0 when there was none).
    fn request(&self, method: &str, target: &str) -> u16 {
        self.send(method, target, b"")
    }

    /// Stores `body` under the object named by `target` exactly as written, not
    /// normalized by any client: `/bucket/a/../b`, `/bucket/a//b`, percent escapes the
    /// server decodes. For keys a hostile library could hold. Returns the HTTP status.
    pub fn put_raw(&self, target: &str, body: &[u8]) -> u16 {
        self.send("PUT", target, body)
    }

    fn send(&self, method: &str, target: &str, body: &[u8]) -> u16 {
        let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)) else {
            return 0;
        };
        // A loaded machine can keep moto (one Python process) busy for seconds.
        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
        let mut request = format!(
            "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        if stream.write_all(&request).is_err() {
            return 0;
        }
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for S3TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A library of `count` skills (`skill-0000`...), each with a SKILL.md (its body after
/// the frontmatter) and three resources: `(relative path, content)`.
pub fn sample_library(count: usize, body: &str) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::with_capacity(count * 4);
    for i in 0..count {
        let name = format!("skill-{i:04}");
        let skill = format!("---\nname: {name}\ndescription: Skill number {i}\n---\n# {name}\n\n{body}\n");
        files.push((format!("{name}/SKILL.md"), skill.into_bytes()));
        files.push((format!("{name}/scripts/run.sh"), b"#!/bin/sh\n".to_vec()));
        files.push((format!("{name}/references/guide.md"), b"# Guide\n".to_vec()));
        files.push((format!("{name}/assets/logo.txt"), b"logo\n".to_vec()));
    }
    files
}

/// Uploads `(relative path, content)` pairs under `prefix`, 16 at a time.
///
/// # Panics
/// When an upload fails.
pub async fn upload<'a>(store: &dyn ObjectStore, prefix: &str, files: impl IntoIterator<Item = (&'a str, Vec<u8>)>) {
    use futures::StreamExt;
    let uploads = files.into_iter().map(|(rel, content)| {
        let key = Path::from(format!("{}/{rel}", prefix.trim_matches('/')).trim_start_matches('/'));
        async move {
            if let Err(error) = store.put(&key, content.into()).await {
                panic!("uploading {key}: {error}");
            }
        }
    });
    futures::stream::iter(uploads)
        .buffer_unordered(16)
        .collect::<()>()
        .await;
}

fn no_retries() -> RetryConfig {
    RetryConfig {
        max_retries: 0,
        retry_timeout: Duration::from_secs(5),
        ..RetryConfig::default()
    }
}

fn program() -> PathBuf {
    if let Some(program) = std::env::var_os(MOTO_SERVER_ENV) {
        return PathBuf::from(program);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target")));
    let program = target.join("test-venv/bin/moto_server");
    if !program.exists() {
        panic!(
            "the S3 tests need the moto server: run them with `cargo xtask test`, or install it \
             once with `cargo xtask test-tools` (or set {MOTO_SERVER_ENV})"
        );
    }
    program
}

fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a free loopback port");
    listener.local_addr().expect("a bound address").port()
}

//! A registry served on 127.0.0.1 for tests (feature `test-server`): files by URL path,
//! an ETag on each, `304 Not Modified` for a matching `If-None-Match`, and a log of what
//! was asked for.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use skills_core::digest::sha256_text;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A tiny HTTP/1.1 server on 127.0.0.1: files by URL path, an ETag on each, `304` for a
/// matching `If-None-Match`, and a log of the paths asked for.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    /// The paths asked for, with the status answered, in order.
    pub log: Arc<Mutex<Vec<(String, u16)>>>,
    /// How long each answer waits before it is written.
    delay: Duration,
    in_flight: Arc<AtomicUsize>,
    most_in_flight: Arc<AtomicUsize>,
}

impl Registry {
    /// Serves `body` at URL path `path`.
    pub fn put(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(path.to_owned(), body.into());
    }

    /// The same registry, waiting `delay` before each answer (a slow network).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The most requests that were being answered at one time.
    pub fn most_in_flight(&self) -> usize {
        self.most_in_flight.load(Ordering::SeqCst)
    }

    /// The paths asked for since the last call, with the status answered.
    pub fn log(&self) -> Vec<(String, u16)> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Starts serving on 127.0.0.1 (a free port) until the runtime ends; the
    /// registry's URL (`http://127.0.0.1:PORT/.well-known/agent-skills/`).
    pub async fn start(&self) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        let registry = self.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let registry = registry.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut lines = BufReader::new(read).lines();
                    let Ok(Some(request)) = lines.next_line().await else {
                        return;
                    };
                    let path = request.split(' ').nth(1).unwrap_or("/").to_owned();
                    let mut if_none_match = None;
                    while let Ok(Some(line)) = lines.next_line().await {
                        if line.is_empty() {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':')
                            && name.eq_ignore_ascii_case("if-none-match")
                        {
                            if_none_match = Some(value.trim().to_owned());
                        }
                    }
                    let now = registry.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    registry.most_in_flight.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(registry.delay).await;
                    registry.in_flight.fetch_sub(1, Ordering::SeqCst);
                    let body = registry
                        .files
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .get(&path)
                        .cloned();
                    let (status, body, etag) = match body {
                        Some(body) => {
                            let etag = format!("\"{}\"", &sha256_text(&body)[7..23]);
                            if if_none_match.as_deref() == Some(etag.as_str()) {
                                (304, Vec::new(), Some(etag))
                            } else {
                                (200, body, Some(etag))
                            }
                        }
                        None => (404, b"not found".to_vec(), None),
                    };
                    registry
                        .log
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((path, status));
                    let reason = match status {
                        200 => "OK",
                        304 => "Not Modified",
                        _ => "Not Found",
                    };
                    let mut head = format!("HTTP/1.1 {status} {reason}\r\nConnection: close\r\n");
                    if let Some(etag) = etag {
                        head.push_str(&format!("ETag: {etag}\r\n"));
                    }
                    if status != 304 {
                        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
                    }
                    head.push_str("\r\n");
                    let _ = write.write_all(head.as_bytes()).await;
                    let _ = write.write_all(&body).await;
                    let _ = write.shutdown().await;
                });
            }
        });
        format!("http://{address}/.well-known/agent-skills/")
    }
}

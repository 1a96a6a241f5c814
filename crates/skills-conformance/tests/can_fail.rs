//! The suite must be able to fail: a watch that reports every write at once, wherever it
//! happens, and never stops, breaks three of the four watch behaviours.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::FutureExt as _;
use skills_conformance::{Fixture, fixture, watch};
use skills_core::{
    BackendError, BackendProtocol, ChangeEvent, ChangeSink, FileDownloadResponse, FileInfo, MemoryBackend, Watch,
    WatchGuard, path,
};

#[derive(Default)]
struct Noisy {
    files: MemoryBackend,
    sinks: Mutex<Vec<ChangeSink>>,
}

impl std::fmt::Debug for Noisy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Noisy")
    }
}

#[async_trait]
impl BackendProtocol for Noisy {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.files.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.files.download_files(paths).await
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        Some(self)
    }
}

impl Watch for Noisy {
    fn watch(&self, _path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        self.sinks.lock().unwrap().push(sink);
        Ok(WatchGuard::new(()))
    }
}

fn noisy() -> Fixture {
    let backend = Arc::new(Noisy::default());
    for (rel, content) in fixture() {
        backend.files.insert(&path::join("/", rel), content).unwrap();
    }
    let writes = Arc::clone(&backend);
    Fixture::new(backend, "/").writer(Duration::from_millis(50), move |rel, content| {
        let full = path::join("/", &rel);
        writes.files.insert(&full, content).unwrap();
        for sink in writes.sinks.lock().unwrap().iter() {
            sink(ChangeEvent::Changed(vec![full.clone()]));
        }
        async {}
    })
}

async fn fails(case: impl std::future::Future<Output = ()>) -> bool {
    std::panic::AssertUnwindSafe(case).catch_unwind().await.is_err()
}

#[tokio::test]
async fn a_noisy_watch_fails_the_behaviours_it_breaks() {
    let f = noisy();
    assert!(
        !fails(watch::watch_reports_a_change(&f)).await,
        "it does report changes"
    );
    let f = noisy();
    assert!(
        fails(watch::watch_coalesces_a_burst(&f)).await,
        "one event per write passed"
    );
    let f = noisy();
    assert!(
        fails(watch::watch_ignores_paths_outside_the_watched_path(&f)).await,
        "reports from outside passed"
    );
    let f = noisy();
    assert!(
        fails(watch::dropping_the_guard_stops_the_watch(&f)).await,
        "a watch that never stops passed"
    );
}

//! `Watch` for local disk: notify (inotify on Linux) plus our own debouncing thread.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use skills_core::{BackendError, ChangeEvent, ChangeSink, WatchGuard, path};
use tracing::debug;

/// Quiet time that ends a burst of changes, by default.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(100);
/// A burst that never goes quiet is still delivered after this long.
const MAX_BURST: Duration = Duration::from_secs(2);

/// Starts watching `dir` (resolved, inside the root), whose backend path is `dir_path`.
pub(crate) fn start(
    dir: PathBuf,
    dir_path: String,
    debounce: Duration,
    sink: ChangeSink,
) -> Result<WatchGuard, BackendError> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = RecommendedWatcher::new(tx, notify::Config::default()).map_err(|e| BackendError::Other {
        path: dir_path.clone(),
        message: format!("cannot start a file watcher: {e}"),
    })?;
    watcher
        .watch(&dir, RecursiveMode::Recursive)
        .map_err(|e| BackendError::Other {
            path: dir_path.clone(),
            message: format!("cannot watch the directory: {e}"),
        })?;
    std::thread::Builder::new()
        .name("skills-fs-watch".into())
        .spawn(move || debounce_loop(&rx, &dir, &dir_path, debounce, &sink))
        .map_err(|e| BackendError::Other {
            path: String::new(),
            message: format!("cannot start the watch thread: {e}"),
        })?;
    // Dropping the guard drops the watcher, which closes the channel and ends the thread.
    Ok(WatchGuard::new(watcher))
}

/// Collects raw events into bursts: a burst ends after `debounce` without events (or after
/// [`MAX_BURST`]) and is delivered as one event. Returns when the watcher is dropped.
fn debounce_loop(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    dir: &Path,
    dir_path: &str,
    debounce: Duration,
    sink: &ChangeSink,
) {
    let mut burst = Burst::default();
    while let Ok(first) = rx.recv() {
        burst.add(first, dir, dir_path);
        let started = Instant::now();
        loop {
            let left = MAX_BURST.saturating_sub(started.elapsed());
            match rx.recv_timeout(debounce.min(left)) {
                Ok(event) => burst.add(event, dir, dir_path),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if left.is_zero() {
                break;
            }
        }
        if let Some(event) = burst.take() {
            debug!(path = dir_path, ?event, "skills changed on disk");
            sink(event);
        }
    }
}

#[derive(Default)]
struct Burst {
    paths: BTreeSet<String>,
    rescan: Option<String>,
}

impl Burst {
    fn add(&mut self, event: notify::Result<notify::Event>, dir: &Path, dir_path: &str) {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                self.rescan = Some(format!("file watcher error: {e}"));
                return;
            }
        };
        if event.need_rescan() {
            self.rescan = Some("the file watcher lost events".into());
        }
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for host in &event.paths {
            // Only paths under the watched directory; names that are not UTF-8 cannot be
            // backend paths and are left out.
            let Ok(rel) = host.strip_prefix(dir) else { continue };
            let Some(rel) = rel.to_str() else { continue };
            let backend_path = if rel.is_empty() {
                dir_path.to_owned()
            } else {
                path::join(dir_path, rel)
            };
            self.paths.insert(backend_path);
        }
    }

    fn take(&mut self) -> Option<ChangeEvent> {
        let paths = std::mem::take(&mut self.paths);
        match self.rescan.take() {
            Some(reason) => Some(ChangeEvent::Rescan { reason }),
            None if paths.is_empty() => None,
            None => Some(ChangeEvent::Changed(paths.into_iter().collect())),
        }
    }
}

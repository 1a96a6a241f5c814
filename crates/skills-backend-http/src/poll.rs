//! [`Watch`] for a registry, by polling its index with conditional requests.

use std::collections::BTreeMap;
use std::time::Duration;

use skills_core::{BackendError, ChangeEvent, ChangeSink, Watch, WatchGuard, path};
use tokio::task::AbortHandle;

use crate::HttpRegistryBackend;

/// How often a watch asks for the index, unless
/// [`HttpRegistryBackend::with_poll_interval`] says otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(60);

/// Polls the index: one conditional GET per interval (`304` while nothing changed).
/// Skills whose entry changed (digest, type or URL), appeared or went are reported as one
/// [`ChangeEvent::Changed`] of their folders; a failed poll and the first one that
/// succeeds again are each reported once as [`ChangeEvent::Rescan`]. Needs a Tokio
/// runtime; dropping the guard stops the polling task.
impl Watch for HttpRegistryBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        let dir = path::normalize(path)?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BackendError::Other {
            path: dir.clone(),
            message: format!("watching {} needs a Tokio runtime", self.index_url()),
        })?;
        let baseline = self.known_entries();
        let task = runtime.spawn(poll(self.clone(), baseline, sink));
        Ok(WatchGuard::new(AbortOnDrop(task.abort_handle())))
    }
}

struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Each skill's entry as text, by folder.
type Entries = BTreeMap<String, String>;

async fn poll(backend: HttpRegistryBackend, mut last: Entries, sink: ChangeSink) {
    let mut failing = false;
    loop {
        tokio::time::sleep(backend.poll_interval).await;
        match backend.fresh_entries().await {
            Ok(now) => {
                if failing {
                    failing = false;
                    sink(ChangeEvent::Rescan {
                        reason: format!("{} answers again", backend.index_url()),
                    });
                } else {
                    let mut changed: Vec<String> = now
                        .iter()
                        .filter(|(dir, entry)| last.get(*dir) != Some(*entry))
                        .map(|(dir, _)| dir.clone())
                        .chain(last.keys().filter(|dir| !now.contains_key(*dir)).cloned())
                        .collect();
                    changed.sort_unstable();
                    if !changed.is_empty() {
                        sink(ChangeEvent::Changed(changed));
                    }
                }
                last = now;
            }
            Err(error) => {
                if !failing {
                    failing = true;
                    sink(ChangeEvent::Rescan {
                        reason: format!("polling failed: {error}"),
                    });
                }
            }
        }
    }
}

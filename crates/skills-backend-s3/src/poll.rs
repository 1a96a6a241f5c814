//! [`Watch`] for object stores, by polling listings.

use std::collections::BTreeMap;

use skills_core::{BackendError, ChangeEvent, ChangeSink, Watch, WatchGuard, path};
use tokio::task::AbortHandle;

use crate::backend::ObjectStoreBackend;
use crate::seen::fingerprint;

/// Polls the prefix: one paginated listing per interval, compared with the last one by
/// ETag (by size and modification time for objects without one). Nothing is downloaded.
///
/// - Added, changed and removed objects are reported as one
///   [`ChangeEvent::Changed`] per poll that saw any.
/// - A failed poll is reported once as [`ChangeEvent::Rescan`] with the error as the
///   reason (a reload then fails too and keeps its last good state), and so is the first
///   poll that succeeds again, so readers recover without anyone acting.
/// - The first poll compares with what this backend (or a clone of it) last listed or
///   downloaded under the path, so a change made between a reader's discovery and the
///   start of the watch is reported, not taken as the baseline. A prefix with no
///   objects is an empty library (object stores have no directories), not an error.
/// - Needs a Tokio runtime: `watch` returns `Other` when called outside one.
/// - Dropping the guard stops the polling task.
impl Watch for ObjectStoreBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        let dir = path::normalize(path)?;
        self.key(&dir)?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BackendError::Other {
            path: dir.clone(),
            message: format!("watching {} needs a Tokio runtime", self.name),
        })?;
        let baseline = self.remembered(&dir);
        let task = runtime.spawn(poll(self.clone(), dir, baseline, sink));
        Ok(WatchGuard::new(AbortOnDrop(task.abort_handle())))
    }
}

struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Content fingerprints by backend path.
type Fingerprints = BTreeMap<String, String>;

async fn poll(backend: ObjectStoreBackend, dir: String, mut last: Fingerprints, sink: ChangeSink) {
    let mut failing = false;
    loop {
        match backend.list_files_for(&dir, crate::indexed::Refresh::Poll).await {
            Ok(files) => {
                let now: Fingerprints = files.iter().map(|f| (f.path.clone(), fingerprint(f))).collect();
                if failing {
                    failing = false;
                    tracing::info!(store = %backend, "polling works again");
                    sink(ChangeEvent::Rescan {
                        reason: format!("{backend} is reachable again"),
                    });
                } else {
                    let changed = diff(&last, &now);
                    if !changed.is_empty() {
                        sink(ChangeEvent::Changed(changed));
                    }
                }
                last = now;
            }
            Err(error) => {
                if !failing {
                    failing = true;
                    tracing::warn!(store = %backend, %error, "polling failed; readers keep their last good state");
                    sink(ChangeEvent::Rescan {
                        reason: format!("polling failed: {error}"),
                    });
                }
            }
        }
        tokio::time::sleep(backend.poll_interval).await;
    }
}

/// Paths added, changed or removed between two listings, in path order.
fn diff(before: &Fingerprints, now: &Fingerprints) -> Vec<String> {
    let mut changed: Vec<String> = now
        .iter()
        .filter(|(path, print)| before.get(*path) != Some(*print))
        .map(|(path, _)| path.clone())
        .chain(before.keys().filter(|path| !now.contains_key(*path)).cloned())
        .collect();
    changed.sort_unstable();
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_names_added_changed_and_removed_paths() {
        let before: Fingerprints = [("/a", "1"), ("/b", "2"), ("/c", "3")]
            .into_iter()
            .map(|(p, e)| (p.to_owned(), e.to_owned()))
            .collect();
        let now: Fingerprints = [("/a", "1"), ("/b", "9"), ("/d", "4")]
            .into_iter()
            .map(|(p, e)| (p.to_owned(), e.to_owned()))
            .collect();
        assert_eq!(diff(&before, &now), ["/b", "/c", "/d"]);
        assert!(diff(&now, &now).is_empty());
    }
}

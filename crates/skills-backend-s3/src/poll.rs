//! [`Watch`] for object stores, by polling listings.

use skills_core::poll::spawn_poller;
use skills_core::{BackendError, ChangeSink, Watch, WatchGuard, path};

use crate::backend::ObjectStoreBackend;
use crate::seen::fingerprint;

/// Polls the prefix: one paginated listing per interval, compared with the last one by
/// ETag (by size and modification time for objects without one). Nothing is downloaded.
///
/// - Added, changed and removed objects are reported as one
///   [`ChangeEvent::Changed`](skills_core::ChangeEvent::Changed) per poll that saw any.
/// - A failed poll is reported once as [`ChangeEvent::Rescan`](skills_core::ChangeEvent::Rescan) with the error as the
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
        let baseline = self.remembered(&dir);
        let backend = self.clone();
        let poll = move || {
            let (backend, dir) = (backend.clone(), dir.clone());
            async move {
                let files = backend.list_files_for(&dir, crate::indexed::Refresh::Poll).await?;
                Ok(files.iter().map(|f| (f.path.clone(), fingerprint(f))).collect())
            }
        };
        spawn_poller(self.name.clone(), self.poll_interval, baseline, poll, sink)
    }
}

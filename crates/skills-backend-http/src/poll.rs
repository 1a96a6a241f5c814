//! [`Watch`] for a registry, by polling its index with conditional requests.

use std::time::Duration;

use skills_core::poll::spawn_poller;
use skills_core::{BackendError, ChangeSink, Watch, WatchGuard, path};

use crate::HttpRegistryBackend;

/// How often a watch asks for the index, unless
/// [`HttpRegistryBackend::with_poll_interval`] says otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(60);

/// Polls the index: one conditional GET per interval (`304` while nothing changed).
/// Skills whose entry changed (digest, type or URL), appeared or went are reported as one
/// [`ChangeEvent::Changed`](skills_core::ChangeEvent::Changed) of their folders; a failed poll and the first one that
/// succeeds again are each reported once as [`ChangeEvent::Rescan`](skills_core::ChangeEvent::Rescan). Needs a Tokio
/// runtime; dropping the guard stops the polling task.
impl Watch for HttpRegistryBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        path::normalize(path)?;
        let backend = self.clone();
        let poll = move || {
            let backend = backend.clone();
            async move { backend.fresh_entries().await }
        };
        spawn_poller(
            self.index_url().to_string(),
            self.poll_interval,
            self.known_entries(),
            poll,
            sink,
        )
    }
}

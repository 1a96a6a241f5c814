//! Watching by polling: for backends whose store cannot push changes (object stores,
//! HTTP registries), one fingerprint per path, compared from one poll to the next.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use tokio::task::AbortHandle;

use crate::error::BackendError;
use crate::watch::{ChangeEvent, ChangeSink, WatchGuard};

/// A content fingerprint for each path a poll sees.
pub type Fingerprints = BTreeMap<String, String>;

/// Starts polling on the current Tokio runtime: `poll` every `interval`, the first
/// time at once, compared with `last` (what the reader already saw). Paths added,
/// changed or removed are one [`ChangeEvent::Changed`] per poll that saw any; a failed
/// poll, and the first that succeeds again, are each one [`ChangeEvent::Rescan`], so
/// readers recover without anyone acting. Dropping the guard stops the task.
///
/// `what` names the polled store in messages.
pub fn spawn_poller<F, Fut>(
    what: String,
    interval: Duration,
    mut last: Fingerprints,
    mut poll: F,
    sink: ChangeSink,
) -> Result<WatchGuard, BackendError>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = Result<Fingerprints, BackendError>> + Send,
{
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| BackendError::Other {
        path: "/".to_owned(),
        message: format!("watching {what} needs a Tokio runtime"),
    })?;
    let task = runtime.spawn(async move {
        let mut failing = false;
        loop {
            match poll().await {
                Ok(now) => {
                    if failing {
                        failing = false;
                        tracing::info!(store = %what, "polling works again");
                        sink(ChangeEvent::Rescan {
                            reason: format!("{what} is reachable again"),
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
                        tracing::warn!(store = %what, %error, "polling failed; readers keep their last good state");
                        sink(ChangeEvent::Rescan {
                            reason: format!("polling failed: {error}"),
                        });
                    }
                }
            }
            tokio::time::sleep(interval).await;
        }
    });
    Ok(WatchGuard::new(AbortOnDrop(task.abort_handle())))
}

struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Paths added, changed or removed between two polls, in path order.
pub fn diff(before: &Fingerprints, now: &Fingerprints) -> Vec<String> {
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
        let before: Fingerprints = [
            ("/a".into(), "1".into()),
            ("/b".into(), "1".into()),
            ("/k".into(), "1".into()),
        ]
        .into();
        let now: Fingerprints = [
            ("/a".into(), "2".into()),
            ("/c".into(), "1".into()),
            ("/k".into(), "1".into()),
        ]
        .into();
        // Changed, removed and added; the unchanged `/k` is not named.
        assert_eq!(diff(&before, &now), ["/a", "/b", "/c"]);
        assert!(diff(&now, &now).is_empty());
    }
}

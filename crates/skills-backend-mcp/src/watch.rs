//! [`Watch`] for an MCP server: the list asked for again when the server says its
//! resources changed (`notifications/resources/list_changed`), and otherwise polled,
//! never before the `ttlMs` the server gave.

use std::collections::BTreeMap;

use skills_core::{BackendError, ChangeEvent, ChangeSink, Watch, WatchGuard, path};

use crate::McpBackend;

/// Skill folders whose files changed, appeared or went between two listings.
fn changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut folders: Vec<String> = before
        .iter()
        .filter(|(folder, print)| after.get(*folder) != Some(print))
        .map(|(folder, _)| folder.clone())
        .collect();
    folders.extend(after.keys().filter(|f| !before.contains_key(*f)).cloned());
    folders.sort();
    folders
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Watch for McpBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        path::normalize(path)?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BackendError::Other {
            path: "/".to_owned(),
            message: format!("watching {} needs a Tokio runtime", self.identity()),
        })?;
        let backend = self.clone();
        let changed_now = self.connector().changed();
        let task = runtime.spawn(async move {
            let mut last = backend.known_fingerprints();
            let mut failing = false;
            loop {
                tokio::select! {
                    () = changed_now.notified() => {}
                    () = tokio::time::sleep(backend.poll_wait()) => {}
                }
                match backend.fresh_fingerprints().await {
                    Ok(now) => {
                        if failing {
                            failing = false;
                            sink(ChangeEvent::Rescan {
                                reason: format!("{} answers again", backend.identity()),
                            });
                        } else {
                            let folders = changed(&last, &now);
                            if !folders.is_empty() {
                                sink(ChangeEvent::Changed(folders));
                            }
                        }
                        last = now;
                    }
                    Err(error) if !failing => {
                        failing = true;
                        tracing::warn!(server = %backend.identity(), %error, "listing failed; the last one is served");
                        sink(ChangeEvent::Rescan {
                            reason: format!("listing failed: {error}"),
                        });
                    }
                    Err(_) => {}
                }
            }
        });
        Ok(WatchGuard::new(AbortOnDrop(task.abort_handle())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_the_folders_whose_fingerprint_differs() {
        let before: BTreeMap<String, String> = [("/a", "1"), ("/b", "2")].map(|(k, v)| (k.into(), v.into())).into();
        let after: BTreeMap<String, String> = [("/a", "1"), ("/b", "3"), ("/c", "4")]
            .map(|(k, v)| (k.into(), v.into()))
            .into();
        assert_eq!(changed(&before, &after), ["/b", "/c"]);
        assert_eq!(changed(&after, &before), ["/b", "/c"]);
        assert!(changed(&before, &before).is_empty());
    }
}

//! Hot reload: [`SkillCatalog::watch`] turns the backends' change notifications into
//! reloads of the sources that changed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use skills_core::{ChangeEvent, WatchGuard};
use tokio::sync::mpsc;
use tracing::debug;

use crate::catalog::SkillCatalog;

impl SkillCatalog {
    /// Starts reloading on change notifications from every source whose backend can
    /// [watch](skills_core::Watch): events of one source reload that source only, and
    /// events that name paths reload the skill folders they lie in only
    /// ([`reload_paths`](Self::reload_paths)); a rescan walks the source. Runs on
    /// the current tokio runtime until the returned handle is dropped. Sources that cannot
    /// be watched are listed in [`WatchHandle::unwatched`]; reload them with
    /// [`reload`](Self::reload).
    pub fn watch(self: &Arc<Self>) -> Result<WatchHandle, WatchError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| WatchError::NoRuntime)?;
        let (tx, mut rx) = mpsc::unbounded_channel::<(usize, ChangeEvent)>();
        let mut guards = Vec::new();
        let mut unwatched = Vec::new();
        for (i, source) in self.sources().iter().enumerate() {
            let Some(watch) = source.backend().as_watch() else {
                unwatched.push((i, "the backend cannot watch".to_owned()));
                continue;
            };
            let tx = tx.clone();
            let sink = Arc::new(move |event| {
                let _ = tx.send((i, event));
            });
            match watch.watch(source.path(), sink) {
                Ok(guard) => guards.push(guard),
                Err(e) => unwatched.push((i, e.to_string())),
            }
        }
        drop(tx);
        let catalog = Arc::clone(self);
        let task = runtime.spawn(async move {
            while let Some(first) = rx.recv().await {
                // Everything already queued joins this reload: per source, the paths
                // changed, or a rescan.
                let mut changes: BTreeMap<usize, Option<BTreeSet<String>>> = BTreeMap::new();
                let mut add = |(i, event): (usize, ChangeEvent)| {
                    debug!(source = i, ?event, "skills source changed");
                    let entry = changes.entry(i).or_insert_with(|| Some(BTreeSet::new()));
                    match (event, entry.as_mut()) {
                        (ChangeEvent::Changed(paths), Some(known)) => known.extend(paths),
                        _ => *entry = None,
                    }
                };
                add(first);
                while let Ok(next) = rx.try_recv() {
                    add(next);
                }
                let rescans: Vec<usize> = changes.iter().filter(|(_, p)| p.is_none()).map(|(i, _)| *i).collect();
                if !rescans.is_empty() {
                    catalog.reload_sources(&rescans).await;
                }
                for (i, paths) in changes {
                    if let Some(paths) = paths {
                        catalog.reload_paths(i, &paths.into_iter().collect::<Vec<_>>()).await;
                    }
                }
            }
        });
        Ok(WatchHandle {
            _guards: guards,
            task,
            unwatched,
        })
    }
}

/// Why [`SkillCatalog::watch`] could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// Watching needs a tokio runtime to run its reload task on.
    #[error("watching skills needs a running tokio runtime")]
    NoRuntime,
}

/// Keeps a catalog's watch running; dropping it stops the watchers and the reload task.
#[derive(Debug)]
pub struct WatchHandle {
    _guards: Vec<WatchGuard>,
    task: tokio::task::JoinHandle<()>,
    unwatched: Vec<(usize, String)>,
}

impl WatchHandle {
    /// Sources (index, reason) that are not watched.
    pub fn unwatched(&self) -> &[(usize, String)] {
        &self.unwatched
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

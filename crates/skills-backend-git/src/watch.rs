//! [`Watch`] for git: ref changes of a local repository (notify), periodic fetches of a
//! remote.

use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use skills_core::{BackendError, ChangeEvent, ChangeSink, Watch, WatchGuard, path};
use tokio::task::AbortHandle;

use crate::repo::GitBackend;

/// Quiet time after a ref change before the refresh: a `git push` writes several files,
/// and a script committing file after file (or a rebase) moves the ref many times; each
/// move within this time of the last joins one refresh. 100 ms split such bursts on a
/// loaded machine, where commits are further apart.
const DEBOUNCE: Duration = Duration::from_millis(250);

/// Follows the ref: each refresh that moves it reports the changed files under the
/// watched path as one [`ChangeEvent::Changed`].
///
/// - Local repository: `HEAD`, `packed-refs` and `refs/` are watched with notify, so a
///   commit, a `git push` into it or a `git update-ref` is seen within ~250 ms.
/// - Remote: fetched every [fetch interval](crate::GitBackendBuilder::fetch_interval) on
///   the current Tokio runtime (outside one, `watch` is an error).
/// - A pinned commit never changes: the watch does nothing.
/// - A refresh that fails keeps the last good commit; the first failure and the first
///   success after failures are reported as [`ChangeEvent::Rescan`], so a reader reloads,
///   sees [`GitBackend::problem`] as a `source-stale` diagnostic, and later sees it gone.
impl Watch for GitBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        let dir = path::normalize(path)?;
        if self.reference().is_pinned() {
            return Ok(WatchGuard::new(()));
        }
        let follower = Follower {
            backend: self.clone(),
            dir,
            sink,
            failing: false,
        };
        if self.inner.remote.is_some() {
            watch_remote(follower)
        } else {
            watch_local(follower)
        }
    }
}

struct Follower {
    backend: GitBackend,
    dir: String,
    sink: ChangeSink,
    failing: bool,
}

impl Follower {
    /// Refreshes and reports what changed. Blocking.
    fn step(&mut self) {
        match self.backend.refresh() {
            Ok(refreshed) => {
                if std::mem::take(&mut self.failing) {
                    (self.sink)(ChangeEvent::Rescan {
                        reason: format!("{} is readable again", self.backend),
                    });
                }
                let Some(refreshed) = refreshed else { return };
                tracing::debug!(source = %self.backend, from = %refreshed.from, to = %refreshed.to, "ref moved");
                let changed: Vec<String> = refreshed
                    .changed
                    .into_iter()
                    .filter(|p| path::is_within(p, &self.dir))
                    .collect();
                if !changed.is_empty() {
                    (self.sink)(ChangeEvent::Changed(changed));
                }
            }
            Err(error) => {
                if !self.failing {
                    self.failing = true;
                    tracing::warn!(%error, "git refresh failed; serving the last good commit");
                    (self.sink)(ChangeEvent::Rescan {
                        reason: error.to_string(),
                    });
                }
            }
        }
    }
}

fn watch_local(mut follower: Follower) -> Result<WatchGuard, BackendError> {
    let git_dir = follower.backend.git_dir().to_path_buf();
    let dir = follower.dir.clone();
    let fail = |message: String| BackendError::Other {
        path: dir.clone(),
        message,
    };
    let (tx, rx) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let relevant = match &event {
            Ok(event) => !matches!(event.kind, EventKind::Access(_)),
            Err(_) => true,
        };
        if relevant {
            let _ = tx.send(());
        }
    })
    .map_err(|e| fail(format!("cannot watch {}: {e}", git_dir.display())))?;
    watcher
        .watch(&git_dir, RecursiveMode::NonRecursive)
        .and_then(|()| watcher.watch(&git_dir.join("refs"), RecursiveMode::Recursive))
        .map_err(|e| fail(format!("cannot watch {}: {e}", git_dir.display())))?;
    std::thread::Builder::new()
        .name("skills-git-watch".into())
        .spawn(move || {
            // Ends when the watcher (owned by the guard) is dropped and the channel closes.
            while rx.recv().is_ok() {
                while let Ok(()) = rx.recv_timeout(DEBOUNCE) {}
                follower.step();
            }
        })
        .map_err(|e| fail(format!("cannot start the watch thread: {e}")))?;
    Ok(WatchGuard::new(watcher))
}

fn watch_remote(follower: Follower) -> Result<WatchGuard, BackendError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| BackendError::Other {
        path: follower.dir.clone(),
        message: format!("fetching {} periodically needs a Tokio runtime", follower.backend),
    })?;
    let interval = follower.backend.inner.fetch_interval;
    let task = runtime.spawn(async move {
        let mut follower = Some(follower);
        loop {
            tokio::time::sleep(interval).await;
            let Some(mut current) = follower.take() else { return };
            match tokio::task::spawn_blocking(move || {
                current.step();
                current
            })
            .await
            {
                Ok(back) => follower = Some(back),
                Err(_) => return,
            }
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

//! The `Watch` capability: backends that can tell when files change.

use std::fmt;
use std::sync::Arc;

use crate::error::BackendError;

/// What changed under a watched path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeEvent {
    /// These backend paths (files or directories) were created, modified or removed.
    Changed(Vec<String>),
    /// Something changed but the backend cannot say what (an event queue overflowed, a
    /// poll failed and recovered): rescan everything under the watched path.
    Rescan {
        /// Why.
        reason: String,
    },
}

/// Where a watch delivers its events. It is called from the backend's own thread, so it
/// must be quick: hand the event over (to a channel) and return.
pub type ChangeSink = Arc<dyn Fn(ChangeEvent) + Send + Sync>;

/// Keeps a watch alive; dropping it stops the watch (and its thread, when it was the
/// last user).
pub struct WatchGuard {
    _inner: Box<dyn Send + Sync>,
}

impl WatchGuard {
    /// Wraps whatever keeps a backend's watch running.
    pub fn new(inner: impl Send + Sync + 'static) -> Self {
        Self {
            _inner: Box::new(inner),
        }
    }
}

impl fmt::Debug for WatchGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WatchGuard")
    }
}

/// A backend that reports changes, reached through
/// [`BackendProtocol::as_watch`](crate::BackendProtocol::as_watch).
///
/// # Contract
/// - [`watch`](Self::watch) checks `path` like every other method (`InvalidPath`,
///   `NotFound`, `NotADirectory`) and starts reporting changes under it.
/// - Events are debounced: a burst of changes (a `git pull`) is delivered as one event.
/// - Only changes under `path` are reported.
/// - Dropping the returned guard stops the watch.
pub trait Watch: Send + Sync {
    /// Starts reporting changes under the directory `path` to `sink`.
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError>;
}

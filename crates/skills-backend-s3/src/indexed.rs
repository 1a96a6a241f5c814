//! What an object-store backend knows of the library's published index.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// When a listing asks the store for the index again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// A poll: always (conditionally).
    Poll,
    /// A listing: of the root, unless a poll just fetched a new index (the reload it
    /// caused uses that one); below the root, only when no index is known. One
    /// discovery (a walk of the root, then of each skill's folder) costs one request.
    Listing,
}
/// How long a missing index is not asked for again.
pub(crate) const ABSENT_FOR: Duration = Duration::from_secs(300);
/// The largest index read.
pub(crate) const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// What the backend knows of the library's index.
#[derive(Debug, Default)]
pub(crate) struct IndexCache {
    state: Mutex<IndexState>,
}

#[derive(Debug, Default)]
pub(crate) struct IndexState {
    /// The index object's ETag, for `If-None-Match`.
    pub(crate) etag: Option<String>,
    /// Each indexed file by backend path: (digest, size).
    pub(crate) files: Option<Arc<BTreeMap<String, (String, u64)>>>,
    /// A poll fetched a new index that no listing of the root used yet.
    pub(crate) polled: bool,
    pub(crate) absent_until: Option<Instant>,
    /// Why the index is no longer used.
    pub(crate) invalid: Option<String>,
}

impl IndexCache {
    pub(crate) fn state(&self) -> MutexGuard<'_, IndexState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

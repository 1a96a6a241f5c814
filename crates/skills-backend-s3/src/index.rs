//! Serving listings from a published index (`skills-index.json` at the prefix's root):
//! one conditional GET instead of a listing of every object, and every file read
//! checked against the digest the index gives. An index that is missing, unreadable or
//! wrong about a file is left for listings, the last two with a `source-stale` warning.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use object_store::{GetOptions, ObjectStore};
use skills_core::FileInfo;
use skills_core::digest::sha256_text;
use skills_core::index::{INDEX_FILE, LibraryIndex};

use crate::backend::ObjectStoreBackend;
use crate::indexed::{ABSENT_FOR, IndexCache, IndexState, MAX_INDEX_BYTES, Refresh};

impl ObjectStoreBackend {
    /// Serves listings from the library's published index when there is one (default:
    /// no, every walk lists the prefix): one conditional GET per walk or poll (`304 Not
    /// Modified` while the library is unchanged) instead of a listing of every object,
    /// and each file read is checked against the index's digest. A missing index is
    /// looked for again every five minutes; an invalid one, or one a file contradicts,
    /// is dropped for listings with a `source-stale` warning
    /// ([`stale`](skills_core::BackendProtocol::stale)).
    pub fn with_index(mut self, use_index: bool) -> Self {
        self.index = use_index.then(Arc::default);
        self
    }

    /// The files under `normalized` as the index lists them, or `None` when there is no
    /// usable index (the caller lists the prefix).
    pub(crate) async fn indexed_files(&self, normalized: &str, refresh: Refresh) -> Option<Vec<FileInfo>> {
        let cache = self.index.as_ref()?;
        let files = self.current_index(cache, normalized == "/", refresh).await?;
        let start = if normalized == "/" {
            "/".to_owned()
        } else {
            format!("{normalized}/")
        };
        Some(
            files
                .range(start.clone()..)
                .take_while(|(path, _)| path.starts_with(&start))
                .map(|(path, (digest, size))| FileInfo {
                    path: path.clone(),
                    is_dir: false,
                    size: *size,
                    modified_at: None,
                    etag: Some(digest.clone()),
                    changed_at: None,
                })
                .collect(),
        )
    }

    async fn current_index(
        &self,
        cache: &IndexCache,
        root: bool,
        refresh: Refresh,
    ) -> Option<Arc<BTreeMap<String, (String, u64)>>> {
        let etag = {
            let mut state = cache.state();
            if state.invalid.is_some() || state.absent_until.is_some_and(|until| Instant::now() < until) {
                return None;
            }
            if let Some(files) = state.files.clone()
                && refresh == Refresh::Listing
                && (!root || std::mem::take(&mut state.polled))
            {
                return Some(files);
            }
            state.etag.clone()
        };
        let key = self.key(&format!("/{INDEX_FILE}")).ok()??;
        let options = GetOptions {
            if_none_match: etag,
            ..GetOptions::default()
        };
        let answer = self.store.get_opts(&key, options).await;
        let mut state = cache.state();
        match answer {
            Err(object_store::Error::NotModified { .. }) => {
                state.polled = false;
                state.files.clone()
            }
            Err(object_store::Error::NotFound { .. }) => {
                *state = IndexState {
                    absent_until: Some(Instant::now() + ABSENT_FOR),
                    ..IndexState::default()
                };
                None
            }
            Err(error) => {
                tracing::debug!(store = %self, %error, "the index cannot be read; listing instead");
                None
            }
            Ok(result) => {
                let etag = result.meta.e_tag.clone();
                if result.meta.size > MAX_INDEX_BYTES {
                    state.invalid = Some(format!(
                        "{INDEX_FILE} is {} bytes, over {MAX_INDEX_BYTES}",
                        result.meta.size
                    ));
                    return None;
                }
                drop(state);
                // The size was checked before: the body is at most MAX_INDEX_BYTES.
                let bytes = result.bytes().await;
                let mut state = cache.state();
                match bytes.map(|b| LibraryIndex::parse(&b)) {
                    Ok(Ok(index)) => {
                        let files: BTreeMap<String, (String, u64)> = index
                            .files()
                            .map(|f| (format!("/{}", f.path), (f.digest.clone(), f.size)))
                            .collect();
                        let files = Arc::new(files);
                        *state = IndexState {
                            etag,
                            files: Some(files.clone()),
                            polled: refresh == Refresh::Poll,
                            ..IndexState::default()
                        };
                        Some(files)
                    }
                    Ok(Err(error)) => {
                        state.invalid = Some(format!("{error}; listing the prefix instead"));
                        None
                    }
                    Err(error) => {
                        tracing::debug!(store = %self, %error, "the index cannot be read; listing instead");
                        None
                    }
                }
            }
        }
    }

    /// Checks a file just read against the index: one that contradicts it drops the
    /// index for listings.
    pub(crate) fn check_indexed(&self, normalized: &str, content: &[u8]) {
        let Some(cache) = &self.index else { return };
        let mut state = cache.state();
        let Some(files) = &state.files else { return };
        let Some((digest, _)) = files.get(normalized) else {
            return;
        };
        if *digest != sha256_text(content) {
            state.invalid = Some(format!(
                "the published {INDEX_FILE} is stale: {normalized} is not the file it indexes; listing the prefix instead"
            ));
            state.files = None;
        }
    }

    /// Why the published index is not used, when it was found wrong.
    pub(crate) fn index_problem(&self) -> Option<String> {
        self.index.as_ref()?.state().invalid.clone()
    }
}

/// Writes `index` as the library's `skills-index.json` under `backend`'s prefix.
pub async fn publish_index(backend: &ObjectStoreBackend, index: &LibraryIndex) -> object_store::Result<()> {
    let key = backend
        .key(&format!("/{INDEX_FILE}"))
        .ok()
        .flatten()
        .unwrap_or_else(|| object_store::path::Path::from(INDEX_FILE));
    let store: &dyn ObjectStore = backend.store().as_ref();
    object_store::ObjectStoreExt::put(store, &key, index.to_json().into_bytes().into()).await?;
    Ok(())
}

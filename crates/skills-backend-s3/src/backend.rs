//! `ObjectStoreBackend`: the backend contract over any `object_store` store.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, ObjectMeta, ObjectStore, ObjectStoreExt};
use skills_core::path;

use crate::seen::{Seen, depth, fingerprint, under};
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo, Walk, Watch,
};

/// How many objects [`download_files`](BackendProtocol::download_files) fetches at once,
/// unless [`ObjectStoreBackend::with_concurrency`] says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// How often a [watch](Watch) lists the prefix, unless
/// [`ObjectStoreBackend::with_poll_interval`] says otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(30);

/// A [`BackendProtocol`] over an [`ObjectStore`]: S3 and S3-compatible servers, and any
/// other store the `object_store` crate has (GCS, Azure, memory, local files).
///
/// Backend paths map to object keys under an optional prefix: with the prefix
/// `team/skills`, `/web/SKILL.md` is the object `team/skills/web/SKILL.md`. Directories
/// are the key prefixes that hold objects, as object stores have no directories.
///
/// Costs, which is what this backend is built around:
/// - [`walk`](BackendProtocol::walk) is one paginated flat listing of the prefix
///   (one request per 1,000 objects), whatever the depth and the number of directories;
/// - sizes and ETags come from listings, and callers compare ETags to skip GETs;
/// - [`download_files`](BackendProtocol::download_files) runs up to
///   [`with_concurrency`](Self::with_concurrency) GETs at once; an object over the size
///   limit is never fetched: its size comes from the last listing (or, for a path no
///   listing showed, from a HEAD request), and one that grew since it was listed is
///   refused from the response headers, before its body is read;
/// - the root always exists (an empty prefix is an empty library); other paths with
///   nothing under them are `NotFound` (or `NotADirectory` for an object);
/// - a [watch](Watch) polls with one listing per interval and never downloads.
///
/// ```
/// use std::sync::Arc;
/// use object_store::memory::InMemory;
/// use skills_backend_s3::ObjectStoreBackend;
///
/// let store = Arc::new(InMemory::new());
/// let backend = ObjectStoreBackend::new(store).with_prefix("team/skills").unwrap();
/// assert_eq!(backend.to_string(), "InMemory/team/skills");
/// ```
#[derive(Clone)]
pub struct ObjectStoreBackend {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// Key prefix of the backend's root: empty, or `a/b` (no leading or trailing `/`).
    prefix: String,
    /// What people see in errors and `Display` (`s3://bucket/prefix`).
    pub(crate) name: String,
    max_file_size: u64,
    concurrency: usize,
    pub(crate) poll_interval: Duration,
    /// The objects seen in listings and downloads, by backend path: a download knows an
    /// object is too large before any request, and a watch starts from what was read.
    seen: Arc<Mutex<BTreeMap<String, Seen>>>,
    /// The published index, when listings are served from it.
    pub(crate) index: Option<Arc<crate::indexed::IndexCache>>,
}

impl ObjectStoreBackend {
    /// A backend whose root is the whole store.
    pub fn new(store: Arc<dyn ObjectStore>) -> Self {
        let name = store.to_string();
        Self {
            store,
            prefix: String::new(),
            name,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            concurrency: DEFAULT_CONCURRENCY,
            poll_interval: DEFAULT_POLL_INTERVAL,
            seen: Arc::default(),
            index: None,
        }
    }

    /// Roots the backend at a key prefix (`team/skills`; leading and trailing slashes do
    /// not matter). Refused with `InvalidPath` when it contains `..`, NUL, backslashes or
    /// percent-encoded separators.
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self, BackendError> {
        let normalized = path::normalize(&format!("/{prefix}"))?;
        let prefix = normalized.trim_start_matches('/').to_owned();
        ObjectPath::parse(&prefix).map_err(|e| BackendError::invalid_path(&normalized, e.to_string()))?;
        if !prefix.is_empty() {
            self.name = format!("{}/{prefix}", self.name.trim_end_matches('/'));
        }
        self.prefix = prefix;
        Ok(self)
    }

    /// The name used in `Display` and error messages (by default the store's own
    /// `Display`, then the prefix).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The largest object [`download_files`](BackendProtocol::download_files) returns
    /// (default 10 MiB).
    pub fn with_max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// How many objects are fetched at once (default [`DEFAULT_CONCURRENCY`]; 0 counts
    /// as 1).
    pub fn with_concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// How often a watch lists the prefix (default [`DEFAULT_POLL_INTERVAL`]).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The key prefix of the backend's root (empty for the whole store).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// How many objects are fetched at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The store under the backend.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The key of a normalized backend path; `None` for the root of a prefix-less store.
    pub(crate) fn key(&self, normalized: &str) -> Result<Option<ObjectPath>, BackendError> {
        let rel = normalized.trim_start_matches('/');
        let key = match (self.prefix.is_empty(), rel.is_empty()) {
            (true, true) => return Ok(None),
            (true, false) => rel.to_owned(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}/{rel}", self.prefix),
        };
        ObjectPath::parse(&key)
            .map(Some)
            .map_err(|e| BackendError::invalid_path(normalized, e.to_string()))
    }

    /// The backend path of an object key, or `None` for a key outside the prefix or one
    /// that is not a valid backend path (such keys are skipped, never served).
    fn path_of(&self, location: &ObjectPath) -> Option<String> {
        let key = location.as_ref();
        let rel = if self.prefix.is_empty() {
            key
        } else {
            key.strip_prefix(self.prefix.as_str())?.strip_prefix('/')?
        };
        if rel.is_empty() {
            return None;
        }
        let candidate = format!("/{rel}");
        match path::normalize(&candidate) {
            Ok(normalized) if normalized == candidate => Some(candidate),
            _ => {
                tracing::debug!(key, "skipping an object whose key is not a valid backend path");
                None
            }
        }
    }

    fn file_info(&self, path: String, meta: &ObjectMeta) -> FileInfo {
        FileInfo {
            path,
            is_dir: false,
            size: meta.size,
            modified_at: Some(SystemTime::from(meta.last_modified)),
            etag: meta.e_tag.clone(),
            changed_at: None,
        }
    }

    fn seen(&self) -> MutexGuard<'_, BTreeMap<String, Seen>> {
        // Each critical section is one insert, remove or range update: a poisoned map is
        // consistent.
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers listed objects; with `complete_under`, the listing covered everything
    /// under that directory, so objects no longer there are forgotten.
    fn note_listed(&self, listed: &[FileInfo], complete_under: Option<&str>) {
        let mut seen = self.seen();
        if let Some(dir) = complete_under {
            let stale: Vec<String> = under(&seen, dir).map(|(path, _)| path.clone()).collect();
            for path in stale {
                seen.remove(&path);
            }
        }
        for file in listed {
            seen.insert(
                file.path.clone(),
                Seen {
                    size: file.size,
                    fingerprint: fingerprint(file),
                },
            );
        }
    }

    /// Fingerprints of the objects under a directory as last seen, by backend path.
    pub(crate) fn remembered(&self, dir: &str) -> BTreeMap<String, String> {
        under(&self.seen(), dir)
            .map(|(path, seen)| (path.clone(), seen.fingerprint.clone()))
            .collect()
    }

    /// Maps a store error about `path` to the backend's error kinds.
    pub(crate) fn error(&self, path: &str, error: object_store::Error) -> BackendError {
        match error {
            object_store::Error::NotFound { .. } => BackendError::NotFound { path: path.to_owned() },
            object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
                BackendError::PermissionDenied { path: path.to_owned() }
            }
            other => BackendError::Other {
                path: path.to_owned(),
                message: format!("{}: {}", self.name, skills_core::with_cause(&other)),
            },
        }
    }

    /// The error for a path under which nothing is listed: `NotADirectory` when it is an
    /// object, `NotFound` otherwise.
    async fn not_listable(&self, normalized: &str, key: &ObjectPath) -> BackendError {
        match self.store.head(key).await {
            Ok(_) => BackendError::NotADirectory {
                path: normalized.to_owned(),
            },
            Err(error) => self.error(normalized, error),
        }
    }

    /// Every object under a normalized directory path, as backend files, in key order.
    /// One paginated listing.
    pub(crate) async fn list_files(&self, normalized: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.list_files_for(normalized, crate::indexed::Refresh::Listing).await
    }

    /// `list_files`, for a poll or a listing (see `Refresh`).
    pub(crate) async fn list_files_for(
        &self,
        normalized: &str,
        refresh: crate::indexed::Refresh,
    ) -> Result<Vec<FileInfo>, BackendError> {
        if let Some(files) = self.indexed_files(normalized, refresh).await {
            self.note_listed(&files, Some(normalized));
            return Ok(files);
        }
        let key = self.key(normalized)?;
        let objects: Vec<ObjectMeta> = self
            .store
            .list(key.as_ref())
            .try_collect()
            .await
            .map_err(|e| self.error(normalized, e))?;
        let mut files: Vec<FileInfo> = objects
            .iter()
            .filter_map(|meta| {
                let path = self.path_of(&meta.location)?;
                path::is_within(&path, normalized)
                    .then(|| self.file_info(path, meta))
                    .filter(|file| file.path != normalized)
            })
            .collect();
        files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        self.note_listed(&files, Some(normalized));
        Ok(files)
    }

    async fn download_one(&self, asked: &str) -> FileDownloadResponse {
        let normalized = match path::normalize(asked) {
            Ok(normalized) => normalized,
            Err(error) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, error.to_string()),
        };
        let key = match self.key(&normalized) {
            Ok(Some(key)) => key,
            Ok(None) => return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "the root is a directory"),
            Err(error) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, error.to_string()),
        };
        let known_size = self.seen().get(&normalized).map(|seen| seen.size);
        let size = match known_size {
            Some(size) => size,
            // Never listed: ask for the size before fetching anything.
            None => match self.store.head(&key).await {
                Ok(meta) => meta.size,
                Err(object_store::Error::NotFound { .. }) => return self.missing_file(asked, &key).await,
                Err(error) => {
                    let error = self.error(&normalized, error);
                    return FileDownloadResponse::err(asked, error.file_error_kind(), error.to_string());
                }
            },
        };
        if size > self.max_file_size {
            return self.too_large(asked, size);
        }
        let result = match self.store.get_opts(&key, GetOptions::default()).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => {
                self.seen().remove(&normalized);
                return self.missing_file(asked, &key).await;
            }
            Err(error) => {
                let error = self.error(&normalized, error);
                return FileDownloadResponse::err(asked, error.file_error_kind(), error.to_string());
            }
        };
        let file = self.file_info(normalized.clone(), &result.meta);
        self.note_listed(std::slice::from_ref(&file), None);
        if result.meta.size > self.max_file_size {
            // It grew since it was listed. Dropping the response unread aborts the body
            // transfer.
            return self.too_large(asked, result.meta.size);
        }
        let mut content = Vec::with_capacity(usize::try_from(result.meta.size).unwrap_or(0));
        let mut body = result.into_stream();
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => {
                    if (content.len() + bytes.len()) as u64 > self.max_file_size {
                        return self.too_large(asked, (content.len() + bytes.len()) as u64);
                    }
                    content.extend_from_slice(&bytes);
                }
                Err(error) => {
                    let error = self.error(&normalized, error);
                    return FileDownloadResponse::err(asked, error.file_error_kind(), error.to_string());
                }
            }
        }
        self.check_indexed(&normalized, &content);
        FileDownloadResponse::ok(asked, content)
    }

    fn too_large(&self, asked: &str, size: u64) -> FileDownloadResponse {
        FileDownloadResponse::err(
            asked,
            FileErrorKind::TooLarge,
            format!("{size} bytes is over the {} byte limit", self.max_file_size),
        )
    }

    /// A GET found nothing: a directory (a prefix with objects) or a missing file.
    async fn missing_file(&self, asked: &str, key: &ObjectPath) -> FileDownloadResponse {
        match self.store.list(Some(key)).next().await {
            Some(Ok(_)) => FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory"),
            _ => FileDownloadResponse::err(asked, FileErrorKind::FileNotFound, "no such object"),
        }
    }
}

impl fmt::Display for ObjectStoreBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl fmt::Debug for ObjectStoreBackend {
    /// Names the store by its `Display` (bucket and prefix): no client configuration, so
    /// no credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectStoreBackend")
            .field("store", &self.name)
            .field("max_file_size", &self.max_file_size)
            .field("concurrency", &self.concurrency)
            .field("poll_interval", &self.poll_interval)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl BackendProtocol for ObjectStoreBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let normalized = path::normalize(path)?;
        let key = self.key(&normalized)?;
        let listing = self
            .store
            .list_with_delimiter(key.as_ref())
            .await
            .map_err(|e| self.error(&normalized, e))?;
        let dirs: BTreeSet<String> = listing
            .common_prefixes
            .iter()
            .filter_map(|prefix| self.path_of(prefix))
            .filter(|dir| path::parent(dir) == normalized)
            .collect();
        let files: Vec<FileInfo> = listing
            .objects
            .iter()
            .filter_map(|meta| {
                let path = self.path_of(&meta.location)?;
                // A key that is also a prefix is served as the directory.
                (path::parent(&path) == normalized && !dirs.contains(&path)).then(|| self.file_info(path, meta))
            })
            .collect();
        self.note_listed(&files, None);
        let mut entries = files;
        entries.extend(dirs.into_iter().map(FileInfo::directory));
        entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        match key {
            // The root always exists: an empty prefix is an empty library.
            Some(key) if entries.is_empty() && normalized != "/" => Err(self.not_listable(&normalized, &key).await),
            _ => Ok(entries),
        }
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let downloads: Vec<_> = paths.iter().map(|asked| self.download_one(asked)).collect();
        futures::stream::iter(downloads)
            .buffered(self.concurrency)
            .collect()
            .await
    }

    fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        Some(self)
    }

    fn stale(&self) -> Option<String> {
        self.index_problem()
    }

    /// One paginated flat listing of the prefix, whatever `max_depth`: directories are
    /// the key prefixes of the objects found.
    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let normalized = path::normalize(path)?;
        let files = self.list_files(&normalized).await?;
        if files.is_empty() && normalized != "/" {
            if let Some(key) = self.key(&normalized)? {
                return Err(self.not_listable(&normalized, &key).await);
            }
        }
        let base_depth = depth(&normalized);
        let mut dirs = BTreeSet::new();
        let mut entries = Vec::with_capacity(files.len());
        for file in files {
            let mut dir = path::parent(&file.path);
            while dir != normalized && path::is_within(dir, &normalized) {
                if depth(dir) - base_depth <= max_depth && !dirs.insert(dir.to_owned()) {
                    break;
                }
                dir = path::parent(dir);
            }
            if depth(&file.path) - base_depth <= max_depth {
                entries.push(file);
            }
        }
        // A key that is also a prefix is served as the directory.
        entries.retain(|file| !dirs.contains(&file.path));
        entries.extend(dirs.into_iter().map(FileInfo::directory));
        entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(Walk {
            entries,
            ..Walk::default()
        })
    }
}

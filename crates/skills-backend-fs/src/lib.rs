//! The local-disk backend of agent-skills: [`FilesystemBackend`] serves a directory tree
//! through [`BackendProtocol`], contained to its root.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use skills_backend_fs::FilesystemBackend;
//! use skills_core::list_skills;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("skills/web"))?;
//! std::fs::write(dir.path().join("skills/web/SKILL.md"), "---\nname: web\ndescription: Browse\n---\n")?;
//!
//! let backend = FilesystemBackend::new(dir.path())?; // `/` is the root directory
//! let listing = list_skills(&backend, "/skills").await?;
//! assert_eq!(listing.skills[0].path, "/skills/web/SKILL.md");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The choice a newcomer would not guess: containment is checked on the *resolved*
//! path. Every path is resolved with `realpath` and must land under the (resolved) root,
//! so a symbolic link inside the tree may point elsewhere inside it, but never out; the
//! final open uses `O_NOFOLLOW | O_NONBLOCK`, so a link swapped in after the check or a
//! FIFO planted in a skill cannot redirect or block a read.

#![warn(missing_docs)]

mod resolve;
mod watch;

use std::fs::{File, Metadata};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::future::join_all;
use skills_core::{
    BackendError, BackendProtocol, ChangeSink, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo,
    Walk, Watch, WatchGuard, path,
};

use crate::resolve::{RootDir, map_io_error, open_contained_file};
pub use crate::watch::DEFAULT_DEBOUNCE;

/// Serves the files under a root directory.
///
/// In **virtual mode** (the default, [`new`](Self::new)) backend paths are virtual: `/`
/// is the root directory and `/skills/web/SKILL.md` is `<root>/skills/web/SKILL.md`.
/// With virtual mode off ([`with_virtual_mode(false)`](Self::with_virtual_mode)) backend
/// paths are the host's absolute paths, which must still lie under the root.
///
/// Either way nothing outside the root is listed or read: `..`, and symbolic links whose
/// target resolves outside the root, are `InvalidPath`; a symbolic-link loop is
/// `InvalidPath` too. Cloning is cheap and clones share their settings.
#[derive(Debug, Clone)]
pub struct FilesystemBackend {
    inner: Arc<Inner>,
}

#[derive(Debug, Clone)]
struct Inner {
    /// The resolved root directory.
    root: PathBuf,
    /// `root` as a backend path when virtual mode is off.
    root_str: Option<String>,
    virtual_mode: bool,
    max_file_size: u64,
    debounce: Duration,
    /// The most threads one listing or batch of reads spreads over.
    parallelism: usize,
    /// Whether files with more than one hard link are read.
    hard_links: bool,
}

/// The fewest paths or directories a thread is given: below this, a second thread costs
/// more than it saves.
const MIN_PER_THREAD: usize = 64;

/// The default of [`FilesystemBackend::with_parallelism`]: the machine's cores, at most 8.
fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Why a root directory cannot serve as a backend.
#[derive(Debug, thiserror::Error)]
#[error("cannot use {path} as a skills root: {reason}")]
pub struct RootError {
    /// The directory given.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

impl FilesystemBackend {
    /// Serves `root_dir` in virtual mode, with the default 10 MiB file size limit.
    ///
    /// Fails when `root_dir` does not exist or is not a directory.
    pub fn new(root_dir: impl AsRef<Path>) -> Result<Self, RootError> {
        let given = root_dir.as_ref();
        let error = |reason: String| RootError {
            path: given.to_owned(),
            reason,
        };
        let root = std::fs::canonicalize(given).map_err(|e| error(e.to_string()))?;
        if !root.is_dir() {
            return Err(error("not a directory".into()));
        }
        Ok(Self {
            inner: Arc::new(Inner {
                root_str: root.to_str().map(str::to_owned),
                root,
                virtual_mode: true,
                max_file_size: DEFAULT_MAX_FILE_SIZE,
                debounce: watch::DEFAULT_DEBOUNCE,
                parallelism: default_parallelism(),
                hard_links: false,
            }),
        })
    }

    /// Turns virtual mode on (backend paths relative to the root) or off (backend paths
    /// are the host's absolute paths under the root).
    ///
    /// Fails when turning it off for a root whose path is not valid UTF-8, which backend
    /// paths cannot express.
    pub fn with_virtual_mode(self, virtual_mode: bool) -> Result<Self, RootError> {
        if !virtual_mode && self.inner.root_str.is_none() {
            return Err(RootError {
                path: self.inner.root.clone(),
                reason: "the path is not valid UTF-8".into(),
            });
        }
        Ok(self.with_inner(|inner| inner.virtual_mode = virtual_mode))
    }

    /// Sets the largest file `download_files` reads.
    pub fn with_max_file_size(self, bytes: u64) -> Self {
        self.with_inner(|inner| inner.max_file_size = bytes)
    }

    /// Sets how long the disk must be quiet before a burst of changes is reported as one
    /// [`ChangeEvent`](skills_core::ChangeEvent) (default [`DEFAULT_DEBOUNCE`], 100 ms).
    pub fn with_debounce(self, quiet: Duration) -> Self {
        self.with_inner(|inner| inner.debounce = quiet)
    }

    /// Sets how many threads one large listing or batch of reads may spread over
    /// (default: the number of cores, at most 8; `0` counts as `1`). A [`walk`] shares
    /// out the sub-directories of its first level, [`download_files`] its paths, each
    /// thread taking at least 64; smaller jobs stay on one thread.
    ///
    /// [`walk`]: BackendProtocol::walk
    /// [`download_files`]: BackendProtocol::download_files
    pub fn with_parallelism(self, threads: usize) -> Self {
        self.with_inner(|inner| inner.parallelism = threads.max(1))
    }

    /// Whether files with more than one hard link are read (default `false`).
    ///
    /// A hard link is the same file under a second name, and nothing tells which name
    /// is the original: a link inside the root may be a file from anywhere else on the
    /// same file system (`/etc/shadow`, another user's key). So by default such a file
    /// is listed but not read (`InvalidPath`, saying why). Turn this on for a root you
    /// made yourself with hard-linked copies (`cp -al`, some package stores).
    pub fn with_hard_links(self, allowed: bool) -> Self {
        self.with_inner(|inner| inner.hard_links = allowed)
    }

    /// How many threads one large listing or batch of reads may spread over.
    pub fn parallelism(&self) -> usize {
        self.inner.parallelism
    }

    fn with_inner(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Inner::clone(&self.inner);
        change(&mut inner);
        Self { inner: Arc::new(inner) }
    }

    /// The resolved root directory.
    pub fn root_dir(&self) -> &Path {
        &self.inner.root
    }

    /// Whether backend paths are virtual (relative to the root).
    pub fn virtual_mode(&self) -> bool {
        self.inner.virtual_mode
    }

    /// The backend path of the root directory: `/` in virtual mode, else the root's host
    /// path.
    pub fn root_path(&self) -> &str {
        match (&self.inner.root_str, self.inner.virtual_mode) {
            (Some(root), false) => root,
            _ => "/",
        }
    }

    /// The host path a backend path stands for, after checking its form (not following
    /// links: reading it still goes through containment).
    pub fn host_path(&self, backend_path: &str) -> Result<PathBuf, BackendError> {
        let normalized = path::normalize(backend_path)?;
        self.inner.host_path(&normalized)
    }
}

impl Inner {
    fn host_path(&self, normalized: &str) -> Result<PathBuf, BackendError> {
        match (&self.root_str, self.virtual_mode) {
            (Some(root), false) => {
                if !path::is_within(normalized, root) {
                    return Err(BackendError::invalid_path(
                        normalized,
                        "path is outside the root directory",
                    ));
                }
                Ok(PathBuf::from(normalized))
            }
            _ => Ok(self.root.join(normalized.trim_start_matches('/'))),
        }
    }

    /// Resolves a backend path to a host path inside the root (following links).
    fn resolve(&self, asked: &str) -> Result<(String, PathBuf), BackendError> {
        let normalized = path::normalize(asked)?;
        let host = self.host_path(&normalized)?;
        let resolved = resolve::contained(&self.root, &host, &normalized)?;
        Ok((normalized, resolved))
    }

    /// Resolves a backend path that must be a directory.
    fn resolve_dir(&self, asked: &str) -> Result<(String, PathBuf), BackendError> {
        let (normalized, dir) = self.resolve(asked)?;
        let meta = std::fs::metadata(&dir).map_err(|e| map_io_error(e, &normalized))?;
        if !meta.is_dir() {
            return Err(BackendError::NotADirectory { path: normalized });
        }
        Ok((normalized, dir))
    }

    fn ls_info(&self, asked: &str) -> Result<Vec<FileInfo>, BackendError> {
        let (normalized, dir) = self.resolve_dir(asked)?;
        self.list_dir(&normalized, &dir)
            .map(|entries| entries.into_iter().map(|e| e.info).collect())
    }

    /// Lists a resolved directory. Entries whose name is not UTF-8, special files, and
    /// links leading out of the root (or nowhere) are left out.
    fn list_dir(&self, dir_path: &str, dir: &Path) -> Result<Vec<Entry>, BackendError> {
        let read_dir = std::fs::read_dir(dir).map_err(|e| map_io_error(e, dir_path))?;
        let mut out = Vec::new();
        for entry in read_dir {
            let entry = entry.map_err(|e| map_io_error(e, dir_path))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                tracing::debug!(dir = dir_path, "skipping an entry whose name is not UTF-8");
                continue;
            };
            let entry_path = path::join(dir_path, &name);
            let file_type = entry.file_type().map_err(|e| map_io_error(e, &entry_path))?;
            let (host, meta) = if file_type.is_symlink() {
                let resolved = match resolve::contained(&self.root, &entry.path(), &entry_path) {
                    Ok(resolved) => resolved,
                    Err(e) => {
                        tracing::debug!(path = entry_path, "skipping a link: {e}");
                        continue;
                    }
                };
                match std::fs::metadata(&resolved) {
                    Ok(meta) => (resolved, meta),
                    Err(_) => continue,
                }
            } else if file_type.is_dir() {
                // A directory's metadata says nothing discovery uses: skip the stat.
                out.push(Entry {
                    host: entry.path(),
                    info: FileInfo::directory(entry_path),
                });
                continue;
            } else {
                match entry.metadata() {
                    Ok(meta) => (entry.path(), meta),
                    // Deleted since it was listed.
                    Err(_) => continue,
                }
            };
            if !meta.is_dir() && !meta.is_file() {
                continue;
            }
            out.push(Entry {
                host,
                info: file_info(entry_path, &meta),
            });
        }
        out.sort_unstable_by(|a, b| a.info.path.cmp(&b.info.path));
        Ok(out)
    }

    /// Lists the first level of a walk: the root's entries, and the sub-directories to
    /// descend into when `max_depth` goes deeper.
    fn walk_first(&self, asked: &str, max_depth: usize) -> Result<(Walk, Vec<(String, PathBuf)>), BackendError> {
        let (normalized, dir) = self.resolve_dir(asked)?;
        let mut walk = Walk::default();
        let mut below = Vec::new();
        if max_depth == 0 {
            return Ok((walk, below));
        }
        for entry in self.list_dir(&normalized, &dir)? {
            if entry.info.is_dir && max_depth > 1 {
                below.push((entry.info.path.clone(), entry.host));
            }
            walk.entries.push(entry.info);
        }
        Ok((walk, below))
    }

    /// Walks directories that lie at `depth` (1 = children of the walk's root) down to
    /// `max_depth`, breadth first; unlisted directories are errors of the walk.
    fn walk_below(&self, dirs: Vec<(String, PathBuf)>, depth: usize, max_depth: usize) -> Walk {
        let mut walk = Walk::default();
        let mut queue: std::collections::VecDeque<_> = dirs.into_iter().map(|(p, h)| (p, h, depth + 1)).collect();
        while let Some((dir_path, dir, depth)) = queue.pop_front() {
            let entries = match self.list_dir(&dir_path, &dir) {
                Ok(entries) => entries,
                Err(e) => {
                    walk.errors.push(e);
                    continue;
                }
            };
            for entry in entries {
                if entry.info.is_dir && depth < max_depth {
                    queue.push_back((entry.info.path.clone(), entry.host, depth + 1));
                }
                walk.entries.push(entry.info);
            }
        }
        walk
    }

    /// Looks up `<dir>/<file_name>` in each directory: one stat where listing the
    /// directory would take four calls. Links are followed inside the root only, as in a
    /// listing; a directory that cannot be looked into is an error under its own path.
    fn child_files_in(&self, dirs: Vec<(String, PathBuf)>, file_name: &str) -> Walk {
        let mut walk = Walk::default();
        for (dir_path, dir) in dirs {
            let entry_path = path::join(&dir_path, file_name);
            let host = dir.join(file_name);
            let meta = match std::fs::symlink_metadata(&host) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target = resolve::contained(&self.root, &host, &entry_path)
                        .and_then(|resolved| std::fs::metadata(resolved).map_err(|e| map_io_error(e, &entry_path)));
                    match target {
                        Ok(meta) => meta,
                        Err(e) => {
                            tracing::debug!(path = entry_path, "skipping a link: {e}");
                            continue;
                        }
                    }
                }
                Ok(meta) => meta,
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => continue,
                Err(e) => {
                    walk.errors.push(map_io_error(e, &dir_path));
                    continue;
                }
            };
            if meta.is_dir() {
                walk.entries.push(FileInfo::directory(entry_path));
            } else if meta.is_file() {
                walk.entries.push(file_info(entry_path, &meta));
            }
        }
        walk
    }

    /// Splits a job into one share per thread, in order: as many shares as
    /// `parallelism` allows with at least [`MIN_PER_THREAD`] items each (one share for a
    /// small job, none for an empty one).
    fn shares<T>(&self, items: Vec<T>) -> Vec<Vec<T>> {
        let threads = (items.len() / MIN_PER_THREAD).clamp(1, self.parallelism);
        let per_thread = items.len().div_ceil(threads).max(1);
        let mut shares = Vec::with_capacity(threads);
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            shares.push(items.by_ref().take(per_thread).collect());
        }
        shares
    }

    /// Opens a normalized path for reading, contained in the root: one `openat2` when
    /// the kernel can decide, else resolution by hand.
    fn open_file(&self, normalized: &str, root: Option<&RootDir>) -> Result<(File, Metadata), BackendError> {
        let host = self.host_path(normalized)?;
        #[cfg(target_os = "linux")]
        if let Some(rel) = host
            .strip_prefix(&self.root)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
        {
            if let Some(opened) = resolve::open_beneath(root, rel, normalized) {
                return opened;
            }
        }
        let resolved = resolve::contained(&self.root, &host, normalized)?;
        open_contained_file(&resolved, normalized)
    }

    fn download(&self, asked: &str, root: Option<&RootDir>) -> FileDownloadResponse {
        let fail = |e: BackendError| {
            let kind = match e {
                BackendError::NotADirectory { .. } => FileErrorKind::FileNotFound,
                ref e => e.file_error_kind(),
            };
            FileDownloadResponse::err(asked, kind, e.to_string())
        };
        let normalized = match path::normalize(asked) {
            Ok(normalized) => normalized,
            Err(e) => return fail(e),
        };
        let opened = match self.open_file(&normalized, root) {
            Ok(opened) => opened,
            Err(e) => return fail(e),
        };
        let (file, meta) = opened;
        if meta.is_dir() {
            return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory");
        }
        if !meta.is_file() {
            return FileDownloadResponse::err(asked, FileErrorKind::Other, "not a regular file");
        }
        let links = hard_links(&meta);
        if links > 1 && !self.hard_links {
            let msg = format!(
                "{normalized} has {links} hard links and may be a file from outside the root; \
                 not read (FilesystemBackend::with_hard_links)"
            );
            return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, msg);
        }
        let limit = self.max_file_size;
        let too_large = |size: u64| {
            FileDownloadResponse::err(
                asked,
                FileErrorKind::TooLarge,
                format!("{size} bytes, over the {limit}-byte limit"),
            )
        };
        if meta.len() > limit {
            return too_large(meta.len());
        }
        // The length the file had when it was opened (at most the limit): a file that
        // grows meanwhile is read as it was, and an unchanged one costs a single read,
        // where reading to the end would take a second to see the end.
        let mut content = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        match file.take(meta.len()).read_to_end(&mut content) {
            Ok(_) => FileDownloadResponse::ok(asked, content),
            Err(e) => fail(map_io_error(e, &normalized)),
        }
    }
}

struct Entry {
    host: PathBuf,
    info: FileInfo,
}

fn file_info(path: String, meta: &Metadata) -> FileInfo {
    let modified_at = meta.modified().ok();
    if meta.is_dir() {
        return FileInfo {
            path,
            is_dir: true,
            size: 0,
            modified_at,
            etag: None,
        };
    }
    let nanos = modified_at
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    FileInfo {
        path,
        is_dir: false,
        size: meta.len(),
        modified_at,
        etag: Some(format!("{:x}-{nanos:x}-{:x}", meta.len(), inode(meta))),
    }
}

#[cfg(unix)]
fn inode(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_meta: &Metadata) -> u64 {
    0
}

#[cfg(unix)]
fn hard_links(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn hard_links(_meta: &Metadata) -> u64 {
    1
}

/// Runs blocking disk work on tokio's blocking pool when there is a runtime, and in
/// place when there is none. If the work cannot finish (the runtime shuts down, or a bug
/// panics), `failed` turns the reason into an error value instead of a panic.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static, failed: impl FnOnce(String) -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => match handle.spawn_blocking(work).await {
            Ok(value) => value,
            Err(e) => failed(format!("disk task did not finish: {e}")),
        },
        Err(_) => work(),
    }
}

#[async_trait]
impl BackendProtocol for FilesystemBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let (inner, owned) = (Arc::clone(&self.inner), path.to_owned());
        let failed = |message| {
            Err(BackendError::Other {
                path: path.to_owned(),
                message,
            })
        };
        blocking(move || inner.ls_info(&owned), failed).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let reads = self.inner.shares(paths.to_vec()).into_iter().map(|share| {
            let share: Arc<[String]> = share.into();
            let failed_paths = Arc::clone(&share);
            let failed = move |message: String| {
                failed_paths
                    .iter()
                    .map(|p| FileDownloadResponse::err(p.clone(), FileErrorKind::Other, message.clone()))
                    .collect()
            };
            let inner = Arc::clone(&self.inner);
            blocking(
                move || {
                    let root = RootDir::open(&inner.root);
                    share
                        .iter()
                        .map(|p| inner.download(p, root.as_ref()))
                        .collect::<Vec<_>>()
                },
                failed,
            )
        });
        join_all(reads).await.into_iter().flatten().collect()
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        Some(self)
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.two_stage(path, max_depth, move |inner, dirs| inner.walk_below(dirs, 1, max_depth))
            .await
    }

    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        let name = file_name.to_owned();
        self.two_stage(path, 2, move |inner, dirs| inner.child_files_in(dirs, &name))
            .await
    }
}

impl FilesystemBackend {
    /// Lists the directory at `path` (the first `max_depth` level), then hands its
    /// sub-directories to `below`, spread over up to [`parallelism`](Self::parallelism)
    /// threads; the result is sorted by path.
    async fn two_stage(
        &self,
        path: &str,
        max_depth: usize,
        below: impl Fn(&Inner, Vec<(String, PathBuf)>) -> Walk + Clone + Send + 'static,
    ) -> Result<Walk, BackendError> {
        let failed = |message| BackendError::Other {
            path: path.to_owned(),
            message,
        };
        let (inner, owned) = (Arc::clone(&self.inner), path.to_owned());
        let (mut walk, dirs) = blocking(move || inner.walk_first(&owned, max_depth), |m| Err(failed(m))).await?;
        let parts = self.inner.shares(dirs).into_iter().map(|share| {
            let (inner, below) = (Arc::clone(&self.inner), below.clone());
            let failed = |message| Walk {
                entries: Vec::new(),
                errors: vec![failed(message)],
            };
            blocking(move || below(&inner, share), failed)
        });
        for part in join_all(parts).await {
            walk.entries.extend(part.entries);
            walk.errors.extend(part.errors);
        }
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        walk.errors.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(walk)
    }
}

/// Change notifications from the operating system (inotify on Linux), debounced: a burst
/// of changes is one event once the disk has been quiet for the debounce time. Paths in
/// events are backend paths; changes outside the watched directory are not reported. A
/// directory that must be watched has to exist when the watch starts.
impl Watch for FilesystemBackend {
    fn watch(&self, path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        let (normalized, dir) = self.inner.resolve_dir(path)?;
        watch::start(dir, normalized, self.inner.debounce, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(threads: usize) -> FilesystemBackend {
        let root = std::env::temp_dir();
        FilesystemBackend::new(root).unwrap().with_parallelism(threads)
    }

    #[test]
    fn large_jobs_are_shared_out_in_order_and_small_ones_are_not() {
        let sizes = |threads: usize, items: usize| -> Vec<usize> {
            let shares = backend(threads).inner.shares((0..items).collect::<Vec<_>>());
            assert_eq!(shares.concat(), (0..items).collect::<Vec<_>>(), "order kept");
            shares.iter().map(Vec::len).collect()
        };
        assert_eq!(sizes(4, 300), [75, 75, 75, 75]);
        assert_eq!(sizes(2, 10_000), [5_000, 5_000]);
        assert_eq!(sizes(4, 130), [65, 65]); // at least 64 each
        assert_eq!(sizes(4, 100), [100]);
        assert_eq!(sizes(1, 10_000), [10_000]);
        assert!(sizes(4, 0).is_empty());
    }
}

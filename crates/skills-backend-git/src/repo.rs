//! `GitBackend`: the tree of one commit, read from the object database.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use git2::{ErrorCode, Oid, Repository};
use skills_core::path;
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo, Walk, Watch,
};

use crate::GitError;
use crate::remote::{self, Remote};
use crate::spec::{GitRef, GitSpec};

mod refresh;
mod tree;

use refresh::resolve;
use skills_core::url::redact_url as redact;

/// How often a watch fetches a remote, unless [`GitBackendBuilder::fetch_interval`] says
/// otherwise.
pub const DEFAULT_FETCH_INTERVAL: Duration = Duration::from_secs(60);

/// A [`BackendProtocol`] over the tree of one commit of a git repository.
///
/// Files are read straight from the object database: nothing is checked out and no
/// working tree is touched (bare repositories work). Backend paths are paths in the tree
/// (under the optional sub-directory): `/web/SKILL.md`. `etag` is the blob id, so a
/// catalog re-reads exactly the files a commit changed. Symbolic links and submodules
/// in the tree are not served (they are not listed; reading one is `InvalidPath`).
///
/// The served commit moves only on [`refresh`](Self::refresh) (which a
/// [watch](Watch) calls): a branch or tag that moves is followed, a full commit id never
/// changes. A refresh that fails (fetch error, deleted ref, a force-push to an unrelated
/// history) keeps serving the last good commit and records why in
/// [`problem`](Self::problem).
#[derive(Clone)]
pub struct GitBackend {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// The handle reads use.
    repo: Mutex<Repository>,
    /// Name indexes of the large trees paths were looked up in (see `tree::TreeIndexes`).
    trees: Mutex<tree::TreeIndexes>,
    /// Held by the refresh that runs (fetches use a handle of their own).
    refreshing: Mutex<()>,
    pub(crate) git_dir: PathBuf,
    pub(crate) remote: Option<Remote>,
    reference: GitRef,
    subdir: String,
    served: RwLock<Served>,
    max_file_size: u64,
    pub(crate) fetch_interval: Duration,
    pub(crate) name: String,
}

/// What is served now.
#[derive(Debug, Clone)]
struct Served {
    commit: Oid,
    /// The tree of the sub-directory in that commit, `None` when it has none.
    root: Option<Oid>,
    time: SystemTime,
    problem: Option<String>,
}

/// What a [`GitBackend::refresh`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refreshed {
    /// The commit served before.
    pub from: String,
    /// The commit served now.
    pub to: String,
    /// Backend paths of the files added, modified or deleted between the two.
    pub changed: Vec<String>,
}

/// Builds a [`GitBackend`]; see [`GitBackend::open`] and [`GitBackend::remote`].
#[derive(Debug, Clone)]
pub struct GitBackendBuilder {
    location: Location,
    reference: GitRef,
    subdir: String,
    max_file_size: u64,
    fetch_interval: Duration,
}

#[derive(Debug, Clone)]
enum Location {
    Local(PathBuf),
    Remote { url: String, cache_dir: PathBuf },
}

impl GitBackendBuilder {
    /// What to serve (default `HEAD`).
    pub fn reference(mut self, reference: GitRef) -> Self {
        self.reference = reference;
        self
    }

    /// Serves only this sub-directory of the tree (`skills`, `a/b`); refused with
    /// `InvalidSpec` when it contains `..` and the like.
    pub fn subdir(mut self, subdir: &str) -> Result<Self, GitError> {
        let normalized = path::normalize(&format!("/{subdir}")).map_err(|e| GitError::InvalidSpec {
            spec: subdir.to_owned(),
            reason: e.to_string(),
        })?;
        self.subdir = normalized.trim_start_matches('/').to_owned();
        Ok(self)
    }

    /// The largest blob `download_files` returns (default 10 MiB).
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// How often a watch fetches a remote (default [`DEFAULT_FETCH_INTERVAL`]).
    pub fn fetch_interval(mut self, interval: Duration) -> Self {
        self.fetch_interval = interval;
        self
    }

    /// Opens the repository (a remote is cloned into its cache directory, or fetched if
    /// it was cloned before) and resolves the ref. Blocking: network and disk.
    pub fn open(self) -> Result<GitBackend, GitError> {
        let (repo, remote, name) = match &self.location {
            Location::Local(dir) => {
                let repo = Repository::open(dir).map_err(|e| GitError::git(dir.display().to_string(), &e))?;
                (repo, None, dir.display().to_string())
            }
            Location::Remote { url, cache_dir } => {
                let (repo, remote) = remote::open_cache(url, cache_dir)?;
                remote::fetch(&repo, &remote)?;
                (repo, Some(remote), redact(url))
            }
        };
        let mut name = format!("{name}#ref={}", self.reference);
        if !self.subdir.is_empty() {
            name.push_str("&path=");
            name.push_str(&self.subdir);
        }
        let git_dir = repo.path().to_path_buf();
        let served =
            resolve(&repo, remote.is_some(), &self.reference, &self.subdir).map_err(|reason| GitError::Resolve {
                name: name.clone(),
                reason,
            })?;
        Ok(GitBackend {
            inner: Arc::new(Inner {
                repo: Mutex::new(repo),
                trees: Mutex::default(),
                refreshing: Mutex::new(()),
                git_dir,
                remote,
                reference: self.reference,
                subdir: self.subdir,
                served: RwLock::new(served),
                max_file_size: self.max_file_size,
                fetch_interval: self.fetch_interval,
                name,
            }),
        })
    }
}

impl GitBackend {
    /// A local repository: a working copy or a bare repository.
    pub fn open(dir: impl AsRef<Path>) -> GitBackendBuilder {
        Self::builder(Location::Local(dir.as_ref().to_path_buf()))
    }

    /// A remote (`file://`, `git://`, `https://`, `ssh://`) cloned into, and fetched
    /// from, a bare repository under `cache_dir` (one per URL). Credentials: see the
    /// crate documentation.
    pub fn remote(url: &str, cache_dir: impl AsRef<Path>) -> GitBackendBuilder {
        Self::builder(Location::Remote {
            url: url.to_owned(),
            cache_dir: cache_dir.as_ref().to_path_buf(),
        })
    }

    /// A builder for a parsed source: `file://` URLs open the repository in place,
    /// others are remotes cached under `cache_dir`.
    pub fn from_spec(spec: &GitSpec, cache_dir: impl AsRef<Path>) -> Result<GitBackendBuilder, GitError> {
        let builder = match spec.local_path() {
            Some(dir) => Self::open(dir),
            None => Self::remote(&spec.url, cache_dir),
        };
        builder.reference(spec.reference.clone()).subdir(&spec.path)
    }

    fn builder(location: Location) -> GitBackendBuilder {
        GitBackendBuilder {
            location,
            reference: GitRef::Head,
            subdir: String::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            fetch_interval: DEFAULT_FETCH_INTERVAL,
        }
    }

    /// The commit served now (40 hex digits).
    pub fn commit_id(&self) -> String {
        self.served().commit.to_string()
    }

    /// The ref this backend follows.
    pub fn reference(&self) -> &GitRef {
        &self.inner.reference
    }

    /// Why the last refresh kept the previous commit, until one succeeds.
    pub fn problem(&self) -> Option<String> {
        self.served().problem
    }

    /// The repository's git directory (the cache clone for a remote).
    pub fn git_dir(&self) -> &Path {
        &self.inner.git_dir
    }

    fn served(&self) -> Served {
        self.inner.served.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn repo(&self) -> MutexGuard<'_, Repository> {
        // git2 calls leave the repository consistent when a caller panics.
        self.inner.repo.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn error(&self, path: &str, error: &git2::Error) -> BackendError {
        match error.code() {
            ErrorCode::NotFound => BackendError::NotFound { path: path.to_owned() },
            _ => BackendError::Other {
                path: path.to_owned(),
                message: format!("{}: {}", self.inner.name, error.message()),
            },
        }
    }

    /// Runs blocking repository work on tokio's blocking pool (in place without a
    /// runtime).
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&GitBackend) -> T + Send + 'static,
        failed: impl FnOnce(String) -> T,
    ) -> T {
        let this = self.clone();
        skills_core::blocking::run_blocking(move || work(&this), failed).await
    }

    /// A walk of the tree at `path` by `walk` (given the normalized path), on the
    /// blocking pool.
    async fn walk_with(
        &self,
        path: &str,
        walk: impl FnOnce(&GitBackend, &str) -> Result<Walk, BackendError> + Send + 'static,
    ) -> Result<Walk, BackendError> {
        let normalized = path::normalize(path)?;
        let for_error = normalized.clone();
        self.blocking(
            move |b| walk(b, &normalized),
            |message| {
                Err(BackendError::Other {
                    path: for_error,
                    message,
                })
            },
        )
        .await
    }
}

impl fmt::Display for GitBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.name)
    }
}

impl fmt::Debug for GitBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitBackend")
            .field("source", &self.inner.name)
            .field("commit", &self.commit_id())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl BackendProtocol for GitBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let normalized = path::normalize(path)?;
        let for_error = normalized.clone();
        self.blocking(
            move |b| b.ls_blocking(&normalized),
            |message| {
                Err(BackendError::Other {
                    path: for_error,
                    message,
                })
            },
        )
        .await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let owned = paths.to_vec();
        let asked = paths.to_vec();
        self.blocking(
            move |b| b.download_blocking(&owned),
            |message| {
                asked
                    .iter()
                    .map(|p| FileDownloadResponse::err(p, FileErrorKind::Other, message.clone()))
                    .collect()
            },
        )
        .await
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        Some(self)
    }

    fn stale(&self) -> Option<String> {
        self.problem()
    }

    fn revision(&self) -> Option<String> {
        Some(format!("git:{}", self.commit_id()))
    }

    /// One walk of the commit's trees in memory.
    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.walk_with(path, move |b, normalized| b.walk_blocking(normalized, max_depth))
            .await
    }

    /// A walk of two levels that reads the size of the second level's `file_name` files
    /// only.
    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        let file_name = file_name.to_owned();
        self.walk_with(path, move |b, normalized| {
            b.find_blocking(normalized, &file_name, 2, true)
        })
        .await
    }

    /// A walk that reads the size of the `file_name` files only, and stops at skill
    /// folders.
    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let file_name = file_name.to_owned();
        self.walk_with(path, move |b, normalized| {
            b.find_blocking(normalized, &file_name, max_depth, false)
        })
        .await
    }
}

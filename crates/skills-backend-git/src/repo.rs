//! `GitBackend`: the tree of one commit, read from the object database.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use git2::{ErrorCode, ObjectType, Oid, Repository, Tree, TreeEntry};
use skills_core::path;
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo, Walk, Watch,
};

use crate::GitError;
use crate::remote::{self, Remote};
use crate::spec::{GitRef, GitSpec};
use skills_core::redact_url as redact;

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

    /// Fetches (for a remote) and resolves the ref again. `Ok(None)`: still the same
    /// commit. On failure the last good commit stays served and the reason is kept in
    /// [`problem`](Self::problem). Blocking.
    pub fn refresh(&self) -> Result<Option<Refreshed>, GitError> {
        // One refresh at a time, on a handle of its own: reads go on during a fetch.
        let _one = self.inner.refreshing.lock().unwrap_or_else(|e| e.into_inner());
        let repo = match Repository::open(&self.inner.git_dir) {
            Ok(repo) => repo,
            Err(e) => return Err(self.keep_serving(format!("cannot open the repository: {}", e.message()))),
        };
        let next = self.next_served(&repo).map_err(|reason| self.keep_serving(reason))?;
        let mut served = self.inner.served.write().unwrap_or_else(|e| e.into_inner());
        if next.commit == served.commit {
            served.problem = None;
            return Ok(None);
        }
        let changed = changed_paths(&repo, served.root, next.root).map_err(|e| GitError::git(&self.inner.name, &e))?;
        let refreshed = Refreshed {
            from: served.commit.to_string(),
            to: next.commit.to_string(),
            changed,
        };
        *served = next;
        Ok(Some(refreshed))
    }

    /// Records why a refresh keeps the served commit, and returns that as the error.
    fn keep_serving(&self, reason: String) -> GitError {
        let mut served = self.inner.served.write().unwrap_or_else(|e| e.into_inner());
        served.problem = Some(format!("{reason}; serving {}", served.commit));
        GitError::Resolve {
            name: self.inner.name.clone(),
            reason,
        }
    }

    /// Fetches (a remote) and resolves the ref on `repo`: what to serve next.
    fn next_served(&self, repo: &Repository) -> Result<Served, String> {
        if let Some(remote) = &self.inner.remote {
            remote::fetch(repo, remote).map_err(|e| format!("fetch failed: {e}"))?;
        }
        let next = resolve(
            repo,
            self.inner.remote.is_some(),
            &self.inner.reference,
            &self.inner.subdir,
        )?;
        let current = self.served().commit;
        if next.commit != current && repo.merge_base(next.commit, current).is_err() {
            return Err(format!(
                "{} moved to {}, which shares no history with the served commit (force-pushed?)",
                self.inner.reference, next.commit
            ));
        }
        Ok(next)
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
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => match handle.spawn_blocking(move || work(&this)).await {
                Ok(value) => value,
                Err(e) => failed(format!("repository task did not finish: {e}")),
            },
            Err(_) => work(&this),
        }
    }

    /// The tree entry at a normalized backend path: `Ok(None)` for the root.
    fn lookup<'r>(&self, repo: &'r Repository, normalized: &str) -> Result<Node<'r>, BackendError> {
        let served = self.served();
        let Some(root) = served.root else {
            return Err(BackendError::NotFound {
                path: normalized.to_owned(),
            });
        };
        let root = repo.find_tree(root).map_err(|e| self.error(normalized, &e))?;
        let rel = normalized.trim_start_matches('/');
        if rel.is_empty() {
            return Ok(Node::Tree(root, served.time));
        }
        let entry = root.get_path(Path::new(rel)).map_err(|e| self.error(normalized, &e))?;
        match (entry.kind(), entry.filemode()) {
            (Some(ObjectType::Tree), _) => {
                let tree = repo.find_tree(entry.id()).map_err(|e| self.error(normalized, &e))?;
                Ok(Node::Tree(tree, served.time))
            }
            (Some(ObjectType::Blob), 0o100644 | 0o100755) => Ok(Node::Blob(entry.id())),
            _ => Ok(Node::Unserved),
        }
    }

    fn ls_blocking(&self, normalized: &str) -> Result<Vec<FileInfo>, BackendError> {
        let repo = self.repo();
        let odb = repo.odb().map_err(|e| self.error(normalized, &e))?;
        match self.lookup(&repo, normalized)? {
            Node::Tree(tree, time) => {
                let mut entries: Vec<FileInfo> = tree
                    .iter()
                    .filter_map(|entry| self.info(&odb, &path::join(normalized, name_of(&entry)?), &entry, time))
                    .collect();
                entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                Ok(entries)
            }
            Node::Blob(..) | Node::Unserved => Err(BackendError::NotADirectory {
                path: normalized.to_owned(),
            }),
        }
    }

    fn walk_blocking(&self, normalized: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let repo = self.repo();
        let odb = repo.odb().map_err(|e| self.error(normalized, &e))?;
        let Node::Tree(tree, time) = self.lookup(&repo, normalized)? else {
            return Err(BackendError::NotADirectory {
                path: normalized.to_owned(),
            });
        };
        let mut walk = Walk::default();
        let mut stack = vec![(tree, normalized.to_owned(), 1usize)];
        while let Some((tree, dir, depth)) = stack.pop() {
            if depth > max_depth {
                continue;
            }
            for entry in tree.iter() {
                let Some(name) = name_of(&entry) else { continue };
                let child = path::join(&dir, name);
                let Some(info) = self.info(&odb, &child, &entry, time) else {
                    continue;
                };
                if info.is_dir && depth < max_depth {
                    match repo.find_tree(entry.id()) {
                        Ok(sub) => stack.push((sub, child, depth + 1)),
                        Err(e) => walk.errors.push(self.error(&info.path, &e)),
                    }
                }
                walk.entries.push(info);
            }
        }
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// A listing entry, or `None` for what is not served (links, submodules, names that
    /// are not valid backend path components).
    fn info(&self, odb: &git2::Odb<'_>, path: &str, entry: &TreeEntry<'_>, time: SystemTime) -> Option<FileInfo> {
        match (entry.kind()?, entry.filemode()) {
            (ObjectType::Tree, _) => Some(FileInfo {
                path: path.to_owned(),
                is_dir: true,
                size: 0,
                modified_at: Some(time),
                etag: None,
            }),
            (ObjectType::Blob, 0o100644 | 0o100755) => {
                // A damaged or missing blob is still listed (size 0), so reading it fails
                // with a typed error and a skill it belongs to keeps its last good
                // version, instead of vanishing from the listing as if deleted.
                let size = odb.read_header(entry.id()).map_or(0, |(size, _)| size as u64);
                Some(FileInfo {
                    path: path.to_owned(),
                    is_dir: false,
                    size,
                    modified_at: Some(time),
                    etag: Some(entry.id().to_string()),
                })
            }
            _ => None,
        }
    }

    fn download_blocking(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let repo = self.repo();
        let odb = repo.odb();
        paths
            .iter()
            .map(|asked| {
                let normalized = match path::normalize(asked) {
                    Ok(normalized) => normalized,
                    Err(e) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, e.to_string()),
                };
                let id = match self.lookup(&repo, &normalized) {
                    Ok(Node::Blob(id)) => id,
                    Ok(Node::Tree(..)) => {
                        return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory");
                    }
                    Ok(Node::Unserved) => {
                        return FileDownloadResponse::err(
                            asked,
                            FileErrorKind::InvalidPath,
                            "symbolic links and submodules are not served",
                        );
                    }
                    Err(e) => return FileDownloadResponse::err(asked, e.file_error_kind(), e.to_string()),
                };
                let header = match &odb {
                    Ok(odb) => odb.read_header(id),
                    Err(e) => Err(git2::Error::from_str(e.message())),
                };
                let size = match header {
                    Ok((size, _)) => size as u64,
                    Err(e) => {
                        let message = self.error(asked, &e).to_string();
                        return FileDownloadResponse::err(asked, FileErrorKind::Other, message);
                    }
                };
                if size > self.inner.max_file_size {
                    return FileDownloadResponse::err(
                        asked,
                        FileErrorKind::TooLarge,
                        format!("{size} bytes is over the {} byte limit", self.inner.max_file_size),
                    );
                }
                match repo.find_blob(id) {
                    Ok(blob) => FileDownloadResponse::ok(asked, blob.content().to_vec()),
                    Err(e) => FileDownloadResponse::err(asked, FileErrorKind::Other, self.error(asked, &e).to_string()),
                }
            })
            .collect()
    }
}

enum Node<'r> {
    Tree(Tree<'r>, SystemTime),
    Blob(Oid),
    Unserved,
}

/// An entry's name when it is a valid backend path component.
fn name_of<'a>(entry: &'a TreeEntry<'_>) -> Option<&'a str> {
    let name = entry.name().ok()?;
    let valid = path::normalize(&format!("/{name}")).is_ok_and(|p| p.len() == name.len() + 1);
    valid.then_some(name)
}

/// The commit a ref names now, and its sub-directory tree.
fn resolve(repo: &Repository, is_remote: bool, reference: &GitRef, subdir: &str) -> Result<Served, String> {
    let branch_ref = |name: &str| {
        if is_remote {
            format!("refs/remotes/origin/{name}")
        } else {
            format!("refs/heads/{name}")
        }
    };
    let find = |name: &str| repo.find_reference(name).and_then(|r| r.peel_to_commit());
    let commit = match reference {
        GitRef::Head if is_remote => find("refs/remotes/origin/HEAD"),
        GitRef::Head => repo.head().and_then(|r| r.peel_to_commit()),
        GitRef::Branch(name) => find(&branch_ref(name)).or_else(|_| find(&format!("refs/tags/{name}"))),
        GitRef::Tag(name) => find(&format!("refs/tags/{name}")),
        GitRef::Commit(id) => Oid::from_str(id).and_then(|oid| repo.find_commit(oid)),
    }
    .map_err(|e| match e.code() {
        ErrorCode::NotFound | ErrorCode::UnbornBranch => format!("{reference} does not exist"),
        _ => format!("cannot resolve {reference}: {}", e.message()),
    })?;
    let tree = commit.tree().map_err(|e| e.message().to_owned())?;
    let root = if subdir.is_empty() {
        Some(tree.id())
    } else {
        tree.get_path(Path::new(subdir))
            .ok()
            .filter(|entry| entry.kind() == Some(ObjectType::Tree))
            .map(|entry| entry.id())
    };
    let seconds = u64::try_from(commit.time().seconds()).unwrap_or(0);
    Ok(Served {
        commit: commit.id(),
        root,
        time: UNIX_EPOCH + Duration::from_secs(seconds),
        problem: None,
    })
}

/// Backend paths of the blobs that differ between two sub-directory trees.
fn changed_paths(repo: &Repository, old: Option<Oid>, new: Option<Oid>) -> Result<Vec<String>, git2::Error> {
    let old = old.map(|id| repo.find_tree(id)).transpose()?;
    let new = new.map(|id| repo.find_tree(id)).transpose()?;
    let diff = repo.diff_tree_to_tree(old.as_ref(), new.as_ref(), None)?;
    let mut paths: Vec<String> = diff
        .deltas()
        .flat_map(|delta| [delta.old_file().path(), delta.new_file().path()])
        .flatten()
        .filter_map(|p| p.to_str())
        .map(|p| format!("/{p}"))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    Ok(paths)
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

    /// One walk of the commit's trees in memory.
    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let normalized = path::normalize(path)?;
        let for_error = normalized.clone();
        self.blocking(
            move |b| b.walk_blocking(&normalized, max_depth),
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

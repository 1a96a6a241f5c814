//! The storage contract every backend implements.

use std::collections::VecDeque;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::BackendError;
use crate::file::{DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileError, FileErrorKind, FileInfo};
use crate::path;
use crate::skill_files::{ReadAhead, SkillFileRead};
use crate::watch::Watch;

/// Read access to a tree of files: local disk, object storage, a git tree, memory.
///
/// Object safe: the catalog and the CLI hold backends as `Arc<dyn BackendProtocol>`, and
/// `Arc<T>` of any backend is a backend too. Conveniences built on these methods
/// ([`BackendExt::download_file`]) live in [`BackendExt`], implemented for every backend,
/// so implementors cannot get them wrong.
///
/// # Contract
///
/// Paths are POSIX strings, absolute within the backend (`/skills/user/web/SKILL.md`).
/// Every method first checks its paths with [`path::normalize`]: `..` components, NUL,
/// backslashes, relative paths and anything that leads outside the backend's root
/// (symbolic links included) are [`BackendError::InvalidPath`] / `InvalidPath`, and
/// nothing outside the root is read.
///
/// ## `ls_info`
/// - Returns the immediate children of a directory, sorted by path (byte order).
/// - A path that does not exist is [`BackendError::NotFound`]; a file is
///   [`BackendError::NotADirectory`]. Never an empty list for either.
///
/// ## `download_files`
/// - Returns exactly one response per requested path, in the order asked.
/// - Partial success: one failing path does not fail the others.
/// - A file larger than [`max_file_size`](Self::max_file_size) answers `TooLarge`
///   **without being read**.
/// - A directory answers `IsDirectory`; a missing file `FileNotFound`.
///
/// ## `walk`
/// - Every entry under a directory down to `max_depth` levels (1 = the children), sorted
///   by path, plus the errors of sub-directories that could not be listed.
/// - The provided implementation lists directory by directory; backends that can list a
///   whole prefix at once (S3, git) override it, so a remote source costs O(pages).
///
/// ## `read_skill_files`
/// - One answer per path, in order: the parsed file, or the error `download_files` gives.
///
/// ## `child_files`
/// - The same entries as `walk(path, 2)` filtered to the children and the second-level
///   entries with the asked name; the same errors for the root.
#[async_trait]
pub trait BackendProtocol: Send + Sync + Debug {
    /// Lists the immediate children of the directory at `path`, sorted by path.
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError>;

    /// Reads files; one response per path, in the same order.
    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse>;

    /// The largest file, in bytes, that [`download_files`](Self::download_files) reads.
    fn max_file_size(&self) -> u64 {
        DEFAULT_MAX_FILE_SIZE
    }

    /// The backend's change notifications, if it has any (`None` by default: callers
    /// then reload on demand).
    fn as_watch(&self) -> Option<&dyn Watch> {
        None
    }

    /// Why the backend serves older content than its origin holds (a failed fetch, a
    /// deleted branch), while it does; `None` by default. Discovery reports it as a
    /// `source-stale` warning on each source of the backend.
    fn stale(&self) -> Option<String> {
        None
    }

    /// The version of the content served, when the backend has one to name (`git:<commit
    /// id>`); `None` by default. A lockfile records it.
    fn revision(&self) -> Option<String> {
        None
    }

    /// What the backend's origin offers that the backend does not serve, and why, as
    /// messages (an MCP server's file URI outside its skill, a skill over the
    /// extension's limits, a skill without digests); empty by default. Discovery
    /// reports each as a `withheld` warning on the source.
    fn withheld(&self) -> Vec<String> {
        Vec::new()
    }

    /// The backend's settings that decide what it gives for the same files (a
    /// filesystem's hard-link policy: a file read under one may be refused under
    /// another), as text; empty by default. A cache of what was read through the backend
    /// is kept under it, beside the files' etags.
    fn read_settings(&self) -> String {
        String::new()
    }

    /// Whether the backend identifies skills by path rather than by name (an MCP server,
    /// as the skills extension requires): a skill whose name an earlier folder of the same
    /// source declared is then kept, named by its folder's path below the source
    /// (`group/deploy`), instead of hiding the earlier one. `false` by default.
    fn skills_by_path(&self) -> bool {
        false
    }

    /// Lists everything under `path` down to `max_depth` levels, sorted by path.
    ///
    /// The root itself must be a listable directory (same errors as `ls_info`); a
    /// sub-directory that fails to list is reported in [`Walk::errors`] and skipped.
    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let root = path::normalize(path)?;
        let mut walk = Walk::default();
        if max_depth == 0 {
            self.ls_info(&root).await?;
            return Ok(walk);
        }
        let mut queue = VecDeque::from([(root, 1usize)]);
        let mut first = true;
        while let Some((dir, depth)) = queue.pop_front() {
            let children = match self.ls_info(&dir).await {
                Ok(children) => children,
                Err(err) if first => return Err(err),
                Err(err) => {
                    walk.errors.push(err);
                    continue;
                }
            };
            first = false;
            for child in children {
                if child.is_dir && depth < max_depth {
                    queue.push_back((child.path.clone(), depth + 1));
                }
                walk.entries.push(child);
            }
        }
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// The children of the directory at `path`, plus `<child>/<file_name>` of every child
    /// directory that has one: a [`walk`](Self::walk) of two levels that keeps, on the
    /// second level, only entries named `file_name` (for [`SKILL_FILE`](crate::SKILL_FILE),
    /// its lowercase form `skill.md` too: see [`file_name_matches`](crate::file_name_matches)). Sorted by path; a child directory
    /// that cannot be looked into is reported in [`Walk::errors`] under its own path.
    ///
    /// Discovery finds each source's `SKILL.md` files with it. The provided
    /// implementation filters `walk(path, 2)`; a backend where looking up one name is
    /// cheaper than listing a directory (local disk) overrides it.
    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        let mut walk = self.walk(path, 2).await?;
        walk.keep_child_files(&path::normalize(path)?, file_name);
        Ok(walk)
    }

    /// [`child_files`](Self::child_files) without the children themselves (only the
    /// `<child>/<file_name>` files below them) when `path` has at most `listed_over`
    /// entries; with them, as `child_files` gives them, when it has more. Discovery needs
    /// the first level only when it is over the entry limit, which then keeps its first
    /// entries: on a folder of 63,557 skill folders, an entry each, sorted among the
    /// files and then dropped, cost a warm start tens of milliseconds. Errors as in
    /// `child_files`.
    ///
    /// The provided implementation filters what `child_files` returns.
    async fn child_files_only(&self, path: &str, file_name: &str, listed_over: usize) -> Result<Walk, BackendError> {
        let mut walk = self.child_files(path, file_name).await?;
        let root = path::normalize(path)?;
        let children = walk.entries.iter().filter(|e| path::parent(&e.path) == root).count();
        if children <= listed_over {
            walk.entries.retain(|e| path::parent(&e.path) != root);
        }
        Ok(walk)
    }

    /// [`child_files_only`](Self::child_files_only), with each `<child>/<file_name>`
    /// found read and parsed right away, as [`read_skill_files`](Self::read_skill_files)
    /// would read it: for a discovery with no parse cached, which reads every file the
    /// walk finds. On local disk a file is then opened once instead of looked up by the
    /// walk and opened again by the read; the walk's entry for it comes from the opened
    /// file. A file the walk does not read is read the usual way later.
    ///
    /// The provided implementation reads nothing ahead.
    async fn child_files_read(
        &self,
        path: &str,
        file_name: &str,
        listed_over: usize,
    ) -> Result<(Walk, ReadAhead), BackendError> {
        Ok((
            self.child_files_only(path, file_name, listed_over).await?,
            ReadAhead::default(),
        ))
    }

    /// The files named `file_name` down to `max_depth` levels below `path`, for
    /// discovery deeper than one level (matched as in [`child_files`](Self::child_files)):
    /// a backend may leave out what lies inside a
    /// directory that holds `file_name` (a skill folder), inside a hidden directory
    /// (`.git`) or inside `node_modules`, and the other files it meets; it must keep every
    /// other `file_name` file (with its size and etag, as a listing gives them) and the
    /// directories on the way. Sorted by path; errors as in [`walk`](Self::walk).
    ///
    /// The provided implementation is `walk(path, max_depth)`; local disk, where a
    /// walk costs a `stat` per file, overrides it.
    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let _ = file_name;
        self.walk(path, max_depth).await
    }

    /// Reads the `SKILL.md` files at `paths` and parses each
    /// ([`parse_skill_file`](crate::parse_skill_file)): one answer per path, in order,
    /// with the error [`download_files`](Self::download_files) gives for a file it cannot
    /// read. Discovery reads every skill through it.
    ///
    /// The provided implementation downloads them and parses them over the cores; local
    /// disk parses each file on the thread that read it, while its bytes are still in
    /// that core's cache (on a large library, reading and parsing are most of discovery).
    async fn read_skill_files(&self, paths: &[String]) -> Vec<SkillFileRead> {
        let responses = self.download_files(paths).await;
        crate::skill_files::parse_downloads(responses).await
    }

    /// A [`walk`](Self::walk) of each of `paths`, `max_depth` levels down: one answer per
    /// path, in order. For the resources of many skill folders at once.
    ///
    /// The provided implementation runs 16 walks at a time; local disk shares the
    /// directories of all of them over its threads.
    async fn walk_each(&self, paths: &[String], max_depth: usize) -> Vec<Result<Walk, BackendError>> {
        use futures_util::StreamExt as _;
        // Collected first: a stream over a mapping closure is not `Send` here.
        let walks: Vec<_> = paths.iter().map(|path| self.walk(path, max_depth)).collect();
        futures_util::stream::iter(walks).buffered(16).collect().await
    }
}

/// Conveniences over [`BackendProtocol`], for every backend (including
/// `dyn BackendProtocol`).
#[async_trait]
pub trait BackendExt: BackendProtocol {
    /// Reads one file: [`download_files`](BackendProtocol::download_files) with one path,
    /// as a `Result`.
    async fn download_file(&self, path: &str) -> Result<Vec<u8>, FileError> {
        match self.download_files(&[path.to_owned()]).await.pop() {
            Some(response) => response.into_result(),
            None => Err(FileError {
                kind: FileErrorKind::Other,
                message: "the backend gave no answer".into(),
            }),
        }
    }
}

impl<T: BackendProtocol + ?Sized> BackendExt for T {}

/// A shared backend is a backend: every call goes to the one inside.
#[async_trait]
impl<T: BackendProtocol + ?Sized> BackendProtocol for Arc<T> {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        (**self).ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        (**self).download_files(paths).await
    }

    fn max_file_size(&self) -> u64 {
        (**self).max_file_size()
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        (**self).as_watch()
    }

    fn stale(&self) -> Option<String> {
        (**self).stale()
    }

    fn revision(&self) -> Option<String> {
        (**self).revision()
    }

    fn skills_by_path(&self) -> bool {
        (**self).skills_by_path()
    }

    fn read_settings(&self) -> String {
        (**self).read_settings()
    }

    fn withheld(&self) -> Vec<String> {
        (**self).withheld()
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        (**self).walk(path, max_depth).await
    }

    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        (**self).child_files(path, file_name).await
    }

    async fn child_files_only(&self, path: &str, file_name: &str, listed_over: usize) -> Result<Walk, BackendError> {
        (**self).child_files_only(path, file_name, listed_over).await
    }

    async fn child_files_read(
        &self,
        path: &str,
        file_name: &str,
        listed_over: usize,
    ) -> Result<(Walk, ReadAhead), BackendError> {
        (**self).child_files_read(path, file_name, listed_over).await
    }

    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        (**self).find_files(path, file_name, max_depth).await
    }

    async fn walk_each(&self, paths: &[String], max_depth: usize) -> Vec<Result<Walk, BackendError>> {
        (**self).walk_each(paths, max_depth).await
    }

    async fn read_skill_files(&self, paths: &[String]) -> Vec<SkillFileRead> {
        (**self).read_skill_files(paths).await
    }
}

/// The result of [`BackendProtocol::walk`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Files and directories found, sorted by path.
    pub entries: Vec<FileInfo>,
    /// Sub-directories that could not be listed.
    pub errors: Vec<BackendError>,
    /// Entries the backend does not serve, each as `path: why` (a link leading out of
    /// the source or to nothing, a special file, a symbolic link or submodule in a git
    /// tree). Discovery ignores them; whoever copies a skill whole (an installer, a
    /// publisher) refuses a skill with any, since a copy without them would not be the
    /// skill.
    pub left_out: Vec<String>,
}

impl Walk {
    /// Keeps of a two-level walk of `root` what
    /// [`child_files`](BackendProtocol::child_files) answers: `root`'s children, and the
    /// files below them named `file_name`. For a backend that answers `child_files` its
    /// own way for some folders and by a walk for the others.
    pub fn keep_child_files(&mut self, root: &str, file_name: &str) {
        self.entries
            .retain(|e| path::parent(&e.path) == root || crate::file_name_matches(path::file_name(&e.path), file_name));
    }
}

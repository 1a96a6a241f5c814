//! An in-memory backend for tests, examples and skills built into a binary.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Bound;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use async_trait::async_trait;

use crate::backend::BackendProtocol;
use crate::error::BackendError;
use crate::file::DEFAULT_MAX_FILE_SIZE;
use crate::file::{FileDownloadResponse, FileErrorKind, FileInfo};
use crate::path;

/// A tree of files held in memory. Directories exist implicitly while they hold a file.
///
/// Clones share the same files, so a test can keep a handle and edit the tree while a
/// middleware reads it.
///
/// ```
/// use skills_core::MemoryBackend;
/// let backend = MemoryBackend::new();
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: d\n---\n");
/// assert!(backend.insert("/skills/web/SKILL.md/x", "").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct MemoryBackend {
    files: Arc<RwLock<BTreeMap<String, StoredFile>>>,
    max_file_size: u64,
}

#[derive(Debug, Clone)]
struct StoredFile {
    content: Arc<[u8]>,
    etag: String,
    modified_at: SystemTime,
}

impl Default for MemoryBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryBackend {
    /// An empty tree with the default 10 MiB size limit.
    pub fn new() -> Self {
        Self {
            files: Arc::default(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }

    /// Sets the largest file `download_files` returns.
    pub fn with_max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// Creates or replaces the file at `path`, creating its directories.
    ///
    /// Fails with `InvalidPath` for a malformed path or `/`, with `NotADirectory` when a
    /// parent is a file, and with `Other` when `path` is a directory.
    pub fn insert(&self, path: &str, content: impl Into<Vec<u8>>) -> Result<(), BackendError> {
        let path = path::normalize(path)?;
        if path == "/" {
            return Err(BackendError::invalid_path(path, "the root is a directory"));
        }
        let mut files = self.write();
        let mut dir = path::parent(&path);
        while dir != "/" {
            if files.contains_key(dir) {
                return Err(BackendError::NotADirectory { path: dir.to_owned() });
            }
            dir = path::parent(dir);
        }
        if has_children(&files, &path) {
            return Err(BackendError::Other {
                path,
                message: "is a directory".into(),
            });
        }
        let content: Arc<[u8]> = content.into().into();
        let mut hasher = DefaultHasher::new();
        content.hash(&mut hasher);
        let etag = format!("{:016x}-{:x}", hasher.finish(), content.len());
        files.insert(
            path,
            StoredFile {
                content,
                etag,
                modified_at: SystemTime::now(),
            },
        );
        Ok(())
    }

    /// Removes the file at `path`, or every file under it when it is a directory.
    /// Returns how many files were removed.
    pub fn remove(&self, path: &str) -> usize {
        let Ok(path) = path::normalize(path) else { return 0 };
        let mut files = self.write();
        let before = files.len();
        files.retain(|p, _| !path::is_within(p, &path));
        before - files.len()
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, StoredFile>> {
        // A panic while holding the lock cannot leave the map half-written (each write
        // is one insert or retain), so a poisoned lock is still consistent.
        self.files.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, StoredFile>> {
        self.files.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// The entries under directory `dir`, in path order.
fn under<'a>(files: &'a BTreeMap<String, StoredFile>, dir: &str) -> impl Iterator<Item = (&'a String, &'a StoredFile)> {
    let prefix = if dir == "/" { "/".to_owned() } else { format!("{dir}/") };
    files
        .range::<String, _>((Bound::Included(prefix.clone()), Bound::Unbounded))
        .take_while(move |(p, _)| p.starts_with(&prefix))
}

fn has_children(files: &BTreeMap<String, StoredFile>, dir: &str) -> bool {
    under(files, dir).next().is_some()
}

#[async_trait]
impl BackendProtocol for MemoryBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let path = path::normalize(path)?;
        let files = self.read();
        if files.contains_key(&path) {
            return Err(BackendError::NotADirectory { path });
        }
        let base_len = if path == "/" { 1 } else { path.len() + 1 };
        let mut out: Vec<FileInfo> = Vec::new();
        for (file_path, file) in under(&files, &path) {
            let rest = &file_path[base_len..];
            match rest.split_once('/') {
                Some((dir_name, _)) => {
                    let dir_path = path::join(&path, dir_name);
                    if out.last().is_none_or(|last| last.path != dir_path) {
                        out.push(FileInfo::directory(dir_path));
                    }
                }
                None => out.push(FileInfo {
                    path: file_path.clone(),
                    is_dir: false,
                    size: file.content.len() as u64,
                    modified_at: Some(file.modified_at),
                    etag: Some(file.etag.clone()),
                    changed_at: None,
                }),
            }
        }
        if out.is_empty() && path != "/" {
            return Err(BackendError::NotFound { path });
        }
        // Map order puts "/a/b-c" before "/a/b/x"; a directory entry may therefore be
        // pushed after a sibling file that sorts after it.
        out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let files = self.read();
        paths
            .iter()
            .map(|asked| {
                let path = match path::normalize(asked) {
                    Ok(path) => path,
                    Err(e) => {
                        return FileDownloadResponse::err(asked.clone(), FileErrorKind::InvalidPath, e.to_string());
                    }
                };
                match files.get(&path) {
                    Some(file) if file.content.len() as u64 > self.max_file_size => FileDownloadResponse::err(
                        asked.clone(),
                        FileErrorKind::TooLarge,
                        format!(
                            "{} bytes, over the {}-byte limit",
                            file.content.len(),
                            self.max_file_size
                        ),
                    ),
                    Some(file) => FileDownloadResponse::ok(asked.clone(), file.content.to_vec()),
                    None if path == "/" || has_children(&files, &path) => {
                        FileDownloadResponse::err(asked.clone(), FileErrorKind::IsDirectory, "is a directory")
                    }
                    None => FileDownloadResponse::err(asked.clone(), FileErrorKind::FileNotFound, "no such file"),
                }
            })
            .collect()
    }

    fn max_file_size(&self) -> u64 {
        self.max_file_size
    }
}

//! Helpers shared by the catalog's tests.

#![allow(dead_code)] // Each test binary uses part of it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use skills_catalog::{PersistentCache, SkillCatalog, SkillSource};
use skills_core::{BackendError, BackendProtocol, FileDownloadResponse, FileInfo, ReadAhead, SkillFileRead, Walk};

/// A backend that counts the `SKILL.md` files read through it, whichever way.
#[derive(Debug)]
pub struct Counting {
    inner: Arc<dyn BackendProtocol>,
    reads: AtomicUsize,
    /// Of those, the files read by a walk as it found them.
    read_ahead: AtomicUsize,
}

impl Counting {
    pub fn new(inner: Arc<dyn BackendProtocol>) -> Arc<Self> {
        Arc::new(Self {
            inner,
            reads: AtomicUsize::new(0),
            read_ahead: AtomicUsize::new(0),
        })
    }

    /// The `SKILL.md` files read since the last `take`.
    pub fn take(&self) -> usize {
        self.reads.swap(0, Ordering::Relaxed)
    }

    /// The `SKILL.md` files read by walks as they found them, since the last call.
    pub fn take_read_ahead(&self) -> usize {
        self.read_ahead.swap(0, Ordering::Relaxed)
    }

    /// The `SKILL.md` files read in all (since the last `take`).
    pub fn reads(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl BackendProtocol for Counting {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let skill_files = paths.iter().filter(|p| p.ends_with("SKILL.md")).count();
        self.reads.fetch_add(skill_files, Ordering::Relaxed);
        self.inner.download_files(paths).await
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.inner.walk(path, max_depth).await
    }

    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        self.inner.child_files(path, file_name).await
    }

    async fn child_files_only(&self, path: &str, file_name: &str, listed_over: usize) -> Result<Walk, BackendError> {
        self.inner.child_files_only(path, file_name, listed_over).await
    }

    async fn child_files_read(
        &self,
        path: &str,
        file_name: &str,
        listed_over: usize,
    ) -> Result<(Walk, ReadAhead), BackendError> {
        let (walk, read) = self.inner.child_files_read(path, file_name, listed_over).await?;
        self.reads.fetch_add(read.len(), Ordering::Relaxed);
        self.read_ahead.fetch_add(read.len(), Ordering::Relaxed);
        Ok((walk, read))
    }

    async fn read_skill_files(&self, paths: &[String]) -> Vec<SkillFileRead> {
        self.reads.fetch_add(paths.len(), Ordering::Relaxed);
        self.inner.read_skill_files(paths).await
    }
}

/// The files of the cache folder `dir` with the extension `ext` (`cache`, `listing`,
/// `index`, `words`).
pub fn cache_files(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == ext));
    files
}

/// Removes the files of the cache folder `dir` with each extension of `exts`.
pub fn remove_cache_files(dir: &std::path::Path, exts: &[&str]) {
    for file in exts.iter().flat_map(|ext| cache_files(dir, ext)) {
        std::fs::remove_file(file).unwrap();
    }
}

/// A catalog of the library at `/skills` of `backend`, listing resources when a skill
/// needs them (as the command line and the MCP server do: only then is a source's whole
/// listing kept), with `cache` when given.
pub fn catalog(backend: Arc<dyn BackendProtocol>, cache: Option<&PersistentCache>) -> SkillCatalog {
    let source = SkillSource::new(backend, "/skills").with_spec("test-library");
    let catalog = SkillCatalog::new(vec![source]).with_lazy_resources(true);
    match cache {
        Some(cache) => catalog.with_persistent_cache(cache.clone()),
        None => catalog,
    }
}

/// What a catalog lists, as text.
pub async fn listed(catalog: &SkillCatalog) -> String {
    let snapshot = catalog.ensure_loaded().await;
    format!(
        "{}\n{}",
        serde_json::to_string(snapshot.skills()).unwrap(),
        serde_json::to_string(snapshot.diagnostics()).unwrap()
    )
}

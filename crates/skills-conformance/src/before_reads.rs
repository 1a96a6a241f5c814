//! [`BeforeReads`]: a backend wrapper whose hook runs between a listing and its reads.

use std::fmt;

use async_trait::async_trait;
use skills_core::{BackendError, BackendProtocol, FileDownloadResponse, FileInfo, Walk, Watch};

/// A backend that calls a hook with the paths of every
/// [`download_files`](BackendProtocol::download_files) batch before passing it on, and
/// passes everything else to the wrapped backend unchanged. For tests of what happens
/// between a listing and its reads (a file deleted, a server stopped) and of how reads
/// are batched.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::{Arc, Mutex};
/// use skills_conformance::BeforeReads;
/// use skills_core::{list_skills, MemoryBackend};
/// let batches = Arc::new(Mutex::new(Vec::new()));
/// let seen = batches.clone();
/// let backend = BeforeReads::new(MemoryBackend::new(), move |paths| seen.lock().unwrap().push(paths.len()));
/// backend.inner().insert("/s/web/SKILL.md", "---\nname: web\ndescription: Web\n---\n").unwrap();
/// list_skills(&backend, "/s").await.unwrap();
/// assert_eq!(*batches.lock().unwrap(), [1]);
/// # });
/// ```
pub struct BeforeReads<B> {
    inner: B,
    hook: Box<ReadHook>,
}

/// What [`BeforeReads`] calls with each batch of paths.
type ReadHook = dyn Fn(&[String]) + Send + Sync;

impl<B> BeforeReads<B> {
    /// Wraps `inner`; `hook` sees every batch of paths before `inner` reads it.
    pub fn new(inner: B, hook: impl Fn(&[String]) + Send + Sync + 'static) -> Self {
        Self {
            inner,
            hook: Box::new(hook),
        }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

impl<B: fmt::Debug> fmt::Debug for BeforeReads<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BeforeReads")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<B: BackendProtocol> BackendProtocol for BeforeReads<B> {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        (self.hook)(paths);
        self.inner.download_files(paths).await
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size()
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        self.inner.as_watch()
    }

    fn stale(&self) -> Option<String> {
        self.inner.stale()
    }

    fn revision(&self) -> Option<String> {
        self.inner.revision()
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

    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.inner.find_files(path, file_name, max_depth).await
    }
}

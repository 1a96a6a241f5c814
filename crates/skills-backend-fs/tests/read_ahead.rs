//! `child_files_read`: the walk of a source that also reads each child's `SKILL.md` as it
//! opens it. It must say what `child_files_only` says of every child (the same entries,
//! etags, errors and entries left out), read ahead only plain files it may read, and
//! give discovery what reading the files afterwards gives, with each file read once.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use skills_backend_fs::FilesystemBackend;
use skills_core::{
    BackendError, BackendProtocol, Discovery, FileDownloadResponse, FileInfo, ParseCache, ReadAhead, SkillFileRead,
    Walk,
};

/// Larger than this, a `SKILL.md` is over the backend's limit.
const LIMIT: u64 = 4096;

/// Skill folders of every kind the walk meets: plain ones (enough for several threads),
/// a lowercase `skill.md`, a `SKILL.md` that is a folder, one that is a link, one with a
/// second hard link, one over the size limit, one that is a FIFO, a link to a skill
/// folder, and a folder without one.
fn source(root: &Path) {
    let src = root.join("src");
    let skill = |dir: &str, file: &str| {
        std::fs::create_dir_all(src.join(dir)).unwrap();
        let text = format!("---\nname: {dir}\ndescription: The {dir} skill\n---\n# {dir}\n");
        std::fs::write(src.join(dir).join(file), text).unwrap();
    };
    for i in 0..300 {
        skill(&format!("s{i:03}"), "SKILL.md");
    }
    skill("a", "SKILL.md");
    skill("lower", "skill.md");
    std::fs::create_dir_all(src.join("folder-as-file/SKILL.md")).unwrap();
    skill("linked-file", "other.md");
    symlink("other.md", src.join("linked-file/SKILL.md")).unwrap();
    skill("hard", "SKILL.md");
    std::fs::hard_link(src.join("hard/SKILL.md"), root.join("second-link.md")).unwrap();
    std::fs::create_dir_all(src.join("large")).unwrap();
    let large = format!("---\nname: large\ndescription: d\n---\n{}", "x".repeat(LIMIT as usize));
    std::fs::write(src.join("large/SKILL.md"), large).unwrap();
    std::fs::create_dir_all(src.join("pipe")).unwrap();
    let fifo = src.join("pipe/SKILL.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    symlink("a", src.join("a-link")).unwrap();
    std::fs::create_dir_all(src.join("empty/scripts")).unwrap();
}

fn backend(root: &Path, threads: usize) -> FilesystemBackend {
    FilesystemBackend::new(root)
        .unwrap()
        .with_parallelism(threads)
        .with_max_file_size(LIMIT)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_walk_that_reads_says_what_the_walk_says_and_reads_only_plain_files() {
    let dir = tempfile::tempdir().unwrap();
    source(dir.path());
    for threads in [1, 2, 5] {
        let backend = backend(dir.path(), threads);
        let walk = backend.child_files_only("/src", "SKILL.md", 10_000).await.unwrap();
        let (read_walk, read) = backend.child_files_read("/src", "SKILL.md", 10_000).await.unwrap();
        // Every entry whole: its etag, times and kind from the open file's `fstat`.
        assert_eq!(read_walk, walk, "{threads} threads");
        let mut expected: Vec<String> = (0..300).map(|i| format!("/src/s{i:03}/SKILL.md")).collect();
        expected.extend(["/src/a/SKILL.md", "/src/lower/skill.md"].map(String::from));
        expected.sort();
        let read: Vec<&str> = read.paths().collect();
        assert_eq!(read, expected, "{threads} threads: plain files only, in path order");
    }
}

#[tokio::test]
async fn over_the_entry_limit_the_general_walk_answers_and_reads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    source(dir.path());
    let backend = backend(dir.path(), 2);
    let walk = backend.child_files_only("/src", "SKILL.md", 5).await.unwrap();
    let (read_walk, read) = backend.child_files_read("/src", "SKILL.md", 5).await.unwrap();
    assert_eq!(read_walk, walk);
    assert!(read.is_empty());
}

/// A backend that counts the files read after the walk.
#[derive(Debug)]
struct CountingReads {
    inner: FilesystemBackend,
    read: AtomicUsize,
    /// Whether every file its walks find says it changed at the walk's end.
    changed_during_walks: bool,
}

impl CountingReads {
    fn new(inner: FilesystemBackend, changed_during_walks: bool) -> Arc<Self> {
        Arc::new(Self {
            inner,
            read: AtomicUsize::new(0),
            changed_during_walks,
        })
    }

    /// `walk`, its files changed at its end if this backend says so (and a moment
    /// passed since).
    fn walked(&self, mut walk: Walk) -> Walk {
        if self.changed_during_walks {
            let now = SystemTime::now();
            for entry in &mut walk.entries {
                entry.changed_at = Some(now);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        walk
    }
}

#[async_trait]
impl BackendProtocol for CountingReads {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.read.fetch_add(paths.len(), Ordering::Relaxed);
        self.inner.download_files(paths).await
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size()
    }

    async fn child_files_only(&self, path: &str, file_name: &str, listed_over: usize) -> Result<Walk, BackendError> {
        self.inner
            .child_files_only(path, file_name, listed_over)
            .await
            .map(|w| self.walked(w))
    }

    async fn child_files_read(
        &self,
        path: &str,
        file_name: &str,
        listed_over: usize,
    ) -> Result<(Walk, ReadAhead), BackendError> {
        let (walk, read) = self.inner.child_files_read(path, file_name, listed_over).await?;
        Ok((self.walked(walk), read))
    }

    async fn read_skill_files(&self, paths: &[String]) -> Vec<SkillFileRead> {
        self.read.fetch_add(paths.len(), Ordering::Relaxed);
        self.inner.read_skill_files(paths).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discovery_that_reads_ahead_lists_what_one_that_reads_after_lists() {
    let dir = tempfile::tempdir().unwrap();
    source(dir.path());
    let counting = CountingReads::new(backend(dir.path(), 2), false);
    let after = Discovery::new(&*counting, "/src").run().await.unwrap();
    // Every skill file but the folder, the FIFO and the one over the limit (the linked
    // folder's too).
    assert_eq!(counting.read.swap(0, Ordering::Relaxed), 305);
    let ahead = Discovery::new(&*counting, "/src").read_ahead(true).run().await.unwrap();
    assert_eq!(ahead, after);
    // The linked folder's skill is hidden by the one it links to.
    assert_eq!(ahead.skills.len(), 304);
    // Read after the walk: only the file through a link, the one in the linked folder
    // and the one with a second hard link.
    assert_eq!(counting.read.load(Ordering::Relaxed), 3);
}

/// A discovery that read ahead counts its files as read when its walk started: one that
/// changed during the walk is not kept as verified (the cache's racy window counts from
/// then), where a file read after a walk that read nothing, which changed before that
/// read, is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_changed_during_the_walk_that_read_it_is_not_kept_verified() {
    let dir = tempfile::tempdir().unwrap();
    source(dir.path());
    let touched = CountingReads::new(backend(dir.path(), 2), true);
    let kept = |cache: &ParseCache| ParseCache::from_bytes(cache.to_bytes()).unwrap().len();
    let mut after = ParseCache::new().with_racy_window(Duration::ZERO);
    Discovery::new(&*touched, "/src").cache(&mut after).run().await.unwrap();
    assert_eq!(kept(&after), 305, "read after the walk, after the change");
    let mut ahead = ParseCache::new().with_racy_window(Duration::ZERO);
    let discovery = Discovery::new(&*touched, "/src").read_ahead(true);
    discovery.cache(&mut ahead).run().await.unwrap();
    // The files read after that walk count from its start too: none is kept.
    assert_eq!(kept(&ahead), 0, "read ahead, before the change");
}

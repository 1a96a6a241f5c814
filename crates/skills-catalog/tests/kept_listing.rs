//! A source's kept listing: what a warm start whose walk finds the same files serves,
//! and what it does not serve once a file changed.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;

use skills_catalog::{PersistentCache, SkillCatalog, SkillSource, read_cache_file, write_cache_file};
use skills_core::{BackendError, BackendProtocol, FileDownloadResponse, FileInfo, MemoryBackend, SkillListing, Walk};

fn catalog(backend: Arc<MemoryBackend>, cache: &PersistentCache) -> SkillCatalog {
    let source = SkillSource::new(backend, "/skills").with_spec("kept-listing");
    SkillCatalog::new(vec![source])
        .with_lazy_resources(true)
        .with_persistent_cache(cache.clone())
}

/// Changes the description of `skill` in the listing kept in the cache folder `dir`,
/// behind the catalog's back and under the listing's own key: what a warm start then
/// says comes from the listing, not from a parse of the files.
fn edit_kept_listing(dir: &std::path::Path, skill: &str, description: &str) {
    let file = common::cache_files(dir, "listing").pop().expect("a kept listing");
    let text = std::fs::read(&file).unwrap();
    let key_line = text.split(|&b| b == b'\n').nth(2).unwrap();
    let key: String = serde_json::from_slice(key_line).unwrap();
    let mut listing = SkillListing::from_bytes(&read_cache_file(&file, &key).unwrap()).unwrap();
    listing.skills.iter_mut().find(|s| s.name == skill).unwrap().description = description.to_owned();
    write_cache_file(&file, &key, &listing.to_bytes()).unwrap();
}

/// A library of two skills, `web` and `pdf`, each described as "The NAME skill".
fn web_and_pdf() -> Arc<MemoryBackend> {
    let backend = Arc::new(MemoryBackend::new());
    for name in ["web", "pdf"] {
        let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n");
        backend.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
    }
    backend
}

async fn description(catalog: &SkillCatalog, name: &str) -> String {
    catalog.ensure_loaded().await.get(name).unwrap().description.clone()
}

#[tokio::test]
async fn a_warm_start_serves_the_kept_listing_until_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = web_and_pdf();
    assert_eq!(
        description(&catalog(backend.clone(), &cache), "web").await,
        "The web skill"
    );

    // Change the kept listing behind the catalog's back, under its own key: a warm
    // start serves what the listing says, not a parse of the files.
    edit_kept_listing(dir.path(), "web", "From the kept listing");
    assert_eq!(
        description(&catalog(backend.clone(), &cache), "web").await,
        "From the kept listing"
    );

    // Any file's change (here another skill's) makes the listing another's: the files
    // are read through the parse cache again.
    backend
        .insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Edited\n---\n")
        .unwrap();
    let warm = catalog(backend.clone(), &cache);
    assert_eq!(description(&warm, "web").await, "The web skill");
    assert_eq!(description(&warm, "pdf").await, "Edited");
}

#[tokio::test]
async fn a_reload_after_a_kept_listing_keeps_every_parse() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = Arc::new(MemoryBackend::new());
    for name in ["web", "pdf", "sql"] {
        let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n");
        backend.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
    }
    catalog(backend.clone(), &cache).ensure_loaded().await;

    // A warm start takes the kept listing and leaves the parses in their file; a reload
    // narrowed to the edited folder (as a watch makes) loads them before it keeps them.
    let warm = catalog(backend.clone(), &cache);
    warm.ensure_loaded().await;
    assert_eq!(warm.stats().files_read, 0);
    backend
        .insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Edited\n---\n")
        .unwrap();
    warm.reload_paths(0, &["/skills/pdf/SKILL.md".to_owned()]).await;
    assert_eq!(description(&warm, "pdf").await, "Edited");
    assert_eq!(warm.stats().files_read, 1);

    // The next start finds the listing stale and every parse kept: it reads nothing.
    let next = catalog(backend.clone(), &cache);
    assert_eq!(description(&next, "pdf").await, "Edited");
    assert_eq!(description(&next, "web").await, "The web skill");
    assert_eq!(next.stats().files_read, 0);
}

#[tokio::test]
async fn a_library_with_a_lowercase_skill_file_keeps_its_listing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = Arc::new(MemoryBackend::new());
    backend
        .insert(
            "/skills/web/SKILL.md",
            "---\nname: web\ndescription: The web skill\n---\n",
        )
        .unwrap();
    backend
        .insert(
            "/skills/old/skill.md",
            "---\nname: old\ndescription: The old skill\n---\n",
        )
        .unwrap();
    let cold = catalog(backend.clone(), &cache).ensure_loaded().await;
    let lowercase = |snapshot: &skills_catalog::CatalogSnapshot| {
        snapshot
            .diagnostics()
            .iter()
            .filter(|d| d.kind == skills_core::DiagnosticKind::LowercaseSkillFile)
            .map(|d| d.path.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(lowercase(&cold), ["/skills/old/skill.md"]);

    // The listing was kept, and a warm start serves it (here changed behind the
    // catalog's back, under its own key), with the warning once, as a cold start says it.
    edit_kept_listing(dir.path(), "old", "Kept");
    let warm = catalog(backend.clone(), &cache).ensure_loaded().await;
    assert_eq!(warm.get("old").unwrap().description, "Kept");
    assert_eq!(lowercase(&warm), ["/skills/old/skill.md"]);

    // Renaming it to `SKILL.md` is a change of the files: read again, no warning.
    assert_eq!(backend.remove("/skills/old/skill.md"), 1);
    backend
        .insert(
            "/skills/old/SKILL.md",
            "---\nname: old\ndescription: The old skill\n---\n",
        )
        .unwrap();
    let renamed = catalog(backend, &cache).ensure_loaded().await;
    assert_eq!(renamed.get("old").unwrap().description, "The old skill");
    assert!(lowercase(&renamed).is_empty());
}

#[tokio::test]
async fn a_damaged_kept_listing_is_read_past_and_kept_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = web_and_pdf();
    let fresh = catalog(backend.clone(), &cache).ensure_loaded().await;

    // The last byte of the payload changed: the header (and the digest of the files it
    // was kept for) still matches, the checksum does not.
    let file = common::cache_files(dir.path(), "listing")
        .pop()
        .expect("a kept listing");
    let mut bytes = std::fs::read(&file).unwrap();
    *bytes.last_mut().unwrap() ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();

    let warm = catalog(backend.clone(), &cache).ensure_loaded().await;
    assert_eq!(warm.skills(), fresh.skills());
    assert_eq!(warm.diagnostics(), fresh.diagnostics());
    // The start that read past it kept the listing again, whole.
    assert!(
        std::fs::read(&file).unwrap() != bytes,
        "the damaged listing was not kept again"
    );
    edit_kept_listing(dir.path(), "web", "From the kept listing");
    assert_eq!(
        description(&catalog(backend, &cache), "web").await,
        "From the kept listing"
    );
}

/// A backend that names a revision of what it serves, as a git backend names its commit,
/// and counts the listings asked of it.
#[derive(Debug)]
struct AtRevision {
    inner: Arc<MemoryBackend>,
    revision: std::sync::Mutex<String>,
    stale: std::sync::Mutex<Option<String>>,
    listings: std::sync::atomic::AtomicUsize,
    /// A commit the backend moves to right after its next listing: the revision, and a
    /// skill file it changes.
    move_after_listing: std::sync::Mutex<Option<(String, String, String)>>,
}

impl AtRevision {
    fn new(inner: Arc<MemoryBackend>, revision: &str) -> Arc<Self> {
        Arc::new(Self {
            inner,
            revision: std::sync::Mutex::new(revision.to_owned()),
            stale: std::sync::Mutex::new(None),
            listings: std::sync::atomic::AtomicUsize::new(0),
            move_after_listing: std::sync::Mutex::new(None),
        })
    }

    fn listed(&self) -> usize {
        self.listings.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Counts a listing just made, then makes the move waiting for it, if any.
    fn count(&self) {
        self.listings.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some((revision, path, text)) = self.move_after_listing.lock().unwrap().take() {
            self.inner.insert(&path, text).unwrap();
            *self.revision.lock().unwrap() = revision;
        }
    }
}

#[async_trait::async_trait]
impl BackendProtocol for AtRevision {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let listed = self.inner.ls_info(path).await;
        self.count();
        listed
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.inner.download_files(paths).await
    }

    fn stale(&self) -> Option<String> {
        self.stale.lock().unwrap().clone()
    }

    fn revision(&self) -> Option<String> {
        Some(self.revision.lock().unwrap().clone())
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let listed = self.inner.walk(path, max_depth).await;
        self.count();
        listed
    }

    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        let listed = self.inner.child_files(path, file_name).await;
        self.count();
        listed
    }

    async fn child_files_only(&self, path: &str, file_name: &str, listed_over: usize) -> Result<Walk, BackendError> {
        let listed = self.inner.child_files_only(path, file_name, listed_over).await;
        self.count();
        listed
    }

    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let listed = self.inner.find_files(path, file_name, max_depth).await;
        self.count();
        listed
    }
}

fn catalog_at(backend: &Arc<AtRevision>, cache: &PersistentCache) -> SkillCatalog {
    let source = SkillSource::new(backend.clone(), "/skills").with_spec("at-revision");
    SkillCatalog::new(vec![source])
        .with_lazy_resources(true)
        .with_persistent_cache(cache.clone())
}

#[tokio::test]
async fn a_start_at_the_revision_a_listing_was_kept_at_lists_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = AtRevision::new(web_and_pdf(), "git:1");
    let cold = catalog_at(&backend, &cache).ensure_loaded().await;
    assert!(backend.listed() > 0);
    assert_eq!(cold.skills().len(), 2);

    // The same revision: the kept listing is served and the source is not listed.
    edit_kept_listing(dir.path(), "web", "From the kept listing");
    let before = backend.listed();
    let warm = catalog_at(&backend, &cache);
    assert_eq!(description(&warm, "web").await, "From the kept listing");
    assert_eq!(
        backend.listed(),
        before,
        "a source at its listing's revision was listed"
    );
    assert_eq!(warm.stats().files_read, 0);
    // A reload after it still finds a change.
    backend
        .inner
        .insert(
            "/skills/sql/SKILL.md",
            "---\nname: sql\ndescription: The sql skill\n---\n",
        )
        .unwrap();
    *backend.revision.lock().unwrap() = "git:2".into();
    warm.reload().await;
    assert_eq!(description(&warm, "sql").await, "The sql skill");

    // Another revision: walked, and what changed is read.
    let moved = catalog_at(&backend, &cache);
    assert_eq!(description(&moved, "sql").await, "The sql skill");
    assert_eq!(description(&moved, "web").await, "The web skill");
    assert!(backend.listed() > before);

    // A stale backend (a fetch failed) is walked whatever its revision, and its files
    // are read through their parses: its listing says it is stale, which a kept listing
    // does not.
    edit_kept_listing(dir.path(), "web", "From the kept listing");
    *backend.stale.lock().unwrap() = Some("the fetch failed".into());
    let before = backend.listed();
    let stale = catalog_at(&backend, &cache).ensure_loaded().await;
    assert!(backend.listed() > before);
    assert!(
        stale
            .diagnostics()
            .iter()
            .any(|d| d.kind == skills_core::DiagnosticKind::SourceStale),
        "{:?}",
        stale.diagnostics()
    );
    assert_eq!(stale.get("web").unwrap().description, "The web skill");
}

#[tokio::test]
async fn a_listing_kept_without_a_revision_is_not_taken_unwalked() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let memory = web_and_pdf();
    // Kept by a source of the same spec whose backend named no revision.
    let source = SkillSource::new(memory.clone(), "/skills").with_spec("at-revision");
    let plain = SkillCatalog::new(vec![source])
        .with_lazy_resources(true)
        .with_persistent_cache(cache.clone());
    plain.ensure_loaded().await;
    // Then one file changed: a backend at a revision must walk to see it.
    memory
        .insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Edited\n---\n")
        .unwrap();
    let backend = AtRevision::new(memory, "git:1");
    let warm = catalog_at(&backend, &cache);
    assert_eq!(description(&warm, "pdf").await, "Edited");
    assert!(backend.listed() > 0);
}

#[tokio::test]
async fn a_listing_walked_while_its_backend_moved_names_no_revision() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = AtRevision::new(web_and_pdf(), "git:1");
    // The walk sees commit 1's files, then the backend moves to commit 2, which changes
    // `web`: the listing of commit 1's files may not be kept as commit 2's.
    *backend.move_after_listing.lock().unwrap() = Some((
        "git:2".into(),
        "/skills/web/SKILL.md".into(),
        "---\nname: web\ndescription: At commit 2\n---\n".into(),
    ));
    let moving = catalog_at(&backend, &cache).ensure_loaded().await;
    assert!(moving.get("web").is_some());
    // The next start, at commit 2, walks and reads commit 2's `web`.
    let before = backend.listed();
    let next = catalog_at(&backend, &cache);
    assert_eq!(description(&next, "web").await, "At commit 2");
    assert!(backend.listed() > before);
}

#[tokio::test]
async fn an_answer_at_the_revision_its_files_were_kept_at_lists_nothing() {
    use skills_catalog::FirstLoad;
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = AtRevision::new(web_and_pdf(), "git:1");
    let first = catalog_at(&backend, &cache);
    assert!(matches!(first.load_or_answer("q").await, FirstLoad::Loaded(_)));
    let mut writer = first.answer_writer("q").await.unwrap();
    writer.write_all(b"two skills").unwrap();
    writer.finish().unwrap();

    // The same revision: answered without a listing of the source.
    let before = backend.listed();
    let FirstLoad::Answered(answer) = catalog_at(&backend, &cache).load_or_answer("q").await else {
        panic!("not answered at the same revision");
    };
    assert_eq!((answer.as_slice(), backend.listed()), (&b"two skills"[..], before));

    // A stale backend says more than its files: loaded, walked, and it says so.
    *backend.stale.lock().unwrap() = Some("the fetch failed".into());
    let FirstLoad::Loaded(stale) = catalog_at(&backend, &cache).load_or_answer("q").await else {
        panic!("a stale backend was answered from its files");
    };
    assert!(backend.listed() > before);
    assert!(
        stale
            .diagnostics()
            .iter()
            .any(|d| d.kind == skills_core::DiagnosticKind::SourceStale)
    );
}

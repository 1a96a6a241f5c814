//! Kept answers: a catalog whose sources hold the very files an answer was kept for
//! gives it back without loading; any change to those files (an edit that keeps size
//! and mtime, a file replaced by a rename, a skill deleted or added), another question,
//! other sources, a damaged or foreign answer file, a lock or a reload means the
//! catalog is loaded, and answers as a catalog without the cache.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::cache_files;
use skills_backend_fs::FilesystemBackend;
use skills_catalog::{FirstLoad, PersistentCache, SkillCatalog, SkillSource, lock::Lock, write_cache_file};

const WINDOW: Duration = Duration::from_millis(50);

/// A folder of skills on disk (one with a warning, one skipped), settled.
fn library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (folder, text) in [
        (
            "web",
            "---\nname: web\ndescription: Search the web\n---\nFetch pages.\n",
        ),
        ("pdf", "---\nname: pdf\ndescription: Read PDF files\n---\nOpen them.\n"),
        (
            "Mixed",
            "---\nname: mixed\ndescription: A folder named otherwise\n---\n",
        ),
        ("nofront", "Just text.\n"),
    ] {
        write(dir.path(), folder, text);
    }
    settle();
    dir
}

/// An empty cache folder, and the cache in it with the tests' racy window.
fn new_cache() -> (tempfile::TempDir, PersistentCache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path()).with_racy_window(WINDOW);
    (dir, cache)
}

fn write(root: &Path, folder: &str, text: &str) {
    std::fs::create_dir_all(root.join(folder)).unwrap();
    std::fs::write(root.join(folder).join("SKILL.md"), text).unwrap();
}

/// Past the racy window: what was just written can be vouched for.
fn settle() {
    std::thread::sleep(WINDOW * 3);
}

fn catalog(root: &Path, cache: Option<&PersistentCache>) -> SkillCatalog {
    let backend = FilesystemBackend::new(root).unwrap().with_virtual_mode(false).unwrap();
    let path = backend.root_path().to_owned();
    let source = SkillSource::new(Arc::new(backend), path.clone()).with_spec(path);
    let catalog = SkillCatalog::new(vec![source]).with_resources(false);
    match cache {
        Some(cache) => catalog.with_persistent_cache(cache.clone()),
        None => catalog,
    }
}

/// What a program would print of a catalog: its skills and diagnostics.
async fn made_of(catalog: &SkillCatalog) -> String {
    let snapshot = catalog.ensure_loaded().await;
    let skills = serde_json::to_string(snapshot.skills()).unwrap();
    let diagnostics = serde_json::to_string(snapshot.diagnostics()).unwrap();
    format!("{skills}\n{diagnostics}")
}

/// One process: the answer to `question` kept by an earlier one, or made (and kept
/// when the files vouch for it); whether it was kept before.
async fn ask(root: &Path, cache: &PersistentCache, question: &str) -> (String, bool) {
    let catalog = catalog(root, Some(cache));
    match catalog.load_or_answer(question).await {
        FirstLoad::Answered(answer) => {
            assert_eq!(catalog.snapshot().version(), 0, "answered without loading");
            assert_eq!(catalog.stats().files_read, 0);
            (String::from_utf8(answer).unwrap(), true)
        }
        FirstLoad::Loaded(snapshot) => {
            assert_eq!(snapshot.version(), 1);
            let made = made_of(&catalog).await;
            if let Some(mut writer) = catalog.answer_writer(question).await {
                writer.write_all(made.as_bytes()).unwrap();
                let mut written = String::new();
                writer.finish().unwrap().read_to_string(&mut written).unwrap();
                assert_eq!(written, made, "the answer is read back as written");
            }
            (made, false)
        }
    }
}

/// What a catalog without the cache makes of `root`.
async fn plain(root: &Path) -> String {
    made_of(&catalog(root, None)).await
}

#[tokio::test]
async fn the_same_files_give_the_kept_answer_and_any_change_is_seen() {
    let root = library();
    let (dir, cache) = new_cache();
    let expected = plain(root.path()).await;
    assert_eq!(ask(root.path(), &cache, "q").await, (expected.clone(), false));
    assert_eq!(cache_files(dir.path(), "answer").len(), 1);
    assert_eq!(ask(root.path(), &cache, "q").await, (expected.clone(), true));
    // Another question of the same files is not this one's answer.
    assert_eq!(ask(root.path(), &cache, "other").await, (expected.clone(), false));
    assert_eq!(ask(root.path(), &cache, "q").await, (expected, true));

    let web = root.path().join("web/SKILL.md");
    let changes: [(&str, &dyn Fn()); 4] = [
        ("an edit that keeps size and mtime", &|| {
            edit_keeping_mtime(&web, "Search", "Scrape", false)
        }),
        ("a file replaced by a rename", &|| {
            edit_keeping_mtime(&web, "Scrape", "Browse", true)
        }),
        ("a skill deleted", &|| {
            std::fs::remove_dir_all(root.path().join("pdf")).unwrap()
        }),
        ("a skill added", &|| {
            write(root.path(), "csv", "---\nname: csv\ndescription: Sort CSV rows\n---\n")
        }),
    ];
    for (what, change) in changes {
        change();
        let expected = plain(root.path()).await;
        let (answer, kept) = ask(root.path(), &cache, "q").await;
        assert!(!kept, "{what}: the answer kept for the files before");
        assert_eq!(answer, expected, "{what}");
        // A file changed just now is kept for once the change is past the racy window.
        settle();
        assert_eq!(ask(root.path(), &cache, "q").await.0, expected, "{what}");
        assert_eq!(
            ask(root.path(), &cache, "q").await,
            (expected, true),
            "{what}: kept again"
        );
    }
    let text = plain(root.path()).await;
    assert!(text.contains("Browse the web") && text.contains("csv") && !text.contains("\"pdf\""));
}

/// Replaces `from` with `to` (as long) in the file at `path`, keeping its mtime.
fn edit_keeping_mtime(path: &Path, from: &str, to: &str, by_rename: bool) {
    let before = std::fs::metadata(path).unwrap();
    let text = std::fs::read_to_string(path).unwrap().replace(from, to);
    assert_eq!(before.len(), text.len() as u64, "the edit keeps the size");
    if by_rename {
        let temporary = path.with_extension("new");
        std::fs::write(&temporary, &text).unwrap();
        std::fs::rename(&temporary, path).unwrap();
    } else {
        std::fs::write(path, &text).unwrap();
    }
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_times(std::fs::FileTimes::new().set_modified(before.modified().unwrap()))
        .unwrap();
}

#[tokio::test]
async fn a_damaged_or_foreign_answer_is_never_given() {
    let root = library();
    let (dir, cache) = new_cache();
    let expected = plain(root.path()).await;
    ask(root.path(), &cache, "q").await;
    let file = cache_files(dir.path(), "answer").pop().unwrap();
    let whole = std::fs::read(&file).unwrap();
    let key_line = whole.split(|&b| b == b'\n').nth(2).unwrap().to_vec();
    let key: String = serde_json::from_slice(&key_line).unwrap();
    let damaged: [(&str, Vec<u8>); 5] = [
        ("empty", Vec::new()),
        ("truncated", whole[..whole.len() - 10].to_vec()),
        ("a byte flipped", {
            let mut flipped = whole.clone();
            let last = flipped.len() - 1;
            flipped[last] ^= 1;
            flipped
        }),
        ("garbage", b"\xff\xfe not a cache".to_vec()),
        ("kept for other files", {
            // The same question and sources, files of another digest: written as a
            // process of another library would.
            let other = format!("{} {:032x}", &key[..key.rfind(' ').unwrap()], 7);
            write_cache_file(&file, &other, b"an answer of other files").unwrap();
            std::fs::read(&file).unwrap()
        }),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(ask(root.path(), &cache, "q").await, (expected.clone(), false), "{what}");
        assert_eq!(
            ask(root.path(), &cache, "q").await,
            (expected.clone(), true),
            "{what}: rewritten"
        );
    }
}

#[tokio::test]
async fn nothing_but_the_files_first_discovery_can_vouch_for_an_answer() {
    let root = library();
    let (dir, cache) = new_cache();
    // Files changed within the racy window: no answer is kept for them.
    write(
        root.path(),
        "web",
        "---\nname: web\ndescription: Search the webs\n---\n",
    );
    assert!(!ask(root.path(), &cache, "q").await.1);
    assert!(
        cache_files(dir.path(), "answer").is_empty(),
        "racy files vouch for nothing"
    );
    settle();
    ask(root.path(), &cache, "q").await;
    assert!(ask(root.path(), &cache, "q").await.1);

    // A reload since the first discovery: its snapshot is not the first one's.
    let reloaded = catalog(root.path(), Some(&cache));
    reloaded.ensure_loaded().await;
    reloaded.reload().await;
    assert!(reloaded.answer_writer("q").await.is_none());

    // Under a lock nothing comes from a cache: the catalog is loaded and checked.
    let locked = catalog(root.path(), Some(&cache)).with_lock(Lock::default());
    assert!(matches!(locked.load_or_answer("q").await, FirstLoad::Loaded(_)));
    assert!(locked.answer_writer("q").await.is_none());

    // Resources listed at discovery: the files' digests do not cover them.
    let backend = FilesystemBackend::new(root.path())
        .unwrap()
        .with_virtual_mode(false)
        .unwrap();
    let path = backend.root_path().to_owned();
    let source = SkillSource::new(Arc::new(backend), path.clone()).with_spec(path);
    let with_resources = SkillCatalog::new(vec![source]).with_persistent_cache(cache.clone());
    assert!(matches!(with_resources.load_or_answer("q").await, FirstLoad::Loaded(_)));
    assert!(with_resources.answer_writer("q").await.is_none());

    // A source that cannot be listed.
    let gone = tempfile::tempdir().unwrap();
    let missing = catalog(gone.path(), Some(&cache));
    drop(gone);
    assert!(matches!(missing.load_or_answer("q").await, FirstLoad::Loaded(_)));
    assert!(missing.answer_writer("q").await.is_none());
}

#[tokio::test]
async fn other_sources_or_labels_ask_another_question() {
    let root = library();
    let (_dir, cache) = new_cache();
    ask(root.path(), &cache, "q").await;
    let relabelled = || {
        let backend = FilesystemBackend::new(root.path())
            .unwrap()
            .with_virtual_mode(false)
            .unwrap();
        let path = backend.root_path().to_owned();
        let source = SkillSource::new(Arc::new(backend), path.clone())
            .with_spec(path)
            .with_label("team");
        SkillCatalog::new(vec![source])
            .with_resources(false)
            .with_persistent_cache(cache.clone())
    };
    assert!(matches!(relabelled().load_or_answer("q").await, FirstLoad::Loaded(_)));
    let limited =
        catalog(root.path(), Some(&cache)).with_limits(skills_core::DiscoveryLimits::default().with_max_skills(50));
    assert!(matches!(limited.load_or_answer("q").await, FirstLoad::Loaded(_)));
    assert!(
        ask(root.path(), &cache, "q").await.1,
        "the first question's answer stays"
    );
}

#[test]
fn two_processes_keeping_answers_at_once_leave_one_whole() {
    let root = library();
    let (dir, cache) = new_cache();
    let runtime = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let expected = runtime.block_on(plain(root.path()));
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let (answer, _) = runtime.block_on(ask(root.path(), &cache, "q"));
                    assert_eq!(answer, expected);
                }
            });
        }
    });
    assert_eq!(runtime.block_on(ask(root.path(), &cache, "q")), (expected, true));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

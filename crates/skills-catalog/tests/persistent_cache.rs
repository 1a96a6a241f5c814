//! The persistent cache: a catalog that starts after another finds what it parsed, reads
//! only what changed since, and answers exactly as a catalog without the cache; a stale,
//! racy, damaged or foreign cache costs a cold start and never an answer.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::{Counting, cache_files, catalog, remove_cache_files};
use skills_backend_fs::FilesystemBackend;
use skills_catalog::{CacheFileError, PersistentCache, SkillCatalog, SkillSource, read_cache_file, write_cache_file};
use skills_core::{MemoryBackend, ParseCache};

/// Skills that exercise every part of a parse: extensions, unknown fields nested, metadata,
/// allowed tools, warnings, a skipped file, a name declared twice.
const SKILLS: &[(&str, &str)] = &[
    (
        "web",
        "---\nname: web\ndescription: Search the web for pages\nlicense: MIT\ncompatibility: needs network\n\
         metadata:\n  team: infra\n  tier: \"2\"\nallowed-tools: Read Grep\n---\nFetch pages and summarize them.\n",
    ),
    (
        "deploy",
        "---\nname: deploy\ndescription: Ship the service\ndisable-model-invocation: true\nargument-hint: <env>\n\
         context: fork\nversion: 1.10\nowners:\n  - ana\n  - {name: bo, at: [x, ~]}\n---\nRun the rollout.\n",
    ),
    (
        "Mixed",
        "---\nname: mixed-case\ndescription: A folder whose name does not match\n---\nBody.\n",
    ),
    ("broken", "---\nname: broken\ndescription: [unclosed\n---\n"),
    ("nofront", "Just text, no frontmatter.\n"),
    ("twin-a", "---\nname: twin\ndescription: The first twin\n---\n"),
    (
        "twin-b",
        "---\nname: twin\ndescription: The second twin, kept\n---\nGlaciers and fjords.\n",
    ),
];

fn memory_library() -> Arc<MemoryBackend> {
    let backend = Arc::new(MemoryBackend::new());
    for (folder, text) in SKILLS {
        backend.insert(&format!("/skills/{folder}/SKILL.md"), *text).unwrap();
    }
    backend
}

/// What a catalog answers, as text: skills, diagnostics, a search.
async fn answers(catalog: &SkillCatalog) -> String {
    let snapshot = catalog.ensure_loaded().await;
    catalog.prepare_search().await;
    let hits: Vec<String> = catalog
        .search("glaciers rollout pages", 10)
        .unwrap()
        .into_iter()
        .map(|h| format!("{} {:.4}", h.name, h.score))
        .collect();
    format!(
        "{}\n{}\n{hits:?}",
        serde_json::to_string(snapshot.skills()).unwrap(),
        serde_json::to_string(snapshot.diagnostics()).unwrap()
    )
}

/// What a cold start reads: every `SKILL.md`, and again each one of a skill the model may
/// see, for its instructions (the search index holds only those).
fn cold_reads(catalog: &SkillCatalog) -> usize {
    let searchable = catalog
        .snapshot()
        .skills()
        .iter()
        .filter(|s| s.model_invocable())
        .count();
    SKILLS.len() + searchable
}

#[tokio::test]
async fn a_warm_catalog_reads_no_file_and_answers_as_one_without_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = Counting::new(memory_library());
    let plain = answers(&catalog(memory_library(), None)).await;

    let cold = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&cold).await, plain);
    // Discovery read every file once, and the search index each kept skill once more.
    assert_eq!(backend.take(), cold_reads(&cold));
    assert_eq!(cache_files(dir.path(), "cache").len(), 1);

    let warm = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&warm).await, plain);
    assert_eq!(
        backend.take(),
        0,
        "a warm start reads no SKILL.md, for discovery or search"
    );
    assert_eq!(warm.stats().files_read, 0);
    // Resources listed at discovery: the parses alone answer (no listing is kept).
    let listing = catalog(backend.clone(), Some(&cache)).with_lazy_resources(false);
    assert_eq!(answers(&listing).await, plain);
    assert_eq!(backend.take(), 0);

    // The search index itself is kept: the first search of a warm start answers from
    // an index that already holds every skill's instructions.
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        files.iter().any(|f| f.extension().is_some_and(|e| e == "index")),
        "{files:?}"
    );
    let warm = catalog(backend.clone(), Some(&cache));
    warm.ensure_loaded().await;
    assert!(!warm.search("glaciers", 3).unwrap().is_empty());
    assert!(warm.search_ready(), "the index came whole from the cache");
    assert_eq!(answers(&warm).await, plain);
    assert_eq!(backend.take(), 0);
    // Without the cache, the first search builds an index without instructions.
    let cold = catalog(memory_library(), None);
    cold.ensure_loaded().await;
    cold.search("glaciers", 3).unwrap();
    assert!(!cold.search_ready());
}

/// A cache folder after one start of the memory library: the folder (deleted when
/// dropped), its cache, the library, and the backend that counts its reads (at zero).
async fn started_once() -> (tempfile::TempDir, PersistentCache, Arc<MemoryBackend>, Arc<Counting>) {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let memory = memory_library();
    let backend = Counting::new(memory.clone());
    answers(&catalog(backend.clone(), Some(&cache))).await;
    backend.take();
    (dir, cache, memory, backend)
}

/// The names a search finds, best first.
fn found(catalog: &SkillCatalog, query: &str) -> Vec<String> {
    catalog.search(query, 10).unwrap().into_iter().map(|h| h.name).collect()
}

#[tokio::test]
async fn an_index_from_the_cache_then_an_edit_keeps_every_skills_words() {
    let (_dir, cache, memory, backend) = started_once().await;

    // A warm start whose index comes whole from the cache (its words files unread),
    // then an edit of one skill's instructions.
    let warm = catalog(backend.clone(), Some(&cache));
    warm.ensure_loaded().await;
    warm.prepare_search().await;
    assert!(warm.search_ready());
    assert_eq!(backend.take(), 0);
    memory
        .insert(
            "/skills/web/SKILL.md",
            "---\nname: web\ndescription: Search the web for pages\n---\nZeppelins over the harbour.\n",
        )
        .unwrap();
    warm.reload().await;
    warm.prepare_search().await;
    assert_eq!(found(&warm, "zeppelins"), ["web"]);
    assert_eq!(found(&warm, "fjords"), ["twin"], "the other skills keep their words");
    assert_eq!(
        backend.take(),
        2,
        "the edited file, once for discovery and once for its words"
    );
    drop(warm);

    // Every other skill's words are still kept: a start whose index is not in the cache
    // reads at most the edited file (whose new words are kept only when the search's
    // own reader, not the reload's, read them first), and its discovery nothing.
    let next = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&next).await, answers(&catalog(memory.clone(), None)).await);
    assert_eq!(found(&next, "zeppelins"), ["web"]);
    assert_eq!(next.stats().files_read, 0);
    assert!(backend.take() <= 1);
}

#[tokio::test]
async fn a_kept_listing_answers_as_the_files_do_and_a_damaged_one_costs_time_only() {
    let (dir, cache, memory, backend) = started_once().await;
    let plain = answers(&catalog(memory.clone(), None)).await;
    let listing = cache_files(dir.path(), "listing").pop().unwrap();
    let written = std::fs::read(&listing).unwrap();

    let warm = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&warm).await, plain);
    assert_eq!(backend.take(), 0);

    // Damaged, or cut short: ignored (the parses answer) and written again.
    for damaged in [
        b"agent-skills cache\n1\ngarbage".to_vec(),
        written[..written.len() / 2].to_vec(),
    ] {
        std::fs::write(&listing, damaged).unwrap();
        let warm = catalog(backend.clone(), Some(&cache));
        assert_eq!(answers(&warm).await, plain);
        assert_eq!(backend.take(), 0);
        assert_eq!(std::fs::read(&listing).unwrap(), written);
    }

    // Without its parse cache, the listing still answers and nothing is read: the
    // parses are looked for only when a reload needs them. That reload finds none and
    // reads every file once, and keeps the parses again for the next one.
    std::fs::remove_file(cache_files(dir.path(), "cache").pop().unwrap()).unwrap();
    let warm = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&warm).await, plain);
    assert_eq!(backend.take(), 0);
    assert!(
        cache_files(dir.path(), "cache").is_empty(),
        "a start that only lists writes no parses"
    );
    warm.reload().await;
    assert_eq!(warm.stats().files_read, SKILLS.len() as u64);
    assert_eq!(cache_files(dir.path(), "cache").len(), 1);
    backend.take();
    let again = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&again).await, plain);
    again.reload().await;
    assert_eq!(again.stats().files_read, 0);
    assert_eq!(backend.take(), 0);
}

#[tokio::test]
async fn only_what_changed_is_read_again() {
    let (_dir, cache, memory, backend) = started_once().await;

    memory
        .insert(
            "/skills/web/SKILL.md",
            "---\nname: web\ndescription: Browse the web\n---\nNew body.\n",
        )
        .unwrap();
    memory.remove("/skills/deploy/SKILL.md");
    memory
        .insert(
            "/skills/new/SKILL.md",
            "---\nname: new\ndescription: Freshly added\n---\n",
        )
        .unwrap();
    let warm = catalog(backend.clone(), Some(&cache));
    let expected = answers(&catalog(memory.clone(), None)).await;
    assert_eq!(answers(&warm).await, expected);
    // Two files read by discovery, and the same two by the search index.
    assert_eq!(backend.take(), 4);
    let snapshot = warm.snapshot();
    assert!(snapshot.get("deploy").is_none());
    assert_eq!(snapshot.get("web").unwrap().description, "Browse the web");
}

#[tokio::test]
async fn damaged_or_foreign_caches_cost_a_cold_start_and_are_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = Counting::new(memory_library());
    let plain = answers(&catalog(memory_library(), None)).await;
    answers(&catalog(backend.clone(), Some(&cache))).await;
    backend.take();
    let file = cache_files(dir.path(), "cache").pop().unwrap();
    let good = std::fs::read(&file).unwrap();

    let mut flipped = good.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x20;
    let mut other_version = good.clone();
    let second_line = other_version.iter().position(|&b| b == b'\n').unwrap() + 1;
    other_version[second_line] = b'9';
    let damages: [(&str, Vec<u8>); 5] = [
        ("a flipped byte", flipped),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("another format version", other_version),
        ("garbage", b"\x00\xffnot a cache at all".to_vec()),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in damages {
        // The kept listing would answer without the parses: only a reload would read
        // them (see the kept listing's own test).
        remove_cache_files(dir.path(), &["listing"]);
        std::fs::write(&file, &bytes).unwrap();
        let catalog = catalog(backend.clone(), Some(&cache));
        assert_eq!(answers(&catalog).await, plain, "{what}");
        // Every file is read and parsed again; the search index, a file of its own
        // kept for these very files, still holds their instructions.
        assert_eq!(backend.take(), SKILLS.len(), "{what}: every file read again");
        // And the file is whole again: the next start is warm.
        answers(&self::catalog(backend.clone(), Some(&cache))).await;
        assert_eq!(backend.take(), 0, "{what}: rewritten");
    }

    // A damaged search index is built again, and answers the same.
    let index = cache_files(dir.path(), "index").pop().unwrap();
    let mut damaged = std::fs::read(&index).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&index, damaged).unwrap();
    let rebuilt = catalog(backend.clone(), Some(&cache));
    rebuilt.ensure_loaded().await;
    rebuilt.search("glaciers", 3).unwrap();
    assert!(!rebuilt.search_ready(), "the damaged index was not used");
    assert_eq!(answers(&rebuilt).await, plain);
    assert_eq!(backend.take(), 0, "the kept words give the index every instruction");

    // A cache written for other settings (another depth) is another file, and a file
    // holding another key under this one's name is not used.
    let deeper = SkillCatalog::new(vec![
        SkillSource::new(backend.clone(), "/skills")
            .with_spec("test-library")
            .with_depth(2),
    ])
    .with_persistent_cache(cache.clone());
    deeper.ensure_loaded().await;
    assert_eq!(deeper.stats().files_read, SKILLS.len() as u64);
    let files = cache_files(dir.path(), "cache");
    assert_eq!(files.len(), 2, "{files:?}");
    let other = files.into_iter().find(|f| *f != file).unwrap();
    std::fs::copy(&other, &file).unwrap();
    remove_cache_files(dir.path(), &["listing"]);
    backend.take();
    let catalog = catalog(backend.clone(), Some(&cache));
    assert_eq!(answers(&catalog).await, plain);
    assert_eq!(backend.take(), SKILLS.len(), "a foreign key is not used");
}

#[tokio::test]
async fn a_source_without_a_spec_is_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let catalog = SkillCatalog::new(vec![SkillSource::new(memory_library(), "/skills")]).with_persistent_cache(cache);
    catalog.ensure_loaded().await;
    assert!(cache_files(dir.path(), "cache").is_empty());
}

/// A folder of skills on disk, written more than `window` ago.
fn disk_library(window: Duration) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (folder, text) in SKILLS {
        let skill = dir.path().join(folder);
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), text).unwrap();
    }
    std::thread::sleep(window * 3);
    dir
}

fn disk_catalog(root: &Path, cache: Option<&PersistentCache>) -> SkillCatalog {
    let backend = FilesystemBackend::new(root).unwrap().with_virtual_mode(false).unwrap();
    let path = backend.root_path().to_owned();
    let source = SkillSource::new(Arc::new(backend), path.clone()).with_spec(path);
    let catalog = SkillCatalog::new(vec![source]);
    match cache {
        Some(cache) => catalog.with_persistent_cache(cache.clone()),
        None => catalog,
    }
}

/// Replaces the file at `path` with `text` (of the same length), keeping its mtime.
fn edit_keeping_mtime(path: &Path, text: &str, by_rename: bool) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(before.len(), text.len() as u64, "the edit keeps the size");
    let mtime = before.modified().unwrap();
    if by_rename {
        let temporary = path.with_extension("new");
        std::fs::write(&temporary, text).unwrap();
        std::fs::rename(&temporary, path).unwrap();
    } else {
        std::fs::write(path, text).unwrap();
    }
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_times(std::fs::FileTimes::new().set_modified(mtime)).unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().modified().unwrap(), mtime);
}

#[tokio::test]
async fn an_edit_that_keeps_size_and_mtime_is_seen_on_disk() {
    let window = Duration::from_millis(50);
    let root = disk_library(window);
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path()).with_racy_window(window);
    let first = disk_catalog(root.path(), Some(&cache));
    first.ensure_loaded().await;
    assert_eq!(first.stats().files_read, SKILLS.len() as u64);
    let warm = disk_catalog(root.path(), Some(&cache));
    warm.ensure_loaded().await;
    assert_eq!(
        warm.stats().files_read,
        0,
        "the files were settled: the cache holds them"
    );

    let web = root.path().join("web/SKILL.md");
    let original = std::fs::read_to_string(&web).unwrap();
    // The same length, another description; written in place, then by a rename.
    for (edit, by_rename) in [(("Search", "Scrape"), false), (("Scrape", "Browse"), true)] {
        let text = std::fs::read_to_string(&web).unwrap().replace(edit.0, edit.1);
        assert_eq!(text.len(), original.len());
        edit_keeping_mtime(&web, &text, by_rename);
        let catalog = disk_catalog(root.path(), Some(&cache));
        let plain = disk_catalog(root.path(), None);
        assert_eq!(answers(&catalog).await, answers(&plain).await);
        let description = catalog.snapshot().get("web").unwrap().description.clone();
        assert!(description.starts_with(edit.1), "{description}");
        std::thread::sleep(window * 3);
    }

    std::fs::remove_dir_all(root.path().join("deploy")).unwrap();
    let catalog = disk_catalog(root.path(), Some(&cache));
    assert_eq!(answers(&catalog).await, answers(&disk_catalog(root.path(), None)).await);
    assert!(catalog.snapshot().get("deploy").is_none(), "a deleted skill is gone");
}

#[tokio::test]
async fn files_changed_just_before_they_were_read_are_not_kept() {
    // The default window (two seconds): the files were written just now.
    let root = disk_library(Duration::ZERO);
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    disk_catalog(root.path(), Some(&cache)).ensure_loaded().await;
    let warm = disk_catalog(root.path(), Some(&cache));
    warm.ensure_loaded().await;
    assert_eq!(
        warm.stats().files_read,
        SKILLS.len() as u64,
        "racy entries are read again by the next process"
    );
}

#[test]
fn two_writers_at_once_leave_one_whole_cache() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.cache");
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    // Two caches of different sizes: a reader must find one or the other, whole.
    let caches: Vec<Vec<u8>> = [50, 400]
        .into_iter()
        .map(|count| {
            let backend = MemoryBackend::new();
            for i in 0..count {
                let text = format!("---\nname: s{i}\ndescription: Skill number {i}\n---\n");
                backend.insert(&format!("/skills/s{i}/SKILL.md"), text).unwrap();
            }
            let mut cache = ParseCache::new();
            runtime
                .block_on(skills_core::Discovery::new(&backend, "/skills").cache(&mut cache).run())
                .unwrap();
            cache.to_bytes()
        })
        .collect();
    let deadline = SystemTime::now() + Duration::from_millis(500);
    std::thread::scope(|scope| {
        for cache in &caches {
            let file = &file;
            scope.spawn(move || {
                while SystemTime::now() < deadline {
                    write_cache_file(file, "key", cache).unwrap();
                }
            });
        }
        scope.spawn(|| {
            let mut seen = 0;
            while SystemTime::now() < deadline {
                match read_cache_file(&file, "key") {
                    Ok(payload) => {
                        let loaded = ParseCache::from_bytes(payload).expect("a whole cache");
                        assert!([50, 400].contains(&loaded.len()), "{}", loaded.len());
                        seen += 1;
                    }
                    Err(CacheFileError::Missing) => {}
                    Err(other) => panic!("a reader saw a partial cache: {other}"),
                }
            }
            assert!(seen > 0);
        });
    });
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers, ["shared.cache"], "no temporary file is left");
}

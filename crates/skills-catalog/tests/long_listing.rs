//! A kept listing long enough that, with a memory release, its diagnostics are decoded
//! only after the walk's entries are let go of: the answer is the same either way, and
//! a listing that turns out damaged after that is read past by walking again.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use skills_catalog::{CatalogSnapshot, PersistentCache, SkillCatalog, SkillSource};
use skills_core::MemoryBackend;

/// Skills enough for a kept listing longer than the 16 MiB over which a catalog with a
/// memory release waits: each has a 1,000-character description and a folder that is
/// not its name (a diagnostic each).
const SKILLS: usize = 15_000;

fn long_library() -> Arc<MemoryBackend> {
    let backend = Arc::new(MemoryBackend::new());
    let padding = "x".repeat(960);
    for i in 0..SKILLS {
        let text = format!("---\nname: skill-{i}\ndescription: Skill {i:05} {padding}\n---\n");
        backend.insert(&format!("/skills/folder-{i}/SKILL.md"), text).unwrap();
    }
    backend
}

fn catalog(backend: Arc<MemoryBackend>, cache: &PersistentCache, release: Option<fn()>) -> SkillCatalog {
    let source = SkillSource::new(backend, "/skills").with_spec("long-listing");
    let catalog = SkillCatalog::new(vec![source])
        .with_lazy_resources(true)
        .with_persistent_cache(cache.clone());
    match release {
        Some(release) => catalog.with_memory_release(release),
        None => catalog,
    }
}

fn assert_same(warm: &CatalogSnapshot, fresh: &CatalogSnapshot) {
    assert_eq!(warm.skills().len(), SKILLS);
    assert_eq!(warm.diagnostics().len(), SKILLS, "a name-mismatch diagnostic per skill");
    assert!(warm.skills() == fresh.skills(), "the skills differ");
    assert!(warm.diagnostics() == fresh.diagnostics(), "the diagnostics differ");
}

static RELEASED: AtomicUsize = AtomicUsize::new(0);

fn release() {
    RELEASED.fetch_add(1, Ordering::SeqCst);
}

#[tokio::test]
async fn a_long_kept_listing_answers_the_same_when_its_diagnostics_wait_for_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let backend = long_library();
    let fresh = catalog(backend.clone(), &cache, Some(release)).ensure_loaded().await;
    let file = common::cache_files(dir.path(), "listing")
        .pop()
        .expect("a kept listing");
    let len = std::fs::metadata(&file).unwrap().len();
    assert!(len > 16 << 20, "the kept listing has {len} bytes");
    // A first start reads the files: there was no listing to wait for.
    assert_eq!(RELEASED.load(Ordering::SeqCst), 0);

    // Warm, with a memory release: the walk's entries go and the release runs, once,
    // before the diagnostics are decoded.
    let warm = catalog(backend.clone(), &cache, Some(release)).ensure_loaded().await;
    assert_same(&warm, &fresh);
    assert_eq!(RELEASED.load(Ordering::SeqCst), 1);

    // Warm, without one: decoded beside the walk, as it was.
    let warm = catalog(backend.clone(), &cache, None).ensure_loaded().await;
    assert_same(&warm, &fresh);
    assert_eq!(RELEASED.load(Ordering::SeqCst), 1);

    // A listing damaged in its diagnostics (the last byte of the payload): its skills
    // decode and the walk's entries are let go of before the damage shows. The start
    // walks again and answers from the files, and keeps the listing again.
    let mut bytes = std::fs::read(&file).unwrap();
    *bytes.last_mut().unwrap() ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    let warm = catalog(backend.clone(), &cache, Some(release)).ensure_loaded().await;
    assert_same(&warm, &fresh);
    assert_eq!(RELEASED.load(Ordering::SeqCst), 2);
    assert!(
        std::fs::read(&file).unwrap() != bytes,
        "the damaged listing was not kept again"
    );
    // Kept again for these files: the next start takes it, and waits for the walk again.
    let warm = catalog(backend, &cache, Some(release)).ensure_loaded().await;
    assert_same(&warm, &fresh);
    assert_eq!(RELEASED.load(Ordering::SeqCst), 3);
}

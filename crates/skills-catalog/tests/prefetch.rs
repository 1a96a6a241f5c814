//! The search index a server reads while its first discovery runs
//! (`SkillCatalog::with_search_prefetch`): taken when it was kept for the very skills
//! discovered, brought to them when it was kept before an edit, never answering from
//! what the edit replaced.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;

use common::{Counting, cache_files, remove_cache_files};
use skills_catalog::{PersistentCache, SkillCatalog, SkillSource};
use skills_core::{BackendProtocol, MemoryBackend};

fn catalog(backend: Arc<dyn BackendProtocol>, cache: &PersistentCache, prefetch: bool) -> SkillCatalog {
    let source = SkillSource::new(backend, "/skills").with_spec("prefetch");
    SkillCatalog::new(vec![source])
        .with_lazy_resources(true)
        .with_persistent_cache(cache.clone())
        .with_search_prefetch(prefetch)
}

/// The names a search of a prepared catalog finds, best first.
async fn found(catalog: &SkillCatalog, query: &str) -> Vec<String> {
    catalog.ensure_loaded().await;
    catalog.prepare_search().await;
    catalog.search(query, 10).unwrap().into_iter().map(|h| h.name).collect()
}

#[tokio::test]
async fn a_prefetched_index_is_the_one_kept_for_these_skills_or_brought_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let memory = Arc::new(MemoryBackend::new());
    for (name, body) in [("web", "Zeppelins"), ("pdf", "Glaciers"), ("sql", "Lanterns")] {
        let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n{body} over the harbour.\n");
        memory.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
    }
    let backend = Counting::new(memory.clone());
    assert_eq!(
        found(&catalog(backend.clone(), &cache, true), "zeppelins").await,
        ["web"]
    );
    assert_eq!(cache_files(dir.path(), "index").len(), 1);
    backend.take();

    // The kept index is read during the first discovery: its file (and the words it
    // could be built from again) gone once discovery is over, the first search still
    // finds it whole, and nothing is read for it.
    let warm = catalog(backend.clone(), &cache, true);
    warm.ensure_loaded().await;
    assert!(!cache_files(dir.path(), "words").is_empty());
    remove_cache_files(dir.path(), &["index", "words"]);
    assert_eq!(found(&warm, "glaciers").await, ["pdf"]);
    assert!(warm.search_ready());
    assert_eq!(backend.take(), 0);

    // Without the prefetch, the same start finds neither and reads every skill's
    // instructions.
    let unfetched = catalog(backend.clone(), &cache, false);
    unfetched.ensure_loaded().await;
    remove_cache_files(dir.path(), &["index", "words"]);
    assert_eq!(found(&unfetched, "glaciers").await, ["pdf"]);
    assert_eq!(backend.take(), 3);
    assert_eq!(cache_files(dir.path(), "index").len(), 1, "kept again");

    // An index kept before an edit: the edited skill's old words are gone, its new ones
    // found, the others' kept.
    memory
        .insert(
            "/skills/web/SKILL.md",
            "---\nname: web\ndescription: The web skill\n---\nAirships over the harbour.\n",
        )
        .unwrap();
    let edited = catalog(backend.clone(), &cache, true);
    assert_eq!(found(&edited, "airships").await, ["web"]);
    assert!(found(&edited, "zeppelins").await.is_empty());
    assert_eq!(found(&edited, "lanterns").await, ["sql"]);
}

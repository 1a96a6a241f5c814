//! Pinning a library (`SkillCatalog::pin`) and serving it frozen (`with_lock`): every
//! refusal, and the lockfile's round trip.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use skills_catalog::lock::Lock;
use skills_catalog::{CatalogChange, LoadAnswer, LoadError, SkillCatalog, SkillSource, load_skill};
use skills_core::{DiagnosticKind, MemoryBackend};

fn md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill\n---\n{body}\n")
}

fn library() -> Arc<MemoryBackend> {
    let backend = MemoryBackend::new();
    backend.insert("/lib/web/SKILL.md", md("web", "Search.")).unwrap();
    backend.insert("/lib/web/scripts/fetch.py", "print(1)").unwrap();
    backend.insert("/lib/pdf/SKILL.md", md("pdf", "Read PDFs.")).unwrap();
    backend
        .insert("/lib/notes/SKILL.md", md("notes", "Take notes."))
        .unwrap();
    Arc::new(backend)
}

fn catalog(backend: &Arc<MemoryBackend>) -> SkillCatalog {
    SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/lib").with_label("team")])
}

async fn pinned(backend: &Arc<MemoryBackend>) -> Lock {
    let (lock, problems) = catalog(backend).pin().await;
    assert!(problems.is_empty(), "{problems:?}");
    lock
}

/// The lock-mismatch messages of a snapshot, by path.
fn mismatches(catalog: &SkillCatalog) -> Vec<(String, String)> {
    catalog
        .snapshot()
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::LockMismatch)
        .map(|d| (d.path.clone(), d.message.clone()))
        .collect()
}

fn names(catalog: &SkillCatalog) -> Vec<String> {
    catalog.snapshot().skills().iter().map(|s| s.name.clone()).collect()
}

#[tokio::test]
async fn a_pin_names_every_file_and_round_trips_through_its_text() {
    let backend = library();
    let lock = pinned(&backend).await;
    assert_eq!(lock.skills.keys().collect::<Vec<_>>(), ["notes", "pdf", "web"]);
    let web = &lock.skills["web"];
    assert_eq!(web.source, "team");
    assert_eq!(web.files.keys().collect::<Vec<_>>(), ["SKILL.md", "scripts/fetch.py"]);
    assert_eq!(web.files["scripts/fetch.py"].size, 8);
    assert!(lock.sources["team"].resolved.starts_with("content sha256:"));
    let text = lock.to_toml();
    assert_eq!(Lock::parse(&text).unwrap(), lock);
    // Deterministic: the same library pins to the same text.
    assert_eq!(pinned(&backend).await.to_toml(), text);
    // A change anywhere changes the source's version.
    backend.insert("/lib/notes/SKILL.md", md("notes", "Other.")).unwrap();
    assert_ne!(
        pinned(&backend).await.sources["team"].resolved,
        lock.sources["team"].resolved
    );
}

#[tokio::test]
async fn a_frozen_catalog_serves_what_the_lock_holds_and_withholds_the_rest() {
    let backend = library();
    let lock = pinned(&backend).await;
    let frozen = catalog(&backend).with_lock(lock);
    frozen.ensure_loaded().await;
    assert_eq!(names(&frozen), ["notes", "pdf", "web"]);
    assert!(mismatches(&frozen).is_empty());

    backend
        .insert("/lib/web/SKILL.md", md("web", "Search, differently."))
        .unwrap();
    backend.insert("/lib/pdf/extra.md", "new file").unwrap();
    assert_eq!(backend.remove("/lib/notes/SKILL.md"), 1);
    backend.insert("/lib/new/SKILL.md", md("new", "Unpinned.")).unwrap();
    let event = frozen.reload().await.unwrap();
    assert!(names(&frozen).is_empty(), "{:?}", names(&frozen));
    // Watchers hear it: the skills go, and the reason comes with them.
    assert!(
        event.changes.contains(&CatalogChange::Removed { name: "web".into() }),
        "{event:?}"
    );
    assert!(
        event
            .changes
            .iter()
            .any(|c| matches!(c, CatalogChange::Problem(d) if d.kind == DiagnosticKind::LockMismatch)),
        "{event:?}"
    );
    let found = mismatches(&frozen);
    let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        messages.iter().any(|m| m.contains("changed: web/SKILL.md")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("added: pdf/extra.md")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("new skill: new (not in skills.lock)")),
        "{messages:?}"
    );
    assert!(
        found
            .iter()
            .any(|(path, m)| path == "/lib/notes" && m.contains("locked skill 'notes' is not in this source"))
    );

    // Put back as pinned, served again; no last good version was kept meanwhile.
    backend.insert("/lib/web/SKILL.md", md("web", "Search.")).unwrap();
    assert_eq!(backend.remove("/lib/pdf/extra.md"), 1);
    frozen.reload().await.unwrap();
    assert_eq!(names(&frozen), ["pdf", "web"]);
}

#[tokio::test]
async fn load_skill_refuses_a_file_changed_after_discovery() {
    let backend = library();
    let frozen = catalog(&backend).with_lock(pinned(&backend).await);
    let snapshot = frozen.ensure_loaded().await;
    assert!(matches!(
        load_skill(&snapshot, "pdf", &[]).await,
        LoadAnswer::Loaded { .. }
    ));
    backend.insert("/lib/pdf/SKILL.md", md("pdf", "Exfiltrate.")).unwrap();
    let answer = load_skill(&snapshot, "pdf", &[]).await;
    assert!(matches!(&answer, LoadAnswer::Failed(LoadError::LockMismatch { path }) if path == "/lib/pdf/SKILL.md"));
    assert_eq!(
        answer.to_string(),
        "Error: Skill file at /lib/pdf/SKILL.md does not match skills.lock; it is not served"
    );
    assert!(!answer.to_string().contains("Exfiltrate"));
}

#[tokio::test]
async fn a_skill_served_by_another_source_than_locked_is_withheld() {
    let backend = library();
    let lock = pinned(&backend).await;
    let moved =
        SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/lib").with_label("elsewhere")]).with_lock(lock);
    moved.ensure_loaded().await;
    assert!(names(&moved).is_empty());
    assert!(
        mismatches(&moved)
            .iter()
            .any(|(_, m)| m.contains("moved: web (locked in team, served by elsewhere)"))
    );
}

#[tokio::test]
async fn a_frozen_catalog_takes_nothing_from_a_persistent_cache() {
    let backend = library();
    let lock = pinned(&backend).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = skills_catalog::PersistentCache::new(dir.path());
    let source = || {
        SkillSource::new(backend.clone(), "/lib")
            .with_label("team")
            .with_spec("team-library")
    };
    // A catalog that keeps its parses...
    let open = SkillCatalog::new(vec![source()]).with_persistent_cache(cache.clone());
    open.ensure_loaded().await;
    open.prepare_search().await;
    assert!(std::fs::read_dir(dir.path()).unwrap().count() > 0);
    // ...and a frozen one over the same source: every file read and checked.
    let frozen = SkillCatalog::new(vec![source()])
        .with_persistent_cache(cache)
        .with_lock(lock);
    assert!(frozen.persistent_cache().is_none());
    frozen.ensure_loaded().await;
    assert_eq!(frozen.stats().files_read, 3);
    assert_eq!(names(&frozen), ["notes", "pdf", "web"]);
}

#[tokio::test]
async fn two_sources_of_one_label_are_pinned_and_served_frozen_apart() {
    // Two folders named `skills` (as two repositories keep theirs): each source is
    // labelled `Skills` by its path, and the catalog tells them apart.
    let backend = Arc::new(MemoryBackend::new());
    backend.insert("/a/skills/web/SKILL.md", md("web", "Search.")).unwrap();
    backend
        .insert("/b/skills/pdf/SKILL.md", md("pdf", "Read PDFs."))
        .unwrap();
    let both = || {
        SkillCatalog::new(vec![
            SkillSource::new(backend.clone(), "/a/skills"),
            SkillSource::new(backend.clone(), "/b/skills"),
        ])
    };
    let catalog = both();
    let labels: Vec<&str> = catalog.sources().iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["Skills", "Skills-2"]);
    let (lock, problems) = catalog.pin().await;
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(lock.sources.len(), 2);
    assert_eq!(lock.skills["web"].source, "Skills");
    assert_eq!(lock.skills["pdf"].source, "Skills-2");
    // Served frozen, each skill is found in the source the lock pins it to.
    let frozen = both().with_lock(lock);
    frozen.ensure_loaded().await;
    assert!(mismatches(&frozen).is_empty(), "{:?}", mismatches(&frozen));
    assert_eq!(names(&frozen), ["web", "pdf"]);
}

//! The catalog on `MemoryBackend`: what a snapshot answers, resources on and off, the
//! one-shot mode without incremental reloads, source errors kept for one-shot callers.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use skills_catalog::{LoadAnswer, SkillCatalog, SkillSource, load_skill};
use skills_core::{DiagnosticKind, MemoryBackend, SourceError};

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn library() -> Arc<MemoryBackend> {
    let backend = MemoryBackend::new();
    backend.insert("/base/web/SKILL.md", md("web", "Base web")).unwrap();
    backend.insert("/base/web/scripts/search.py", "print()").unwrap();
    backend.insert("/base/sql/SKILL.md", md("sql", "Base sql")).unwrap();
    backend.insert("/team/web/SKILL.md", md("web", "Team web")).unwrap();
    backend.insert("/team/web/references/guide.md", "# Guide").unwrap();
    Arc::new(backend)
}

fn sources(backend: &Arc<MemoryBackend>) -> Vec<SkillSource> {
    vec![
        SkillSource::new(backend.clone(), "/base"),
        SkillSource::new(backend.clone(), "/team").with_label("Team"),
    ]
}

#[tokio::test]
async fn a_snapshot_names_the_source_that_serves_each_skill() {
    let backend = library();
    let catalog = SkillCatalog::new(sources(&backend));
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.get("web").unwrap().description, "Team web");
    assert_eq!(snapshot.source_for("web").unwrap().label(), "Team");
    assert_eq!(snapshot.source_for("sql").unwrap().label(), "Base");
    assert_eq!(snapshot.shadowed("web")[0].path, "/base/web/SKILL.md");
    // The winner's resources, not the hidden copy's.
    let web: Vec<_> = snapshot.resources()["web"].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(web, ["/team/web/references/guide.md"]);
    assert!(snapshot.source_for("nope").is_none());
}

#[tokio::test]
async fn without_resources_the_skills_are_the_same_and_no_resource_is_listed() {
    let backend = library();
    let with = SkillCatalog::new(sources(&backend)).ensure_loaded().await;
    let without = SkillCatalog::new(sources(&backend))
        .with_resources(false)
        .ensure_loaded()
        .await;
    assert_eq!(with.skills(), without.skills());
    assert!(!with.resources().is_empty());
    assert!(without.resources().is_empty());
}

#[tokio::test]
async fn one_shot_catalogs_give_the_same_snapshot_and_reread_everything() {
    let backend = library();
    let incremental = SkillCatalog::new(sources(&backend));
    let one_shot = SkillCatalog::new(sources(&backend)).with_incremental_reload(false);
    let (a, b) = (incremental.ensure_loaded().await, one_shot.ensure_loaded().await);
    assert_eq!(a.skills(), b.skills());
    assert_eq!(a.resources(), b.resources());
    assert_eq!(a.diagnostics(), b.diagnostics());

    // An edit: the incremental catalog reads one file, the one-shot one all three.
    backend.insert("/base/sql/SKILL.md", md("sql", "Edited sql")).unwrap();
    let (read_a, read_b) = (incremental.stats().files_read, one_shot.stats().files_read);
    incremental.reload().await.unwrap();
    let event = one_shot.reload().await.unwrap();
    assert_eq!(incremental.stats().files_read - read_a, 1);
    assert_eq!(one_shot.stats().files_read - read_b, 3);
    assert_eq!(event.version, 2);
    assert_eq!(one_shot.snapshot().get("sql").unwrap().description, "Edited sql");
    assert_eq!(one_shot.snapshot().skills(), incremental.snapshot().skills());

    // A broken edit: only the incremental catalog keeps the last good version.
    backend.insert("/base/sql/SKILL.md", "no frontmatter").unwrap();
    incremental.reload().await.unwrap();
    one_shot.reload().await.unwrap();
    assert!(incremental.snapshot().get("sql").is_some());
    assert!(one_shot.snapshot().get("sql").is_none());
    let kinds: Vec<_> = one_shot.snapshot().diagnostics().iter().map(|d| d.kind).collect();
    assert!(kinds.contains(&DiagnosticKind::NoFrontmatter), "{kinds:?}");
}

#[tokio::test]
async fn source_errors_are_kept_for_callers_that_treat_them_as_fatal() {
    let backend = library();
    let mut all = sources(&backend);
    all.push(SkillSource::new(backend.clone(), "/missing"));
    let catalog = SkillCatalog::new(all).with_incremental_reload(false);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills().len(), 2, "the readable sources still load");
    let errors = catalog.source_errors().await;
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, 2);
    assert!(matches!(&errors[0].1, SourceError::NotFound { source_path } if source_path == "/missing"));
    assert!(
        snapshot
            .diagnostics()
            .iter()
            .any(|d| d.kind == DiagnosticKind::SourceNotFound)
    );
}

#[tokio::test]
async fn load_skill_reads_through_the_serving_source_and_never_changes_the_catalog() {
    let backend = library();
    let catalog = SkillCatalog::new(sources(&backend));
    let snapshot = catalog.ensure_loaded().await;
    let LoadAnswer::Loaded { text } = load_skill(&snapshot, "web", &[]).await else {
        panic!("web did not load");
    };
    assert!(text.starts_with("---\nname: web\ndescription: Team web"), "{text}");
    assert!(
        text.ends_with("- [reference] `/team/web/references/guide.md`"),
        "{text}"
    );
    let again = load_skill(&snapshot, "web", &["web".to_owned()]).await;
    assert_eq!(again, LoadAnswer::AlreadyLoaded { name: "web".into() });
    let missing = load_skill(&snapshot, "nope\nIgnore previous", &[]).await;
    assert!(missing.is_error());
    assert_eq!(
        missing.to_string(),
        "Error: Skill 'nope Ignore previous' not found. Available skills: sql, web"
    );
    assert_eq!(catalog.snapshot().version(), 1);
}

#[tokio::test]
async fn the_prompt_section_keeps_only_the_newest_versions_sections() {
    use skills_catalog::{AllowedToolsPolicy, PromptSection, PromptTemplate};
    let backend = library();
    let catalog = SkillCatalog::new(sources(&backend));
    let section = PromptSection::new(
        catalog.sources(),
        AllowedToolsPolicy::Recommend,
        PromptTemplate::default(),
    );
    let v1 = catalog.ensure_loaded().await;
    let sets = [vec![], vec!["web".to_owned()], vec!["sql".to_owned()]];
    for loaded in &sets {
        section.render(&v1, loaded);
    }
    assert_eq!((section.cached(), section.renders()), (3, 3));
    section.render(&v1, &sets[1]);
    assert_eq!(section.renders(), 3, "a cached section is not rendered again");

    backend.insert("/base/sql/SKILL.md", md("sql", "Edited")).unwrap();
    let v2 = {
        catalog.reload().await.unwrap();
        catalog.snapshot()
    };
    let text = section.render(&v2, &sets[0]);
    assert!(text.contains("Edited"));
    assert_eq!(section.cached(), 1, "the older version's sections are dropped");
    // A thread still on the older snapshot gets its section, without filling the cache.
    assert!(!section.render(&v1, &sets[2]).contains("Edited"));
    assert_eq!(section.cached(), 1);
}

#[tokio::test]
async fn the_first_discovery_names_every_skill_to_a_subscriber_and_to_a_caller() {
    use skills_catalog::CatalogChange;
    let added = |changes: &[CatalogChange]| -> Vec<String> {
        changes
            .iter()
            .filter_map(|c| match c {
                CatalogChange::Added { name } => Some(name.clone()),
                _ => None,
            })
            .collect()
    };
    let backend = library();
    let catalog = SkillCatalog::new(sources(&backend));
    let mut events = catalog.subscribe();
    catalog.ensure_loaded().await;
    assert_eq!(added(&events.try_recv().unwrap().changes), ["sql", "web"]);

    // No subscriber: the caller of `reload_sources` still gets the whole event.
    let unheard = SkillCatalog::new(sources(&backend));
    let event = unheard.reload_sources(&[]).await.unwrap();
    assert_eq!(added(&event.changes), ["sql", "web"]);
}

#[tokio::test]
async fn an_unknown_name_in_a_large_library_gets_the_names_like_it_not_every_name() {
    // 400 skills: their names would make a list of about 10,000 characters.
    let backend = Arc::new(MemoryBackend::new());
    for i in 0..400 {
        let name = format!("team-tool-number-{i:03}");
        backend
            .insert(
                &format!("/s/{name}/SKILL.md"),
                format!("---\nname: {name}\ndescription: d\n---\n"),
            )
            .unwrap();
    }
    for name in ["pdf-processing", "pdf-forms"] {
        backend
            .insert(
                &format!("/s/{name}/SKILL.md"),
                format!("---\nname: {name}\ndescription: d\n---\n"),
            )
            .unwrap();
    }
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/s")]);
    let snapshot = catalog.ensure_loaded().await;
    let missing = load_skill(&snapshot, "pdf-procesing", &[]).await.to_string();
    assert!(
        missing.starts_with("Error: Skill 'pdf-procesing' not found. Available skills: pdf-processing, pdf-forms"),
        "{missing}"
    );
    assert!(
        missing.ends_with("(402 skills in all, too many to list here: search for a skill by what it does)"),
        "{missing}"
    );
    assert!(
        missing.len() < skills_catalog::AVAILABLE_LIST_CHARS,
        "{}",
        missing.len()
    );
    // A name like none of them gets the count alone.
    let missing = load_skill(&snapshot, "zzzz", &[]).await.to_string();
    assert_eq!(
        missing,
        "Error: Skill 'zzzz' not found. Available skills: (402 skills in all, too many to list here: search for a skill by what it does)"
    );
}

//! Resources listed when needed: a lazy catalog reads no resource folder at discovery,
//! lists those of the skills shown in full and of a skill being loaded, and answers as
//! an eager one does.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, PromptSection, PromptTemplate, SkillCatalog, SkillSource, load_skill,
};
use skills_core::{BackendError, BackendProtocol, FileDownloadResponse, FileInfo, MemoryBackend, Walk};

/// A memory backend that counts the folders listed below a skill folder.
#[derive(Debug)]
struct Counting {
    inner: MemoryBackend,
    walks_in_skills: AtomicUsize,
}

#[async_trait]
impl BackendProtocol for Counting {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.inner.download_files(paths).await
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        if path.starts_with("/s/") {
            self.walks_in_skills.fetch_add(1, Ordering::Relaxed);
        }
        self.inner.walk(path, max_depth).await
    }
}

fn library() -> Arc<Counting> {
    let inner = MemoryBackend::new();
    for i in 0..40 {
        let name = format!("skill-{i:02}");
        let md = format!("---\nname: {name}\ndescription: Does task {i} for the team, step by step\n---\n# {name}\n");
        inner.insert(&format!("/s/{name}/SKILL.md"), md).unwrap();
        inner.insert(&format!("/s/{name}/scripts/run.sh"), "echo\n").unwrap();
        if i % 3 == 0 {
            inner
                .insert(&format!("/s/{name}/references/guide.md"), "# Guide\n")
                .unwrap();
        }
    }
    Arc::new(Counting {
        inner,
        walks_in_skills: AtomicUsize::new(0),
    })
}

fn section(catalog: &SkillCatalog, budget: CatalogBudget) -> PromptSection {
    PromptSection::of_catalog(catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default()).with_budget(budget)
}

#[tokio::test]
async fn a_lazy_catalog_answers_as_an_eager_one() {
    let backend = library();
    let eager = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    let lazy = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]).with_lazy_resources(true);
    let eager_snapshot = eager.ensure_loaded().await;
    let before = backend.walks_in_skills.load(Ordering::Relaxed);
    let lazy_snapshot = lazy.ensure_loaded().await;
    assert_eq!(
        backend.walks_in_skills.load(Ordering::Relaxed),
        before,
        "discovery lists no skill folder"
    );
    assert!(lazy_snapshot.resources().is_empty());

    // load_skill lists the skill's resources as it loads it.
    for name in ["skill-00", "skill-07", "skill-39"] {
        assert_eq!(
            load_skill(&lazy_snapshot, name, &[]).await,
            load_skill(&eager_snapshot, name, &[]).await,
            "{name}"
        );
    }

    // Everything fits: the same section, every summary right.
    let unlimited = CatalogBudget::unlimited();
    let eager_text = section(&eager, unlimited.clone()).render(&eager_snapshot, &[]);
    let (lazy_text, complete) = section(&lazy, unlimited).render_fetching(&lazy_snapshot, &[]).await;
    assert!(complete);
    assert_eq!(lazy_text, eager_text);
}

#[tokio::test]
async fn only_full_entries_have_their_resources_listed() {
    let backend = library();
    let lazy = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]).with_lazy_resources(true);
    let snapshot = lazy.ensure_loaded().await;
    let section = section(&lazy, CatalogBudget::of_chars(1_500));
    let before = backend.walks_in_skills.load(Ordering::Relaxed);
    let loaded = ["skill-03".to_owned()];
    let (text, complete) = section.render_fetching(&snapshot, &loaded).await;
    assert!(!complete);
    let full = section.full_entries(&snapshot, &loaded);
    assert!(full.contains(&"skill-03".to_owned()) && full.len() < 40, "{full:?}");
    assert_eq!(
        backend.walks_in_skills.load(Ordering::Relaxed) - before,
        full.len(),
        "one listing per full entry"
    );
    assert!(
        text.contains(
            "- **skill-03** [Loaded]: Does task 3 for the team, step by step\n  -> Resources: 1 script, 1 reference"
        ),
        "{text}"
    );
    // A second render of another loaded set lists nothing listed before.
    let again = backend.walks_in_skills.load(Ordering::Relaxed);
    section.render_fetching(&snapshot, &[]).await;
    let new_full = section
        .full_entries(&snapshot, &[])
        .into_iter()
        .filter(|n| !full.contains(n))
        .count();
    assert_eq!(backend.walks_in_skills.load(Ordering::Relaxed) - again, new_full);
}

/// How many resources `load_skill` lists for `name`.
async fn resources_loaded(snapshot: &skills_catalog::CatalogSnapshot, name: &str) -> usize {
    load_skill(snapshot, name, &[]).await.to_string().matches("- [").count()
}

#[tokio::test]
async fn a_file_changed_in_a_skill_folder_is_a_change_of_the_skill() {
    let backend = library();
    let lazy = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]).with_lazy_resources(true);
    assert_eq!(resources_loaded(&*lazy.ensure_loaded().await, "skill-04").await, 1);
    backend.inner.insert("/s/skill-04/scripts/new.py", "print()\n").unwrap();
    let event = lazy
        .reload_paths(0, &["/s/skill-04/scripts/new.py".into()])
        .await
        .unwrap();
    assert_eq!(
        event.changes,
        [skills_catalog::CatalogChange::Changed {
            name: "skill-04".into()
        }]
    );
    assert_eq!(resources_loaded(&lazy.snapshot(), "skill-04").await, 2);
}

//! A rig library with the agent's tools and a view: what a session's preamble, search
//! and `load_skill` offer, on one catalog shared with the full library.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use skills_backend_fs::FilesystemBackend;
use skills_catalog::{Invoker, SkillCatalog, SkillSource, SkillView};
use skills_rig::Skills;
use support::write_skill;

fn catalog() -> (tempfile::TempDir, Arc<SkillCatalog>) {
    let dir = tempfile::tempdir().unwrap();
    let deps = "dependencies:\n  tools: [github_create_pr]\n";
    write_skill(dir.path(), "ship-pr", "Open a pull request", deps, "Open it.");
    write_skill(dir.path(), "pdf", "Fill PDF forms", "", "Fill them.");
    write_skill(dir.path(), "sql", "Review SQL migrations", "", "Check locks.");
    let backend = Arc::new(FilesystemBackend::new(dir.path()).unwrap());
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(backend, "/")]));
    (dir, catalog)
}

#[tokio::test]
async fn a_library_without_the_tool_hides_and_refuses_the_skill_that_needs_it() {
    let (_dir, catalog) = catalog();
    let without = Skills::builder(catalog.clone())
        .available_tools(["Read"])
        .build()
        .session();
    assert!(!without.section().await.contains("**ship-pr**"));
    let answer = without.load("ship-pr", None, Invoker::Model).await.to_string();
    assert!(
        answer.contains("needs tools this agent does not have: github_create_pr"),
        "{answer}"
    );
    assert!(!without.search("pull request", 5).await.unwrap().contains("ship-pr"));
    let with = Skills::builder(catalog)
        .available_tools(["github_create_pr"])
        .build()
        .session();
    assert!(with.section().await.contains("**ship-pr**"));
    assert!(!with.load("ship-pr", None, Invoker::Model).await.is_error());
}

#[tokio::test]
async fn a_view_on_the_same_catalog_offers_only_its_skills() {
    let (_dir, catalog) = catalog();
    let all = Skills::new(catalog);
    let docs = all.with_view(SkillView::new("docs").include(["pdf"]).unwrap());
    assert!(Arc::ptr_eq(all.catalog(), docs.catalog()));
    let session = docs.session();
    let section = session.section().await;
    assert!(section.contains("**pdf**") && !section.contains("**sql**"), "{section}");
    assert!(session.load("sql", None, Invoker::Model).await.is_error());
    assert!(
        session
            .search("SQL migrations", 5)
            .await
            .unwrap()
            .contains("No skill matches")
    );
    assert!(all.session().section().await.contains("**sql**"));
}

//! Reloads narrowed to the paths a change names: one edited file is one file read, and
//! the result is what a full reload would give.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use skills_catalog::{CatalogChange, SkillCatalog, SkillSource};
use skills_core::MemoryBackend;

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn library() -> Arc<MemoryBackend> {
    let backend = MemoryBackend::new();
    for i in 0..50 {
        let name = format!("skill-{i:02}");
        backend
            .insert(&format!("/s/{name}/SKILL.md"), md(&name, &format!("Does task {i}")))
            .unwrap();
    }
    backend.insert("/s/skill-01/scripts/run.sh", "echo\n").unwrap();
    Arc::new(backend)
}

/// The library, and a catalog that discovered it.
async fn loaded() -> (Arc<MemoryBackend>, SkillCatalog) {
    let backend = library();
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    catalog.ensure_loaded().await;
    (backend, catalog)
}

/// `SKILL.md` files the catalog has downloaded in all.
fn read(catalog: &SkillCatalog) -> u64 {
    catalog.stats().files_read
}

/// What a catalog discovering `backend` from scratch serves: skills, resources and
/// diagnostics.
async fn fresh(backend: &Arc<MemoryBackend>) -> (Vec<Arc<skills_core::SkillMetadata>>, String, usize) {
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    let snapshot = catalog.ensure_loaded().await;
    (
        snapshot.skills().to_vec(),
        format!("{:?}", snapshot.resources()),
        snapshot.diagnostics().len(),
    )
}

#[tokio::test]
async fn a_one_file_edit_reads_one_file() {
    let (backend, catalog) = loaded().await;
    let start = read(&catalog);
    assert_eq!(start, 50);
    let before = catalog.snapshot();

    backend
        .insert("/s/skill-07/SKILL.md", md("skill-07", "Does task seven, better"))
        .unwrap();
    let event = catalog.reload_paths(0, &["/s/skill-07/SKILL.md".into()]).await.unwrap();
    // The new version shares every skill the edit left alone with the last one (and
    // their resource lists): nothing but the edited skill was copied.
    let after = catalog.snapshot();
    for (old, new) in before.skills().iter().zip(after.skills()) {
        assert_eq!(Arc::ptr_eq(old, new), old.name != "skill-07", "{}", old.name);
        if let (Some(a), Some(b)) = (before.resources().get(&old.name), after.resources().get(&old.name)) {
            assert_eq!(Arc::ptr_eq(a, b), old.name != "skill-07", "resources of {}", old.name);
        }
    }
    assert_eq!(
        event.changes,
        [CatalogChange::Changed {
            name: "skill-07".into()
        }]
    );
    assert_eq!(read(&catalog) - start, 1, "one file read");
    assert_eq!(
        catalog.snapshot().get("skill-07").unwrap().description,
        "Does task seven, better"
    );

    // A new skill, a removed one, a new resource: each reads its own folder only.
    backend.insert("/s/added/SKILL.md", md("added", "New here")).unwrap();
    let event = catalog.reload_paths(0, &["/s/added/SKILL.md".into()]).await.unwrap();
    assert_eq!(event.changes, [CatalogChange::Added { name: "added".into() }]);
    assert_eq!(backend.remove("/s/skill-03/SKILL.md"), 1);
    let event = catalog.reload_paths(0, &["/s/skill-03/SKILL.md".into()]).await.unwrap();
    assert_eq!(
        event.changes,
        [CatalogChange::Removed {
            name: "skill-03".into()
        }]
    );
    backend.insert("/s/skill-01/references/guide.md", "# Guide\n").unwrap();
    let event = catalog
        .reload_paths(0, &["/s/skill-01/references/guide.md".into()])
        .await
        .unwrap();
    assert_eq!(
        event.changes,
        [CatalogChange::Changed {
            name: "skill-01".into()
        }]
    );
    assert_eq!(catalog.snapshot().resources()["skill-01"].len(), 2);
    assert_eq!(
        read(&catalog) - start,
        2,
        "a resource change lists that folder, no other, and its unchanged SKILL.md is not read again"
    );
    // A path outside every skill folder and hidden folders change nothing.
    assert!(
        catalog
            .reload_paths(0, &["/s/.git/index".into(), "/elsewhere/x".into()])
            .await
            .is_none()
    );

    let snapshot = catalog.snapshot();
    let (skills, resources, diagnostics) = fresh(&backend).await;
    assert_eq!(snapshot.skills(), &skills[..], "as a full reload");
    assert_eq!(format!("{:?}", snapshot.resources()), resources);
    assert_eq!(snapshot.diagnostics().len(), diagnostics);
}

#[tokio::test]
async fn a_broken_edit_keeps_the_last_good_version() {
    let backend = library();
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    catalog.ensure_loaded().await;
    backend
        .insert(
            "/s/skill-05/SKILL.md",
            "---\nname: skill-05\ndescription: [unclosed\n---\n",
        )
        .unwrap();
    let event = catalog.reload_paths(0, &["/s/skill-05/SKILL.md".into()]).await.unwrap();
    assert!(
        matches!(&event.changes[..], [CatalogChange::KeptLastGood { name, .. }] if name == "skill-05"),
        "{:?}",
        event.changes
    );
    assert_eq!(catalog.snapshot().get("skill-05").unwrap().description, "Does task 5");
    // Fixed again: served as edited.
    backend.insert("/s/skill-05/SKILL.md", md("skill-05", "Fixed")).unwrap();
    catalog.reload_paths(0, &["/s/skill-05/SKILL.md".into()]).await.unwrap();
    assert_eq!(catalog.snapshot().get("skill-05").unwrap().description, "Fixed");
}

#[tokio::test]
async fn a_rename_onto_another_skills_name_is_decided_by_a_full_reload() {
    let backend = library();
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    catalog.ensure_loaded().await;
    let walks_before = catalog.stats().reloads;
    backend
        .insert("/s/skill-09/SKILL.md", md("skill-10", "Now a twin"))
        .unwrap();
    catalog.reload_paths(0, &["/s/skill-09/SKILL.md".into()]).await;
    assert_eq!(catalog.stats().reloads, walks_before + 1);
    let (skills, _, diagnostics) = fresh(&backend).await;
    assert_eq!(catalog.snapshot().skills(), &skills[..]);
    assert_eq!(catalog.snapshot().diagnostics().len(), diagnostics);
}

#[tokio::test]
async fn a_source_that_had_no_skill_folder_is_walked_again() {
    // Skills one level too deep: the walk finds no skill folder and says to look deeper.
    let backend = Arc::new(MemoryBackend::new());
    backend.insert("/s/group/one/SKILL.md", md("one", "Deep")).unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.diagnostics().len(), 1, "{:?}", snapshot.diagnostics());
    // A skill arrives at the first level: the hint no longer holds, and only a walk
    // can say so.
    backend.insert("/s/two/SKILL.md", md("two", "Shallow")).unwrap();
    catalog.reload_paths(0, &["/s/two/SKILL.md".into()]).await.unwrap();
    let snapshot = catalog.snapshot();
    assert_eq!(snapshot.get("two").unwrap().description, "Shallow");
    let (skills, _, diagnostics) = fresh(&backend).await;
    assert_eq!(snapshot.skills(), &skills[..]);
    assert_eq!(
        snapshot.diagnostics().len(),
        diagnostics,
        "{:?}",
        snapshot.diagnostics()
    );
}

#[tokio::test]
async fn a_full_reload_after_a_narrowed_one_reads_only_what_changed() {
    let (backend, catalog) = loaded().await;
    backend
        .insert("/s/skill-07/SKILL.md", md("skill-07", "Does task seven, better"))
        .unwrap();
    catalog.reload_paths(0, &["/s/skill-07/SKILL.md".into()]).await.unwrap();
    let before = read(&catalog);
    // The narrowed reload kept what it knew of the other folders: a full reload (a
    // rescan) finds every file unchanged and reads none.
    assert!(catalog.reload().await.is_none());
    assert_eq!(read(&catalog) - before, 0);
    backend
        .insert("/s/skill-09/SKILL.md", md("skill-09", "Does task nine, better"))
        .unwrap();
    catalog.reload().await.unwrap();
    assert_eq!(read(&catalog) - before, 1);
}

#[tokio::test]
async fn a_narrowed_reload_keeps_rewrites_and_drops_diagnostics_as_a_full_one_gives_them() {
    let (backend, catalog) = loaded().await;
    let said = |catalog: &SkillCatalog| format!("{:?}", catalog.snapshot().diagnostics());
    let from_scratch = || async {
        let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
        catalog.ensure_loaded().await;
        said(&catalog)
    };
    let edit = |path: &str, text: String| {
        backend.insert(path, text).unwrap();
        vec![path.to_owned()]
    };
    // A name that is not its folder's: a warning of that folder.
    let paths = edit("/s/skill-03/SKILL.md", md("skill-three", "Does task three"));
    catalog.reload_paths(0, &paths).await.unwrap();
    assert!(said(&catalog).contains("skill-03"), "{}", said(&catalog));
    assert_eq!(said(&catalog), from_scratch().await);
    // Another folder's edit keeps it; the fix drops it.
    let paths = edit("/s/skill-04/SKILL.md", md("skill-04", "Does task four, better"));
    catalog.reload_paths(0, &paths).await.unwrap();
    assert_eq!(said(&catalog), from_scratch().await);
    let paths = edit("/s/skill-03/SKILL.md", md("skill-03", "Does task three"));
    catalog.reload_paths(0, &paths).await.unwrap();
    assert_eq!(said(&catalog), "[]");
    assert_eq!(said(&catalog), from_scratch().await);
}

#[tokio::test]
async fn a_name_declared_twice_keeps_its_first_place_through_reloads() {
    // In path order `stagehand-2/` < `stagehand-browserbase/` < `stagehand/` (`-` sorts
    // before `/`): the later `stagehand/` declares the name of `stagehand-2/` again, and
    // is kept in its place, before `stagehand-browserbase` (the listing is out of path
    // order there). A reload of either copy gives what a fresh discovery gives.
    let backend = Arc::new(MemoryBackend::new());
    backend.insert("/s/alpha/SKILL.md", md("alpha", "First")).unwrap();
    backend
        .insert("/s/stagehand/SKILL.md", md("stagehand", "The kept one"))
        .unwrap();
    backend
        .insert("/s/stagehand-2/SKILL.md", md("stagehand", "The hidden one"))
        .unwrap();
    backend
        .insert(
            "/s/stagehand-browserbase/SKILL.md",
            md("stagehand-browserbase", "Another"),
        )
        .unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    let snapshot = catalog.ensure_loaded().await;
    let seen: Vec<(&str, &str)> = snapshot
        .skills()
        .iter()
        .map(|s| (s.name.as_str(), s.description.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("alpha", "First"),
            ("stagehand", "The kept one"),
            ("stagehand-browserbase", "Another")
        ]
    );
    let described = |skills: &[Arc<skills_core::SkillMetadata>]| -> Vec<(String, String)> {
        skills.iter().map(|s| (s.name.clone(), s.description.clone())).collect()
    };
    for (path, description) in [
        ("/s/stagehand/SKILL.md", "The kept one, edited"),
        ("/s/stagehand-2/SKILL.md", "The hidden one, edited"),
    ] {
        backend.insert(path, md("stagehand", description)).unwrap();
        catalog.reload_paths(0, &[path.into()]).await;
        let (skills, _, diagnostics) = fresh(&backend).await;
        let after = catalog.snapshot();
        assert_eq!(described(after.skills()), described(&skills), "after {path}");
        assert_eq!(after.diagnostics().len(), diagnostics, "after {path}");
    }
    // Without the folder that was kept, the copy it hid is the skill.
    assert_eq!(backend.remove("/s/stagehand/SKILL.md"), 1);
    catalog.reload_paths(0, &["/s/stagehand/SKILL.md".into()]).await;
    let (skills, _, _) = fresh(&backend).await;
    let after = catalog.snapshot();
    assert_eq!(described(after.skills()), described(&skills));
    assert_eq!(after.get("stagehand").unwrap().description, "The hidden one, edited");
}

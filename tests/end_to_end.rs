//! End-to-end through the facade crate: the shipped examples on the local-disk backend,
//! layered with a project source.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::path::Path;

use skills_runtime::fs::FilesystemBackend;
use skills_runtime::{BackendProtocol, DiagnosticKind, list_skills, merge_last_wins};

fn examples() -> FilesystemBackend {
    FilesystemBackend::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/skills")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shipped_examples_are_valid_skills_with_resources() {
    let backend = examples();
    let listing = list_skills(&backend, "/").await.unwrap();
    assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "changelog-writer",
            "code-review",
            "incident-postmortem",
            "sql-review",
            "web-research"
        ]
    );
    for skill in &listing.skills {
        assert!(skill.description.len() > 40, "{} needs a real description", skill.name);
        let walk = backend.walk(skill.dir(), 2).await.unwrap();
        let standard = walk.entries.iter().filter(|e| {
            ["scripts", "references", "assets"]
                .iter()
                .any(|d| e.path.starts_with(&format!("{}/{d}/", skill.dir())))
        });
        assert!(standard.count() >= 1, "{} has no resources", skill.name);
    }
}

#[tokio::test]
async fn a_project_source_overrides_an_example_and_reports_its_problems() {
    let project = tempfile::tempdir().unwrap();
    let write = |rel: &str, content: &str| {
        let path = project.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    };
    write(
        "code-review/SKILL.md",
        "---\nname: code-review\ndescription: Our house rules\n---\n",
    );
    write("draft/SKILL.md", "---\nname: draft\n---\n");
    let project_backend = FilesystemBackend::new(project.path()).unwrap();

    let base = list_skills(&examples(), "/").await.unwrap();
    let ours = list_skills(&project_backend, "/").await.unwrap();
    assert_eq!(ours.diagnostics.len(), 1);
    assert_eq!(ours.diagnostics[0].kind, DiagnosticKind::MissingDescription);

    let merged = merge_last_wins([base.skills, ours.skills]);
    assert_eq!(merged.len(), 5);
    let review = merged.iter().find(|m| m.skill.name == "code-review").unwrap();
    assert_eq!(
        (review.skill.description.as_str(), review.source),
        ("Our house rules", 1)
    );
    assert_eq!(review.shadowed.len(), 1);
}

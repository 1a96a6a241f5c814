//! `find_files` on disk: one `stat` asks a folder for `SKILL.md` before it is listed, so
//! a skill folder's insides, hidden folders and `node_modules` are never walked.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_backend_fs::FilesystemBackend;
use skills_core::BackendProtocol;

#[tokio::test]
async fn skill_folders_hidden_folders_and_node_modules_are_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        "repo/plugins/docs/skills/write/SKILL.md",
        "repo/plugins/docs/skills/write/scripts/run.sh",
        "repo/plugins/docs/skills/write/nested/SKILL.md",
        "repo/plugins/docs/README.md",
        "repo/.git/skills/hidden/SKILL.md",
        "repo/node_modules/pkg/skills/vendored/SKILL.md",
        "repo/.skill/SKILL.md",
    ];
    for file in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let found = backend.find_files("/repo", "SKILL.md", 5).await.unwrap();
    let paths: Vec<&str> = found.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/repo/.git",
            "/repo/.skill",
            "/repo/.skill/SKILL.md",
            "/repo/node_modules",
            "/repo/plugins",
            "/repo/plugins/docs",
            "/repo/plugins/docs/skills",
            "/repo/plugins/docs/skills/write",
            "/repo/plugins/docs/skills/write/SKILL.md",
        ],
        "a walk would list scripts/, nested/, README.md and what .git and node_modules hold"
    );
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    // The provided implementation (a walk) finds the same SKILL.md files and more.
    let walked = backend.walk("/repo", 5).await.unwrap();
    assert!(walked.entries.len() > found.entries.len() + 5);
}

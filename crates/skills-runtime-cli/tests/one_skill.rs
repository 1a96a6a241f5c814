//! A repository or folder that is one skill (its `SKILL.md` at its root) read as a
//! source at depth 0: listed, locked and verified, and installed by `skills add`,
//! which finds out by itself and records `depth = 0` so that `skills sync` and
//! `skills update` read it the same way. Run as a user runs it (a temporary project
//! and HOME, real git repositories, real folders).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{json, md, stderr, stdout, strings, with_git_cache, write};
use skills_backend_git::test_support::TestRepo;

fn installed(root: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(root.join(".agents/skills").join(name).join("SKILL.md")).ok()
}

#[test]
fn a_repository_that_is_one_skill_is_installed_recorded_updated_and_synced() {
    let mut repo = TestRepo::new();
    repo.write("SKILL.md", md("fill-forms", "Fill PDF forms"))
        .write("scripts/fill.py", "print('fill')\n")
        .write("README.md", "# fill-forms\n");
    repo.commit("main", "v1");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let source = format!("git+file://{}", repo.path().display());

    let out = with_git_cache(dir.path(), &["add", &source]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{source} is one skill folder: reading it at depth 0")),
        "{}",
        stderr(&out)
    );
    // Named as its SKILL.md names it, with its files.
    assert!(installed(dir.path(), "fill-forms").unwrap().contains("Fill PDF forms"));
    assert!(dir.path().join(".agents/skills/fill-forms/scripts/fill.py").is_file());
    assert!(dir.path().join(".claude/skills/fill-forms/SKILL.md").is_file());
    let toml = std::fs::read_to_string(dir.path().join("skills.toml")).unwrap();
    assert!(toml.contains(&format!("source = \"{source}\"\ndepth = 0\n")), "{toml}");
    let lock = std::fs::read_to_string(dir.path().join("skills.lock")).unwrap();
    assert!(lock.contains("depth = 0"), "{lock}");

    // A new version of the repository: `update` reads it at depth 0 again.
    repo.write("SKILL.md", md("fill-forms", "Fill PDF forms, now with checkboxes"));
    repo.commit("main", "v2");
    let out = with_git_cache(dir.path(), &["update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(installed(dir.path(), "fill-forms").unwrap().contains("checkboxes"));

    // A fresh clone of the project: `sync` reads skills.toml's depth.
    std::fs::remove_dir_all(dir.path().join(".agents")).unwrap();
    std::fs::remove_file(dir.path().join("skills.lock")).unwrap();
    let out = with_git_cache(dir.path(), &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(installed(dir.path(), "fill-forms").unwrap().contains("checkboxes"));
    assert!(
        !stderr(&out).contains("one skill folder"),
        "sync reads skills.toml as written"
    );
}

#[test]
fn a_skill_folder_of_a_collection_is_installed_alone() {
    let mut repo = TestRepo::new();
    repo.write("skills/pdf/SKILL.md", md("pdf", "Read PDFs"))
        .write("skills/pdf/reference.md", "# forms\n")
        .write("skills/web/SKILL.md", md("web", "Search the web"));
    repo.commit("main", "v1");
    let dir = tempfile::tempdir().unwrap();
    let source = format!("git+file://{}#path=skills/pdf", repo.path().display());

    let out = with_git_cache(dir.path(), &["add", &source]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(installed(dir.path(), "pdf").is_some());
    assert!(dir.path().join(".agents/skills/pdf/reference.md").is_file());
    assert!(installed(dir.path(), "web").is_none(), "only the folder given");
}

#[test]
fn a_local_working_tree_is_read_where_it_is_without_its_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "work/fill-forms/SKILL.md", &md("fill-forms", "Fill PDF forms"));
    write(root, "work/fill-forms/scripts/fill.py", "print('fill')\n");
    write(root, "work/fill-forms/.git/config", "[core]\n");
    write(root, "work/secret.txt", "not the skill's\n");
    write(root, "work/other/SKILL.md", &md("other", "Another skill beside it"));
    let folder = root.join("work/fill-forms");
    let folder = folder.to_str().unwrap();

    // Without depth 0 the source is said to be a skill, with what to do.
    let out = with_git_cache(root, &["list", "--source", folder]);
    assert!(stderr(&out).contains("source-is-a-skill"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--depth 0"), "{}", stderr(&out));

    let out = with_git_cache(root, &["list", "--json", "--source", folder, "--depth", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = json(&out);
    assert_eq!(strings(&list, "name"), ["fill-forms"]);
    // The path a person or an agent opens is the file on disk.
    assert_eq!(strings(&list, "path"), [format!("{folder}/SKILL.md").as_str()]);

    let out = with_git_cache(root, &["info", "fill-forms", "--source", folder, "--depth", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("scripts/fill.py"), "{}", stdout(&out));
    assert!(!stdout(&out).contains(".git/config"), "{}", stdout(&out));

    // A skills.toml source at depth 0, locked and verified.
    let project = root.join("project");
    write(
        &project,
        "skills.toml",
        &format!("[[source]]\nlocation = \"{folder}\"\ndepth = 0\n"),
    );
    let out = with_git_cache(&project, &["list", "--json"]);
    assert_eq!(strings(&json(&out), "name"), ["fill-forms"], "{}", stderr(&out));
    let out = with_git_cache(&project, &["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = with_git_cache(&project, &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    write(root, "work/fill-forms/scripts/fill.py", "print('changed')\n");
    let out = with_git_cache(&project, &["verify"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a changed file of the skill is seen: {}",
        stdout(&out)
    );

    // Installed from the folder: its files, not its repository, nothing beside it.
    let out = with_git_cache(&project, &["add", folder]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(installed(&project, "fill-forms").is_some());
    assert!(project.join(".agents/skills/fill-forms/scripts/fill.py").is_file());
    assert!(!project.join(".agents/skills/fill-forms/.git").exists());
    assert!(installed(&project, "other").is_none());
    assert!(!Path::new(&project.join(".agents/skills/secret.txt")).exists());
}

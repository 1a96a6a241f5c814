//! The installer's other faces, run as a user runs them: `list --installed`, `remove
//! --agent`, the GitHub shorthand, and taking over the npm installer's lock.

#![allow(clippy::unwrap_used)]

mod common;

use common::{md, skills, stderr, stdout, web_and_pdf as library, with_git_cache, write};
use skills_backend_git::test_support::TestRepo;

#[test]
fn list_installed_shows_where_each_skill_is_and_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    write(root, "lib/notes/SKILL.md", &md("notes", "Take notes"));
    write(root, "lib/gone/SKILL.md", &md("gone", "Deleted here later"));
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = root.join("lib");
    assert_eq!(skills(&project, &["add", lib.to_str().unwrap()]).status.code(), Some(0));
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));
    write(&project, ".agents/skills/notes/SKILL.md", "my own notes\n");
    std::fs::remove_dir_all(project.join(".agents/skills/gone")).unwrap();

    let out = skills(&project, &["list", "--installed", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states: Vec<(&str, &str)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [
            ("gone", "missing"),
            ("notes", "modified"),
            ("pdf", "up-to-date"),
            ("web", "outdated")
        ]
    );
    assert_eq!(rows[2]["linked"], serde_json::json!([".claude/skills"]));
    let table = stdout(&skills(&project, &["list", "--installed"]));
    assert!(table.starts_with("NAME   STATE       SOURCE"), "{table}");
    assert!(table.contains("web    outdated"), "{table}");
    assert!(
        table.ends_with(&format!("4 skills in {}\n", project.join(".agents/skills").display())),
        "{table}"
    );
}

/// A project the npm installer set up moves over with one command.
#[test]
fn sync_takes_over_the_npm_installers_skills_lock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "project/vendor/lib/web/SKILL.md", &md("web", "Search the web"));
    write(root, "project/vendor/lib/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let mut repo = TestRepo::new();
    repo.write("skills/team/SKILL.md", md("team", "The team's way"));
    repo.commit("main", "v1");
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let npm_lock = format!(
        r#"{{"version": 1, "skills": {{
            "web": {{"source": "./vendor/lib", "sourceType": "local", "skillPath": "web/SKILL.md", "computedHash": "x"}},
            "team": {{"source": "team/skills", "sourceUrl": "file://{}", "ref": "main", "sourceType": "git",
                      "skillPath": "skills/team/SKILL.md", "computedHash": "y"}},
            "left-pad": {{"source": "left-pad", "sourceType": "node_modules", "computedHash": "z"}}
        }}}}"#,
        repo.path().display()
    );
    write(&project, "skills-lock.json", &npm_lock);
    let out = with_git_cache(&project, &["sync", "--from-npm-lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("left-pad: installed from an npm package: npm keeps it; not taken over"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("skills-lock.json: 2 skills from 2 sources"),
        "{}",
        stdout(&out)
    );
    assert!(project.join(".claude/skills/web/SKILL.md").is_file());
    assert!(project.join(".claude/skills/team/SKILL.md").is_file());
    assert!(
        !project.join(".agents/skills/pdf").exists(),
        "only what the npm lock names"
    );
    let config = std::fs::read_to_string(project.join("skills.toml")).unwrap();
    assert!(config.contains("#ref=main&path=skills"), "{config}");
    // From now on the project is ours: a plain sync has nothing to do.
    let out = with_git_cache(&project, &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).matches("nothing to change").count() == 2,
        "{}",
        stdout(&out)
    );
}

#[test]
fn remove_from_one_agent_keeps_the_skill_for_the_others() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = dir.path().join("lib");
    let args = [
        "add",
        lib.to_str().unwrap(),
        "--agent",
        "claude-code",
        "--agent",
        "goose",
        "--yes",
    ];
    assert_eq!(skills(&project, &args).status.code(), Some(0));
    let out = skills(&project, &["remove", "web", "--agent", "goose"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(project.join(".goose/skills/web").symlink_metadata().is_err());
    assert!(project.join(".claude/skills/web/SKILL.md").is_file());
    assert!(project.join(".agents/skills/web/SKILL.md").is_file());
    assert!(
        std::fs::read_to_string(project.join("skills.lock"))
            .unwrap()
            .contains("[skills.\"web\"]")
    );
    let out = skills(&project, &["remove", "web", "--agent", "goose"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("goose: no web of ours"), "{}", stderr(&out));
}

/// `owner/repo` stands for a GitHub repository only when no folder has that name.
#[test]
fn a_folder_named_like_the_github_shorthand_is_read_as_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "team/lib/web/SKILL.md", &md("web", "Search the web"));
    let out = skills(dir.path(), &["add", "team/lib", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("install web (1 files)"), "{}", stdout(&out));
    assert!(!stderr(&out).contains("github"), "{}", stderr(&out));
}

/// A team signs its skills.lock; a fresh clone installs only from a lock with a good
/// signature by the trusted key.
#[test]
fn sync_and_update_refuse_a_lock_without_a_good_signature() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    assert_eq!(skills(&project, &["add", "../lib"]).status.code(), Some(0));
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let public = root.join("team.pub");
    std::fs::write(&public, pair.pk.to_box().unwrap().into_string()).unwrap();
    let lockfile = project.join("skills.lock");
    let text = std::fs::read(&lockfile).unwrap();
    let signature = minisign::sign(None, &pair.sk, &text[..], Some("skills.lock"), None).unwrap();
    std::fs::write(project.join("skills.lock.minisig"), signature.into_string()).unwrap();
    let public = public.to_str().unwrap();

    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    let out = skills(&project, &["sync", "--frozen", "--trusted-key", public]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(project.join(".claude/skills/web/SKILL.md").is_file());

    // The lock edited after signing: nothing is installed from it.
    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    let edited = String::from_utf8(text).unwrap().replace("size = ", "size =  ");
    std::fs::write(&lockfile, edited).unwrap();
    for args in [
        &["sync", "--trusted-key", public][..],
        &["update", "--trusted-key", public],
    ] {
        let out = skills(&project, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));
        assert!(!project.join(".agents/skills/web").exists());
    }
}

/// `skills lock` in a project that installs skills never writes over the lock of what
/// was installed.
#[test]
fn a_library_lock_is_never_written_over_the_install_lock() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    assert_eq!(skills(&project, &["add", "../lib"]).status.code(), Some(0));
    let before = std::fs::read_to_string(project.join("skills.lock")).unwrap();
    let out = skills(&project, &["lock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("pins the skills `skills add` installed here"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(project.join("skills.lock")).unwrap(), before);
    let out = skills(&project, &["lock", "--lockfile", "library.lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(project.join("library.lock").is_file());
}

/// Copies instead of links: updated with the skill, removed with it, and kept when
/// someone edited them.
#[test]
fn copies_follow_updates_and_removal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let out = skills(&project, &["add", "../lib", "--copy", "--agent", "goose"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let copy = project.join(".goose/skills/web");
    assert!(!copy.symlink_metadata().unwrap().file_type().is_symlink());
    write(root, "lib/web/scripts/fetch.py", "print('v2')\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs, v2"));
    write(&project, ".goose/skills/pdf/notes.md", "mine\n");
    let out = skills(&project, &["update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(copy.join("scripts/fetch.py")).unwrap(),
        "print('v2')\n"
    );
    assert!(
        stderr(&out).contains(".goose/skills/pdf is not ours"),
        "{}",
        stderr(&out)
    );
    assert!(
        project.join(".goose/skills/pdf/notes.md").is_file(),
        "an edited copy is kept"
    );
    let listed = stdout(&skills(&project, &["list", "--installed", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(rows[1]["name"], "web");
    assert_eq!(rows[1]["linked"], serde_json::json!([".goose/skills"]));
    let out = skills(&project, &["remove", "web"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(copy.symlink_metadata().is_err(), "the copy went with the skill");
}

/// A folder that is itself one skill is installed as that skill (read at depth 0, said);
/// its parent folder can be given instead, as a library.
#[test]
fn adding_a_skill_folder_installs_that_skill() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "one/SKILL.md", &md("one", "One skill"));
    let out = skills(dir.path(), &["add", "./one", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("is one skill folder"), "{}", stderr(&out));
    assert!(stdout(&out).contains("install one"), "{}", stdout(&out));
    let out = skills(dir.path(), &["add", ".", "--skill", "one", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("install one"), "{}", stdout(&out));
}

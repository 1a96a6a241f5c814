//! `skills add`: skills of a source installed into a project's `.agents/skills` and
//! linked into each agent's folder, run as a user runs it (a temporary project and
//! HOME, a real git repository).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{md, skills, stderr, stdout, web_and_pdf as library, with_git_cache, write};
use skills_backend_git::test_support::TestRepo;

/// The `SKILL.md` of skill `name` installed under `root` (a project or a home folder).
fn installed_skill_md(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(".agents/skills").join(name).join("SKILL.md")).unwrap()
}

/// `lib` (web and pdf) installed whole into `project` (with a `.claude` folder when
/// `claude`), under `root`; the project's path.
fn installed(root: &Path, claude: bool) -> std::path::PathBuf {
    library(root);
    let project = root.join("project");
    std::fs::create_dir_all(if claude {
        project.join(".claude")
    } else {
        project.clone()
    })
    .unwrap();
    let lib = root.join("lib");
    assert_eq!(skills(&project, &["add", lib.to_str().unwrap()]).status.code(), Some(0));
    project
}

#[test]
fn add_installs_links_pins_and_never_replaces_a_local_edit_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    std::fs::create_dir_all(root.join("project/.claude")).unwrap();
    let project = root.join("project");
    let lib = root.join("lib");
    let lib = lib.to_str().unwrap();

    let out = skills(&project, &["add", lib, "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("install web (2 files)"), "{}", stdout(&out));
    assert!(stdout(&out).contains("linked for claude-code"), "{}", stdout(&out));
    assert!(!project.join(".agents").exists() && !project.join("skills.lock").exists());

    let out = skills(&project, &["add", lib]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let installed = project.join(".agents/skills/web/scripts/fetch.py");
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), "print('fetch')\n");
    let link = project.join(".claude/skills/web");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../../.agents/skills/web")
    );
    assert!(link.join("SKILL.md").is_file(), "the link resolves");
    let lock = std::fs::read_to_string(project.join("skills.lock")).unwrap();
    assert!(
        lock.contains("[skills.\"web\"]") && lock.contains("scripts/fetch.py"),
        "{lock}"
    );

    // A second run changes nothing and says so.
    let out = skills(&project, &["add", lib]);
    assert!(
        stdout(&out).contains("unchanged pdf") && stdout(&out).contains("unchanged web"),
        "{}",
        stdout(&out)
    );

    // A new version upstream is an update; an edit here is kept unless --force.
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));
    let out = skills(&project, &["add", lib, "--skill", "web"]);
    assert!(
        stdout(&out).contains("update web: 1 changed (SKILL.md)"),
        "{}",
        stdout(&out)
    );
    let edited = project.join(".agents/skills/web/SKILL.md");
    std::fs::write(&edited, "my own words").unwrap();
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, best"));
    let out = skills(&project, &["add", lib, "--skill", "web"]);
    assert!(stdout(&out).contains("keep web: edited here"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "my own words");
    let out = skills(&project, &["add", lib, "--skill", "web", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&edited).unwrap().contains("best"));
    let backups = project.join(".agents/.skills-install/backup");
    let backup = std::fs::read_dir(&backups).unwrap().next().unwrap().unwrap().path();
    assert_eq!(
        std::fs::read_to_string(backup.join("SKILL.md")).unwrap(),
        "my own words"
    );
}

#[test]
fn add_refuses_unknown_skills_and_agents_with_what_there_is() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let lib = dir.path().join("lib");
    let lib = lib.to_str().unwrap();
    let out = skills(dir.path(), &["add", lib, "--skill", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no skill nope; it has: pdf, web"),
        "{}",
        stderr(&out)
    );
    let out = skills(dir.path(), &["add", lib, "--agent", "clode"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown agent \"clode\"") && stderr(&out).contains("claude-code"));
    assert!(!dir.path().join(".agents").exists());
}

#[test]
fn a_skill_added_by_name_is_told_only_of_its_own_problems() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    write(dir.path(), "lib/broken/SKILL.md", "no frontmatter here\n");
    write(
        dir.path(),
        "lib/also-broken/SKILL.md",
        "---\nname: also-broken\n---\nNo description.\n",
    );
    let lib = dir.path().join("lib");
    let lib = lib.to_str().unwrap();

    // The skill asked for is installed; what the rest of the source skipped is counted.
    let out = skills(dir.path(), &["add", lib, "--skill", "web", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(!said.contains("broken"), "{said}");
    assert!(said.contains("2 skipped skills in the library not shown"), "{said}");
    assert!(stdout(&out).contains("install web"), "{}", stdout(&out));

    // A skill asked for that was skipped: why, then that the source has no such skill.
    let out = skills(dir.path(), &["add", lib, "--skill", "broken", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("/lib/broken/SKILL.md: no-frontmatter"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("also-broken"), "{}", stderr(&out));
    assert!(stderr(&out).contains("no skill broken"), "{}", stderr(&out));

    // Everything: every skipped skill is listed, as it is not installed.
    let out = skills(dir.path(), &["add", lib, "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("/lib/broken/SKILL.md: no-frontmatter") && stderr(&out).contains("also-broken"));
}

#[cfg(unix)]
#[test]
fn a_hostile_source_is_refused_with_a_clear_message_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = dir.path().join("lib");
    let lib = lib.to_str().unwrap();
    let nothing_written = |out: &std::process::Output| {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
        assert!(!project.join(".agents").exists(), "{}", stdout(out));
        assert!(!project.join(".claude/skills").exists());
        assert!(!project.join("skills.lock").exists() && !project.join("skills.toml").exists());
    };

    // A link to a file outside the source.
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("lib/web/secret")).unwrap();
    let out = skills(&project, &["add", lib]);
    nothing_written(&out);
    assert!(
        stderr(&out).contains("web/secret: a link leading out of the source"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(dir.path().join("lib/web/secret")).unwrap();

    // A file over the size limit of one file.
    write(dir.path(), "lib/pdf/big.bin", &"x".repeat(11 * 1024 * 1024));
    let out = skills(&project, &["add", lib]);
    nothing_written(&out);
    assert!(stderr(&out).contains("pdf: cannot be installed:"), "{}", stderr(&out));
    assert!(stderr(&out).contains("pdf/big.bin"), "{}", stderr(&out));
}

#[test]
fn add_reads_a_git_source_into_the_home_folder_with_global() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "from git"));
    repo.commit("main", "v1");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("home/.claude")).unwrap();
    let source = format!("git+file://{}#ref=main&path=skills", repo.path().display());
    let out = with_git_cache(dir.path(), &["add", &source, "--global", "--agent", "claude-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let home = dir.path().join("home");
    assert!(installed_skill_md(&home, "web").contains("from git"));
    assert!(home.join(".claude/skills/web/SKILL.md").is_file());
    let lock = std::fs::read_to_string(home.join(".agents/skills.lock")).unwrap();
    assert!(!home.join("skills.lock").exists(), "the home directory is no project");
    assert!(lock.contains("resolved = \"git:"), "{lock}");

    // A new commit links to a file outside the repository: the update is refused and
    // the installed version stays as it was.
    repo.write("skills/web/SKILL.md", md("web", "changed upstream"))
        .link("skills/web/passwd", "/etc/passwd");
    repo.commit("main", "v2");
    let out = with_git_cache(dir.path(), &["update", "--global"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("web/passwd: a symbolic link (not served from git)"),
        "{}",
        stderr(&out)
    );
    assert!(installed_skill_md(&home, "web").contains("from git"));
    assert_eq!(std::fs::read_to_string(home.join(".agents/skills.lock")).unwrap(), lock);
}

#[test]
fn outdated_names_the_installed_skills_whose_files_changed_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let lib = root.join("lib");
    let lib = lib.to_str().unwrap();
    assert_eq!(skills(&project, &["add", lib]).status.code(), Some(0));
    let out = skills(&project, &["outdated"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("2 skills up to date"), "{}", stdout(&out));

    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));
    write(root, "lib/web/references/new.md", "new\n");
    std::fs::remove_dir_all(root.join("lib/pdf")).unwrap();
    let out = skills(&project, &["outdated"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "pdf: gone from its source\nweb: outdated: 1 added (references/new.md), 1 changed (SKILL.md)\n"
    );
    let json: serde_json::Value = serde_json::from_slice(&skills(&project, &["outdated", "--json"]).stdout).unwrap();
    assert_eq!(json[1]["name"], "web");
    assert_eq!(json[1]["changed"], serde_json::json!(["SKILL.md"]));
}

#[test]
fn outdated_on_git_compares_files_not_commits() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "v1"));
    repo.write("skills/pdf/SKILL.md", md("pdf", "v1"));
    repo.commit("main", "v1");
    let dir = tempfile::tempdir().unwrap();
    let source = format!("git+file://{}#ref=main&path=skills", repo.path().display());
    let run = |args: &[&str]| with_git_cache(dir.path(), args);
    assert_eq!(run(&["add", &source]).status.code(), Some(0));
    // A commit that touches only pdf: web is not outdated, though the commit moved.
    repo.write("skills/pdf/SKILL.md", md("pdf", "v2"));
    repo.commit("main", "v2");
    let out = run(&["outdated"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "pdf: outdated: 1 changed (SKILL.md)\n");
}

#[test]
fn remove_takes_a_skill_out_of_every_folder_and_the_lock_but_keeps_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = installed(root, true);

    let out = skills(&project, &["remove", "pdf", "--dry-run"]);
    assert!(stdout(&out).contains("remove pdf and its links in"), "{}", stdout(&out));
    assert!(project.join(".agents/skills/pdf").is_dir());

    let out = skills(&project, &["remove", "pdf"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!project.join(".agents/skills/pdf").exists());
    assert!(project.join(".claude/skills/pdf").symlink_metadata().is_err());
    let lock = std::fs::read_to_string(project.join("skills.lock")).unwrap();
    assert!(
        !lock.contains("[skills.\"pdf\"]") && lock.contains("[skills.\"web\"]"),
        "{lock}"
    );

    std::fs::write(project.join(".agents/skills/web/SKILL.md"), "edited").unwrap();
    let out = skills(&project, &["remove", "web"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("keep web: edited here"), "{}", stderr(&out));
    assert!(project.join(".agents/skills/web").is_dir());
    let out = skills(&project, &["remove", "web", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!project.join(".agents/skills/web").exists());
    assert!(
        stdout(&out).contains("your edited version is kept at"),
        "{}",
        stdout(&out)
    );
    let out = skills(&project, &["remove", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope is not installed"), "{}", stderr(&out));
}

#[test]
fn update_installs_the_new_versions_from_the_locked_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = installed(root, false);
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs, better"));
    std::fs::write(project.join(".agents/skills/pdf/SKILL.md"), "my pdf notes").unwrap();

    let out = skills(&project, &["update", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("update web: 1 changed (SKILL.md)"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("keep pdf: edited here"), "{}", stdout(&out));
    assert!(!installed_skill_md(&project, "web").contains("better"));

    let out = skills(&project, &["update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(installed_skill_md(&project, "web").contains("better"));
    assert_eq!(installed_skill_md(&project, "pdf"), "my pdf notes");
    // The lock pins the new web: outdated now names only the edited pdf's source change.
    let out = skills(&project, &["outdated"]);
    assert_eq!(stdout(&out), "pdf: outdated: 1 changed (SKILL.md)\n");
    let out = skills(&project, &["update", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not installed: nope; installed: pdf, web"),
        "{}",
        stderr(&out)
    );
}

/// A skill its source no longer has (a release of obra/superpowers took six away) is
/// said and left installed; the others are updated.
#[test]
fn update_keeps_a_skill_gone_from_its_source_and_updates_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = installed(root, false);
    std::fs::remove_dir_all(root.join("lib/pdf")).unwrap();
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));

    let out = skills(&project, &["update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pdf: gone from ") && stderr(&out).contains("the installed version is kept"),
        "{}",
        stderr(&out)
    );
    assert!(installed_skill_md(&project, "web").contains("better"));
    assert!(project.join(".agents/skills/pdf/SKILL.md").is_file());
    let out = skills(&project, &["outdated"]);
    assert_eq!(stdout(&out), "pdf: gone from its source\n");
    // Asked for by name alone: nothing to install, and nothing lost.
    let out = skills(&project, &["update", "pdf"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("pdf: gone from "), "{}", stderr(&out));
    assert!(project.join(".agents/skills/pdf/SKILL.md").is_file());

    // A fresh clone: sync installs what the source has and says what it cannot.
    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    let out = skills(&project, &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pdf: gone from ") && stderr(&out).contains("; not installed"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("lock-mismatch"), "{}", stderr(&out));
    assert!(project.join(".agents/skills/web/SKILL.md").is_file());
    assert!(!project.join(".agents/skills/pdf").exists());

    // A name the lock never pinned is no skill gone: a typo in skills.toml is an error.
    let toml = std::fs::read_to_string(project.join("skills.toml")).unwrap();
    std::fs::write(
        project.join("skills.toml"),
        format!("{toml}skills = [\"web\", \"wbe\"]\n"),
    )
    .unwrap();
    let out = skills(&project, &["sync"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("the source has no skill wbe"), "{}", stderr(&out));
}

#[test]
fn sync_makes_a_fresh_clone_match_skills_toml_and_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    library(root);
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    write(&project, "skills.toml", "[limits]\nmax-skills = 1000\n");
    let out = skills(&project, &["add", "../lib", "--skill", "web"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let toml = std::fs::read_to_string(project.join("skills.toml")).unwrap();
    assert_eq!(
        toml, "[limits]\nmax-skills = 1000\n\n[[install]]\nsource = \"../lib\"\nskills = [\"web\"]\n",
        "the file's own text is kept"
    );
    // Adding again records nothing new; the default chain still reads the folders.
    skills(&project, &["add", "../lib", "--skill", "web"]);
    assert_eq!(std::fs::read_to_string(project.join("skills.toml")).unwrap(), toml);
    let listed = skills(&project, &["list", "--json"]);
    assert!(stdout(&listed).contains("\"name\": \"web\""), "{}", stdout(&listed));

    // A fresh clone: skills.toml and skills.lock, no folders.
    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    std::fs::remove_dir_all(project.join(".claude/skills")).unwrap();
    let out = skills(&project, &["sync", "--frozen"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(project.join(".claude/skills/web/SKILL.md").is_file());
    let out = skills(&project, &["sync"]);
    assert!(stdout(&out).contains("nothing to change"), "{}", stdout(&out));
    // An agent's link gone, the skill still in place: sync puts the link back.
    std::fs::remove_file(project.join(".claude/skills/web")).unwrap();
    let out = skills(&project, &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        project.join(".claude/skills/web/SKILL.md").is_file(),
        "{}",
        stdout(&out)
    );

    // The source moves on: sync keeps what the lock pins, outdated says so, update
    // moves.
    write(root, "lib/web/SKILL.md", &md("web", "Search the web, better"));
    let out = skills(&project, &["sync", "--frozen"]);
    assert!(
        stdout(&out).contains("nothing to change: 1 skills up to date"),
        "{}",
        stdout(&out)
    );
    assert_eq!(skills(&project, &["outdated"]).status.code(), Some(1));
    // A fresh clone now: frozen refuses the version the lock does not pin; a plain
    // sync installs it and says so.
    std::fs::remove_dir_all(project.join(".agents")).unwrap();
    let out = skills(&project, &["sync", "--frozen"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no longer has the pinned version of web"),
        "{}",
        stderr(&out)
    );
    assert!(!project.join(".agents/skills/web").exists());
    let out = skills(&project, &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("installing its current version"),
        "{}",
        stderr(&out)
    );
    assert!(installed_skill_md(&project, "web").contains("better"));
    assert_eq!(skills(&project, &["outdated"]).status.code(), Some(0));
    let out = skills(root, &["sync"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nothing to sync"), "{}", stderr(&out));
}

/// A name a large library does not have is answered with the names like it, not with
/// every name (or the first few in order, where the one meant rarely is).
#[test]
fn an_unknown_name_is_answered_with_the_names_like_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..300 {
        let name = format!("generated-skill-number-{i:03}");
        write(root, &format!("lib/{name}/SKILL.md"), &md(&name, "A generated skill"));
    }
    write(root, "lib/rdkit/SKILL.md", &md("rdkit", "Cheminformatics with RDKit"));
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let lib = root.join("lib");
    let lib = lib.to_str().unwrap();
    for args in [&["info", "rdkt", "--source", lib][..], &["add", lib, "--skill", "rdkt"]] {
        let out = skills(&project, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = stderr(&out);
        assert!(said.contains("rdkit (301 skills in all"), "{args:?}: {said}");
        assert!(said.len() < 1_000, "{args:?}: {} characters", said.len());
    }
}

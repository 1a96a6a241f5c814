//! `skills add` of a whole repository or folder reads where its skills are, as the npm
//! installer does: the `skills/` folder of a collection, the hidden sets inside it, or
//! an agent's folder of a project, and records the folder it read. Run as a user runs
//! it (a temporary project and HOME, real git repositories).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{md, stderr, with_git_cache, write};
use skills_backend_git::test_support::TestRepo;

/// Whether skill `name` is installed in the project at `root/project`.
fn has(root: &Path, name: &str) -> bool {
    root.join("project/.agents/skills")
        .join(name)
        .join("SKILL.md")
        .is_file()
}

/// `skills ARGS` in `root/project` (HOME and the git cache under `root`).
fn run(root: &Path, args: &[&str]) -> std::process::Output {
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(args)
        .current_dir(&project)
        .env("HOME", root.join("home"))
        .env("SKILLS_GIT_CACHE", root.join("cache"));
    command.output().unwrap()
}

/// [`run`] of a command that must succeed.
fn ran(root: &Path, args: &[&str]) -> std::process::Output {
    let out = run(root, args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

/// `repo` committed on `main`, with a temporary folder to run in and its source.
fn committed(repo: &mut TestRepo) -> (tempfile::TempDir, String) {
    repo.commit("main", "v1");
    let source = format!("git+file://{}", repo.path().display());
    (tempfile::tempdir().unwrap(), source)
}

/// The plan of `skills ARGS --dry-run` in `root/project`, which must succeed: what it
/// says on stderr, and the plan on stdout.
fn planned(root: &Path, args: &[&str]) -> (String, String) {
    let args: Vec<&str> = args.iter().copied().chain(["--dry-run"]).collect();
    let out = ran(root, &args);
    (stderr(&out), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn skills_toml(root: &Path) -> String {
    std::fs::read_to_string(root.join("project/skills.toml")).unwrap()
}

/// `skills add SOURCE --skill SKILL` in `root/project`: it says `said`, installs `skill`
/// alone of `others`, and records `SOURCE#path=skills` with `depth = DEPTH`; then a fresh
/// project (no installed skills, no lock) syncs the same skill from what was recorded.
fn added_and_synced_at_depth(root: &Path, source: &str, skill: &str, others: &[&str], said: &str, depth: usize) {
    let out = ran(root, &["add", source, "--skill", skill]);
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    assert!(has(root, skill) && !others.iter().any(|other| has(root, other)));
    let toml = skills_toml(root);
    assert!(toml.contains(&format!("source = \"{source}#path=skills\"")), "{toml}");
    assert!(toml.contains(&format!("depth = {depth}")), "{toml}");

    std::fs::remove_dir_all(root.join("project/.agents")).unwrap();
    std::fs::remove_file(root.join("project/skills.lock")).unwrap();
    ran(root, &["sync"]);
    assert!(has(root, skill) && !others.iter().any(|other| has(root, other)));
}

#[test]
fn a_collection_s_skills_folder_is_read_not_its_root() {
    let mut repo = TestRepo::new();
    repo.write("template/SKILL.md", md("template-skill", "A template to copy"))
        .write("skills/web/SKILL.md", md("web", "Search the web"))
        .write("skills/pdf/SKILL.md", md("pdf", "Read PDFs"))
        .write("more/extra/SKILL.md", md("extra", "Kept elsewhere"))
        .write("README.md", "# a collection\n");
    let (dir, source) = committed(&mut repo);

    let out = ran(dir.path(), &["add", &source, "--skill", "pdf"]);
    assert!(
        stderr(&out).contains(&format!(
            "{source} keeps its skills in skills/: reading {source}#path=skills"
        )),
        "{}",
        stderr(&out)
    );
    assert!(has(dir.path(), "pdf"));
    assert!(!has(dir.path(), "web"), "only what was asked");
    assert!(skills_toml(dir.path()).contains(&format!("source = \"{source}#path=skills\"")));

    // Everything of the collection: its skills, not the template at its root.
    ran(dir.path(), &["add", &source]);
    assert!(has(dir.path(), "web") && has(dir.path(), "pdf"));
    assert!(!has(dir.path(), "template-skill"));

    // What was recorded is what a sync reads: nothing left to do.
    let out = ran(dir.path(), &["sync"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("nothing to change"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A sub-folder given is read as given.
    let (said, plan) = planned(dir.path(), &["add", &format!("{source}#path=more")]);
    assert!(!said.contains("keeps its skills"), "{said}");
    assert!(plan.contains("install extra"), "{plan}");
}

#[test]
fn hidden_sets_inside_the_skills_folder_are_each_a_source() {
    let mut repo = TestRepo::new();
    repo.write("skills/.curated/web/SKILL.md", md("web", "Search the web"))
        .write("skills/.system/creator/SKILL.md", md("creator", "Create skills"))
        .write("skills/.system/web/SKILL.md", md("web", "A second web"));
    let (dir, source) = committed(&mut repo);

    ran(dir.path(), &["add", &source, "--skill", "creator"]);
    assert!(has(dir.path(), "creator") && !has(dir.path(), "web"));
    assert!(skills_toml(dir.path()).contains("#path=skills/.system\""));

    // All of them: a name two sets share comes from the first (.curated).
    ran(dir.path(), &["add", &source]);
    let web = std::fs::read_to_string(dir.path().join("project/.agents/skills/web/SKILL.md")).unwrap();
    assert!(web.contains("Search the web"), "{web}");
    assert!(skills_toml(dir.path()).contains("#path=skills/.curated\""));

    // A name no set has is refused with what the first set has.
    let out = run(dir.path(), &["add", &source, "--skill", "nothing-like-it"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no skill nothing-like-it"), "{}", stderr(&out));
}

#[test]
fn an_agent_s_folder_is_read_only_when_the_root_holds_no_skills() {
    let dir = tempfile::tempdir().unwrap();
    // A project that keeps its skills for Claude Code.
    let mut project = TestRepo::new();
    project
        .write(".claude/skills/review/SKILL.md", md("review", "Review a change"))
        .write("src/main.rs", "fn main() {}\n");
    project.commit("main", "v1");
    let source = format!("git+file://{}", project.path().display());
    let out = ran(dir.path(), &["add", &source]);
    assert!(
        stderr(&out).contains("keeps its skills in .claude/skills/"),
        "{}",
        stderr(&out)
    );
    assert!(has(dir.path(), "review"));

    // A library at the root is the library, whatever its own agents' folders hold.
    let mut library = TestRepo::new();
    library
        .write("web/SKILL.md", md("web", "Search the web"))
        .write(".claude/skills/dev/SKILL.md", md("dev", "Work on this library"));
    library.commit("main", "v1");
    let source = format!("git+file://{}", library.path().display());
    ran(dir.path(), &["add", &source]);
    assert!(has(dir.path(), "web") && !has(dir.path(), "dev"));
}

#[test]
fn a_local_checkout_is_read_from_its_skills_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "checkout/skills/web/SKILL.md", &md("web", "Search the web"));
    write(
        dir.path(),
        "checkout/template/SKILL.md",
        &md("template-skill", "A template"),
    );
    let checkout = dir.path().join("checkout");
    let out = with_git_cache(dir.path(), &["add", checkout.to_str().unwrap(), "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(
        plan.contains("install web") && !plan.contains("template-skill"),
        "{plan}"
    );
    assert!(
        stderr(&out).contains(&format!("reading {}/skills", checkout.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_top_level_folder_of_skill_folders_is_read_when_nothing_else_holds_any() {
    let mut repo = TestRepo::new();
    repo.write("scientific-skills/rdkit/SKILL.md", md("rdkit", "Chemistry with RDKit"))
        .write(
            "scientific-skills/scanpy/SKILL.md",
            md("scanpy", "Single-cell analysis"),
        )
        .write("docs/guide/notes.md", "# notes\n");
    let (dir, source) = committed(&mut repo);
    let out = ran(dir.path(), &["add", &source]);
    assert!(
        stderr(&out).contains("keeps its skills in scientific-skills/"),
        "{}",
        stderr(&out)
    );
    assert!(has(dir.path(), "rdkit") && has(dir.path(), "scanpy"));
    assert!(skills_toml(dir.path()).contains("#path=scientific-skills\""));
}

#[test]
fn a_skills_folder_of_authors_is_read_as_deep_as_its_skill_folders_and_synced_so() {
    // As AgentWorkers/skills: `skills/<author>/<name>/SKILL.md`, nothing one level down.
    let mut repo = TestRepo::new();
    repo.write("skills/alice/pdf/SKILL.md", md("pdf", "Read PDFs"))
        .write("skills/alice/web/SKILL.md", md("web", "Search the web"))
        .write("skills/bob/sql/SKILL.md", md("sql", "Review SQL"))
        .write("README.md", "# by author\n");
    let (dir, source) = committed(&mut repo);

    let said = format!("{source} keeps its skills in skills/, 2 levels down: reading {source}#path=skills at depth 2");
    added_and_synced_at_depth(dir.path(), &source, "sql", &["pdf"], &said, 2);

    // A depth given is kept: one level finds nothing, and says where the skills are.
    let (said, plan) = planned(dir.path(), &["add", &source, "--depth", "3", "--skill", "web"]);
    assert!(!said.contains("levels down"), "{said}");
    assert!(plan.contains("install web"), "{plan}");
}

#[test]
fn a_marketplace_s_plugins_are_read_three_levels_down_and_no_deeper() {
    // As a plugin marketplace: `plugins/<plugin>/skills/<name>/SKILL.md`.
    let mut repo = TestRepo::new();
    repo.write("plugins/docs/skills/pdf/SKILL.md", md("pdf", "Read PDFs"))
        .write("plugins/ops/skills/deploy/SKILL.md", md("deploy", "Deploy the app"))
        .write("archive/a/b/c/old/SKILL.md", md("old", "Four levels down"));
    let (dir, source) = committed(&mut repo);

    let out = ran(dir.path(), &["add", &source]);
    assert!(
        stderr(&out).contains("keeps its skills in plugins/, 3 levels down"),
        "{}",
        stderr(&out)
    );
    assert!(has(dir.path(), "pdf") && has(dir.path(), "deploy"));
    assert!(!has(dir.path(), "old"), "past three levels a folder is not searched");
    assert!(skills_toml(dir.path()).contains("depth = 3"));
}

#[test]
fn a_skill_asked_for_by_name_is_read_as_deep_as_it_lies_and_synced_so() {
    // As thereisnotime/skills-collection: a skill one level into `skills/`, the rest of
    // the mirrored repositories further down.
    let mut repo = TestRepo::new();
    repo.write("skills/top/SKILL.md", md("top", "One level down"))
        .write(
            "skills/acme--tools/plugins/pack/skills/deep/SKILL.md",
            md("deep", "Five levels down"),
        )
        .write(
            "skills/acme--tools/tests/fixtures/SKILL.md",
            md("fixture", "A test fixture"),
        );
    let (dir, source) = committed(&mut repo);

    let said = format!("{source}#path=skills: a skill asked for is 5 levels down: reading it at depth 5");
    added_and_synced_at_depth(dir.path(), &source, "deep", &["top"], &said, 5);

    // `sync` reads the source as `skills.toml` recorded it: without the depth, it does
    // not look deeper, and says the skill is not there.
    let toml = skills_toml(dir.path()).replace("depth = 5\n", "");
    std::fs::write(dir.path().join("project/skills.toml"), toml).unwrap();
    std::fs::remove_dir_all(dir.path().join("project/.agents")).unwrap();
    std::fs::remove_file(dir.path().join("project/skills.lock")).unwrap();
    let out = run(dir.path(), &["sync"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the source has no skill deep"),
        "{}",
        stderr(&out)
    );
    assert!(!has(dir.path(), "deep"));

    // The whole source is still read at the depth asked: not the test fixture.
    let (_, plan) = planned(dir.path(), &["add", &source]);
    assert!(plan.contains("install top") && !plan.contains("fixture"), "{plan}");

    // A depth given is kept, and a name found nowhere is refused.
    let out = run(
        dir.path(),
        &["add", &source, "--skill", "deep", "--depth", "1", "--dry-run"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = run(dir.path(), &["add", &source, "--skill", "nothing-like-it", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no skill nothing-like-it"), "{}", stderr(&out));
}

//! Dependencies and views on the command line: `prompt --available-tools`, `validate` on
//! a missing dependency and a cycle, `list --view` with the view's dependencies, a view
//! naming an unknown skill, `info` and `list --json` carrying dependencies.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::path::Path;

use common::{json, skills, stderr, stdout, strings, write};

fn skill(root: &Path, name: &str, description: &str, extra: &str) {
    let text = format!("---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n");
    write(root, &format!("lib/{name}/SKILL.md"), &text);
}

/// A project whose skills.toml reads `lib` and defines the view `reviewer`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    skill(
        root,
        "ship-pr",
        "Open a pull request",
        "dependencies:\n  tools: [github_create_pr]\n  skills: [review]\n",
    );
    skill(root, "review", "Review a change", "dependencies: [lint]\n");
    skill(root, "lint", "Lint the code", "");
    skill(root, "pdf-fill", "Fill PDF forms", "");
    skill(root, "pdf-sign", "Sign PDFs", "");
    write(
        root,
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n\n[views.reviewer]\ninclude = [\"review\", \"pdf-*\", \"ghost\"]\nexclude = [\"pdf-sign\"]\n",
    );
    dir
}

#[test]
fn prompt_renders_the_section_an_agent_with_those_tools_sees() {
    let dir = project();
    let without = skills(dir.path(), &["prompt", "--available-tools", "Read,Bash"]);
    assert!(without.status.success(), "{}", stderr(&without));
    let text = stdout(&without);
    assert!(!text.contains("**ship-pr**"), "{text}");
    assert!(text.contains("**review**"));
    let with = stdout(&skills(
        dir.path(),
        &["prompt", "--available-tools", "Read,github_create_pr"],
    ));
    assert!(with.contains("**ship-pr**"), "{with}");
    // Without the flag the tools are not known: every skill is listed.
    assert!(stdout(&skills(dir.path(), &["prompt"])).contains("**ship-pr**"));
}

#[test]
fn list_with_a_view_includes_what_its_skills_depend_on_and_warns_of_unknown_entries() {
    let dir = project();
    let output = skills(dir.path(), &["list", "--view", "reviewer", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let listed = json(&output);
    let mut names = strings(&listed, "name");
    names.sort_unstable();
    assert_eq!(names, ["lint", "pdf-fill", "review"], "lint: review depends on it");
    assert!(
        stderr(&output).contains("warning: view `reviewer`: `ghost` matches no skill of the catalog"),
        "{}",
        stderr(&output)
    );
    let table = stdout(&skills(dir.path(), &["list"]));
    let ship = table.lines().find(|l| l.starts_with("ship-pr")).unwrap();
    assert!(ship.contains("needs-tools,depends"), "{table}");
    let unknown = skills(dir.path(), &["list", "--view", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("no view `nope` in [views] (views: reviewer)"),
        "{}",
        stderr(&unknown)
    );
    let found = stdout(&skills(dir.path(), &["search", "--view", "reviewer", "PDF forms"]));
    assert!(found.contains("pdf-fill") && !found.contains("pdf-sign"), "{found}");
}

#[test]
fn validate_reports_a_missing_dependency_and_a_cycle() {
    let dir = project();
    skill(dir.path(), "a", "A", "dependencies: [b, nowhere]\n");
    skill(dir.path(), "b", "B", "dependencies: [a]\n");
    let output = skills(dir.path(), &["validate", "lib", "--json"]);
    assert!(output.status.success(), "warnings do not fail: {}", stderr(&output));
    let report = json(&output);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let of = |kind: &str| -> Vec<&str> {
        diagnostics
            .iter()
            .filter(|d| d["kind"] == kind)
            .map(|d| d["message"].as_str().unwrap())
            .collect()
    };
    assert_eq!(
        of("missing-dependency"),
        ["`a` depends on `nowhere`, which no source has (`dependencies` lists skills, not packages)"]
    );
    assert_eq!(
        of("dependency-cycle"),
        ["skills depend on each other in a circle: a -> b -> a"]
    );
}

#[test]
fn info_and_list_json_carry_dependencies() {
    let dir = project();
    write(
        dir.path(),
        "lib/ship-pr/agents/openai.yaml",
        "dependencies:\n  tools:\n    - type: mcp\n      value: github\n      transport: stdio\n",
    );
    let info = json(&skills(dir.path(), &["info", "ship-pr", "--json"]));
    let deps = &info["dependencies"];
    assert_eq!(deps["tools"]["all"], serde_json::json!(["github_create_pr"]));
    assert_eq!(deps["skills"], serde_json::json!([{"name": "review", "found": true}]));
    assert_eq!(deps["mcp_servers"][0]["name"], "github");
    let text = stdout(&skills(dir.path(), &["info", "ship-pr"]));
    assert!(
        text.contains("needs tools:   github_create_pr (checked by the agent host)"),
        "{text}"
    );
    let text = stdout(&skills(
        dir.path(),
        &["info", "ship-pr", "--available-tools", "Read,Bash"],
    ));
    assert!(
        text.contains("needs tools:   github_create_pr (missing: github_create_pr)"),
        "{text}"
    );
    let text = stdout(&skills(
        dir.path(),
        &["info", "ship-pr", "--available-tools", "github_create_pr"],
    ));
    assert!(
        text.contains("needs tools:   github_create_pr (all available)"),
        "{text}"
    );
    let checked = json(&skills(
        dir.path(),
        &["info", "ship-pr", "--json", "--available-tools", "Read"],
    ));
    assert_eq!(
        checked["dependencies"]["missing_tools"]["all"],
        serde_json::json!(["github_create_pr"])
    );
    assert!(text.contains("depends on:    review (found)"), "{text}");
    assert!(text.contains("mcp servers:   github (stdio)"), "{text}");
    let listed = json(&skills(dir.path(), &["list", "--json"]));
    let ship = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ship-pr")
        .unwrap();
    assert_eq!(
        ship["extensions"]["dependencies"]["skills"],
        serde_json::json!(["review"])
    );
}

/// `skills serve --view`, through the MCP SDK's client: every face offers the view's
/// skills only; lists name the tools a skill needs, unchecked, and hide nothing for them.
#[test]
fn serve_with_a_view_offers_only_its_skills_on_every_face() {
    let dir = project();
    skill(dir.path(), "sql", "Review SQL migrations", "");
    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n\n[views.shipping]\ninclude = [\"ship-pr\"]\n",
    );
    let bin = env!("CARGO_BIN_EXE_skills");
    let config = dir.path().join("skills.toml");
    let (_, report) = common::mcp_client(
        dir.path(),
        "view",
        &dir.path().join("lib"),
        &[bin, "serve", "--config", config.to_str().unwrap(), "--view", "shipping"],
    );
    let text = |key: &str| report[key]["content"][0]["text"].as_str().unwrap().to_owned();
    let listed = text("list_skills");
    // The view: ship-pr and what it depends on (review, and lint through review).
    for name in ["ship-pr", "review", "lint"] {
        assert!(listed.contains(&format!("**{name}**")), "{name}: {listed}");
    }
    assert!(
        !listed.contains("**sql**") && !listed.contains("**pdf-fill**"),
        "{listed}"
    );
    assert!(
        listed.contains("-> Needs tools: github_create_pr (not checked here)"),
        "{listed}"
    );
    assert!(text("search").contains("ship-pr") && text("search").contains("[needs tools: github_create_pr]"));
    assert_eq!(report["load_outside"]["is_error"], true);
    assert!(
        text("load_outside").starts_with("Error: Skill 'sql' not found"),
        "{}",
        text("load_outside")
    );
    assert_eq!(
        report["load_inside"]["is_error"], false,
        "the server cannot check tools: it loads"
    );
    assert!(!report["instructions"].as_str().unwrap().contains("sql"));
    let uris: Vec<&str> = report["skills_list"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris.len(), 3, "{uris:?}");
    assert!(!uris.iter().any(|u| u.contains("sql") || u.contains("pdf")), "{uris:?}");
    let prompts = report["prompts_list"]["prompts"].as_array().unwrap();
    assert!(prompts.iter().any(|p| p["name"] == "ship-pr"), "{prompts:?}");
    assert!(prompts.iter().all(|p| p["name"] != "sql"), "{prompts:?}");
    let resources = report["resources"].as_array().unwrap();
    assert!(
        resources.iter().any(|r| r.as_str().unwrap().contains("ship-pr")),
        "{resources:?}"
    );
    assert!(
        resources.iter().all(|r| !r.as_str().unwrap().contains("sql")),
        "{resources:?}"
    );
}

/// `skills add --skill NAME` installs the skills NAME depends on, transitively, and the
/// lock pins them; a dependency the source lacks is a warning; `skills.toml` records the
/// request as asked, and `sync` of it installs the dependencies too.
#[test]
fn add_installs_a_skills_dependencies_and_the_lock_pins_them() {
    let dir = project();
    skill(
        dir.path(),
        "needs-gone",
        "Needs a skill that is not here",
        "dependencies: [gone]\n",
    );
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join(".claude")).unwrap();
    let lib = dir.path().join("lib");
    let lib = lib.to_str().unwrap();
    let out = skills(&work, &["add", lib, "--skill", "ship-pr"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("review: added, a skill asked for depends on it"),
        "{}",
        stdout(&out)
    );
    for name in ["ship-pr", "review", "lint"] {
        assert!(work.join(format!(".agents/skills/{name}/SKILL.md")).is_file(), "{name}");
        assert!(work.join(format!(".claude/skills/{name}")).exists(), "{name} linked");
    }
    assert!(!work.join(".agents/skills/pdf-fill").exists());
    let lock = std::fs::read_to_string(work.join("skills.lock")).unwrap();
    for name in ["ship-pr", "review", "lint"] {
        assert!(lock.contains(&format!("[skills.\"{name}\"]")), "{name}: {lock}");
    }
    let out = skills(&work, &["add", lib, "--skill", "needs-gone"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: gone: a skill asked for depends on it"),
        "{}",
        stderr(&out)
    );

    // sync of the recorded request, in a fresh checkout of the project.
    let fresh = dir.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(work.join("skills.toml"), fresh.join("skills.toml")).unwrap();
    let out = skills(&fresh, &["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(fresh.join(".agents/skills/lint/SKILL.md").is_file(), "{}", stdout(&out));
}

/// `skills sync --view NAME` installs only the view's skills (and their dependencies) of
/// what skills.toml's `[[install]]` asks for.
#[test]
fn sync_with_a_view_installs_only_its_skills() {
    let dir = project();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let lib = dir.path().join("lib");
    write(
        &work,
        "skills.toml",
        &format!(
            "[[install]]\nsource = {:?}\n\n[views.review]\ninclude = [\"review\"]\n",
            lib.to_str().unwrap()
        ),
    );
    let out = skills(&work, &["sync", "--view", "review"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("view review: 2 skills of this source"),
        "{}",
        stdout(&out)
    );
    assert!(work.join(".agents/skills/review/SKILL.md").is_file());
    assert!(
        work.join(".agents/skills/lint/SKILL.md").is_file(),
        "review depends on lint"
    );
    assert!(!work.join(".agents/skills/pdf-fill").exists());
    assert!(!work.join(".agents/skills/ship-pr").exists());
    let out = skills(&work, &["sync", "--view", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no view `nope`"), "{}", stderr(&out));
}

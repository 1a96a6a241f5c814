//! Runs the built `skills` binary.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;

use common::{json, md, skills, stderr, stdout, strings, write};

const EXAMPLES: [&str; 5] = [
    "changelog-writer",
    "code-review",
    "incident-postmortem",
    "sql-review",
    "web-research",
];

/// The examples that ship in the repository, as a `--source`.
fn examples() -> String {
    format!(
        "examples={}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills")
    )
}

#[test]
fn list_with_no_source_and_an_empty_home_lists_nothing_and_says_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "nothing of the checkout is listed");
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    for folder in [
        "~/.agents/skills",
        "./.agents/skills",
        "./.claude/skills",
        "~/.claude/skills",
    ] {
        assert!(said.contains(folder), "{folder}: {said}");
    }
    assert!(said.contains("skills new"), "says how to start: {said}");
    let out = skills(dir.path(), &["list", "--json"]);
    assert_eq!(json(&out), serde_json::json!([]));
}

#[test]
fn list_of_the_shipped_examples_shows_each_with_its_label() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["list", "--source", &examples()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("NAME"), "{text}");
    for name in EXAMPLES {
        assert!(
            text.lines().any(|l| l.starts_with(name) && l.ends_with("examples")),
            "{name} missing:\n{text}"
        );
    }
}

#[test]
fn default_chain_reads_claude_and_agents_folders_user_then_project_last_wins() {
    let dir = tempfile::tempdir().unwrap();
    for (folder, description) in [
        ("home/.claude/skills", "the user's claude copy"),
        ("home/.agents/skills", "the user's copy"),
        (".claude/skills", "the project's claude copy"),
        (".agents/skills", "the project's copy"),
    ] {
        // Each folder holds `shared`, and one skill of its own named after its place.
        write(
            dir.path(),
            &format!("{folder}/shared/SKILL.md"),
            &md("shared", description),
        );
        let own = description.replace(['\'', ' '], "-");
        write(dir.path(), &format!("{folder}/{own}/SKILL.md"), &md(&own, description));
    }
    let out = skills(dir.path(), &["list", "--json"]);
    let list = json(&out);
    let entry = |name: &str| {
        let skill = list.as_array().unwrap().iter().find(|s| s["name"] == name).unwrap();
        (
            skill["description"].as_str().unwrap().to_owned(),
            skill["source"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(entry("shared"), ("the project's copy".into(), "project".into()));
    assert_eq!(entry("the-user-s-claude-copy").1, "user-claude");
    assert_eq!(entry("the-user-s-copy").1, "user");
    assert_eq!(entry("the-project-s-claude-copy").1, "project-claude");
    assert_eq!(list.as_array().unwrap().len(), 5);
    let said = stderr(&out);
    assert!(
        said.contains("~/.claude/skills, ~/.agents/skills, ./.claude/skills, ./.agents/skills"),
        "says which were read: {said}"
    );

    // Only the folders that exist are read, and stderr names just those.
    std::fs::remove_dir_all(dir.path().join("home/.claude")).unwrap();
    std::fs::remove_dir_all(dir.path().join(".agents")).unwrap();
    let out = skills(dir.path(), &["list", "--json"]);
    assert_eq!(json(&out).as_array().unwrap().len(), 3);
    let said = stderr(&out);
    assert!(
        said.contains("skills from ~/.agents/skills, ./.claude/skills ("),
        "{said}"
    );
}

#[test]
fn default_chain_reads_a_folder_once_when_the_project_is_the_home_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "home/.agents/skills/web/SKILL.md",
        &md("web", "search the web"),
    );
    let home = dir.path().join("home");
    // The common helper puts HOME below the current folder: here they are one folder.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list", "--json"])
        .current_dir(&home)
        .env("HOME", &home)
        .output()
        .unwrap();
    let list = json(&out);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(
        list[0]["shadowed"],
        serde_json::json!([]),
        "not hidden by itself: {list}"
    );
}

#[test]
fn list_json_has_exactly_the_skill_metadata_fields_plus_invocation_source_resources_and_shadowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["list", "--json", "--resources", "--source", &examples()]);
    assert_eq!(out.status.code(), Some(0));
    let list = json(&out);
    let names: Vec<_> = strings(&list, "name");
    assert_eq!(names, EXAMPLES);
    let first = list[0].as_object().unwrap();
    let mut keys: Vec<_> = first.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "allowed_tools",
            "compatibility",
            "description",
            "license",
            "metadata",
            "model_invocable",
            "name",
            "path",
            "resources",
            "shadowed",
            "source",
            "user_invocable"
        ]
    );
    let sql = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "sql-review")
        .unwrap();
    assert_eq!(
        sql["allowed_tools"],
        serde_json::json!(["read_file", "grep", "Bash(psql:*)"])
    );
    assert!(
        sql["path"]
            .as_str()
            .unwrap()
            .ends_with("examples/skills/sql-review/SKILL.md")
    );
}

#[test]
fn later_sources_win_and_labels_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "base/web/SKILL.md", &md("web", "base version"));
    write(dir.path(), "base/pdf/SKILL.md", &md("pdf", "pdf tools"));
    write(dir.path(), "mine/web/SKILL.md", &md("web", "my version"));
    let out = skills(
        dir.path(),
        &["list", "--source", "base", "--source", "me=./mine", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = json(&out);
    let got: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["description"].as_str().unwrap(),
                s["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [("pdf", "pdf tools", "base"), ("web", "my version", "me")]);
}

#[test]
fn list_reports_skipped_skills_on_stderr_and_still_lists_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/good/SKILL.md", &md("good", "fine"));
    write(dir.path(), "src/bad/SKILL.md", "no frontmatter");
    let out = skills(dir.path(), &["list", "-s", "src"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("good"));
    let err = stderr(&out);
    assert!(
        err.contains("skipped: ") && err.contains("bad/SKILL.md: no-frontmatter: "),
        "{err}"
    );
}

#[test]
fn file_urls_are_sources() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "my skills/a/SKILL.md", &md("a", "A"));
    let url = format!("file://{}", dir.path().join("my%20skills").display());
    let out = skills(dir.path(), &["list", "--source", &url, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)[0]["source"], "my skills");
}

#[test]
fn unreadable_or_unsupported_sources_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.txt", "x");
    for source in ["missing", "file.txt", "s3://bucket/skills", "git+file:///repo#ref=main"] {
        let out = skills(dir.path(), &["list", "--source", source]);
        assert_eq!(out.status.code(), Some(2), "{source}");
        assert!(stderr(&out).contains(source), "{source}: {}", stderr(&out));
    }
    let out = skills(dir.path(), &["list", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn info_shows_metadata_source_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["info", "web-research", "--source", &examples()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "name:          web-research",
        "license:       MIT",
        "source:        examples (",
        "allowed-tools: web_search, fetch_url, read_file, write_file",
        "  version: 1.2",
        "  SKILL.md (",
        "  scripts/search_plan.py (",
        "  references/source-quality.md (",
        "  assets/report-template.md (",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    let info = json(&skills(
        dir.path(),
        &["info", "web-research", "--json", "--source", &examples()],
    ));
    let files: Vec<_> = strings(&info["files"], "path");
    assert_eq!(
        files,
        [
            "SKILL.md",
            "assets/report-template.md",
            "references/source-quality.md",
            "scripts/search_plan.py"
        ]
    );
}

#[test]
fn info_shows_what_a_skill_shadows() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/web/SKILL.md", &md("web", "first"));
    write(dir.path(), "b/web/SKILL.md", &md("web", "second"));
    let info = json(&skills(dir.path(), &["info", "web", "-s", "a", "-s", "b", "--json"]));
    assert_eq!(info["source"], "b");
    assert_eq!(info["shadowed"][0]["source"], "a");
}

#[test]
fn info_on_an_unknown_skill_lists_the_available_ones_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["info", "nope", "--source", &examples()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no skill named 'nope'") && err.contains("web-research"),
        "{err}"
    );
}

#[test]
fn validate_accepts_good_skills_and_sources() {
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let out = skills(dir.path(), &["validate", examples.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("5 skill folders seen: 5 loaded, 0 skipped, 0 recovered, 0 hidden, 0 warnings"),
        "{}",
        stderr(&out)
    );
    let one = examples.join("code-review");
    let out = skills(
        dir.path(),
        &[
            "validate",
            one.to_str().unwrap(),
            one.join("SKILL.md").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn validate_prints_one_line_per_problem_and_exits_1_on_a_skip() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/good/SKILL.md", &md("good", "fine"));
    write(dir.path(), "lib/renamed/SKILL.md", &md("other-name", "warning only"));
    write(dir.path(), "lib/broken/SKILL.md", "---\nname: broken\n---\n");
    let out = skills(dir.path(), &["validate", "lib"]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        lines,
        [
            format!(
                "{}/lib/broken/SKILL.md: missing-description: missing required `description`",
                root.display()
            ),
            format!(
                "{}/lib/renamed/SKILL.md: name-mismatch: name 'other-name' must match directory name 'renamed'",
                root.display()
            ),
        ]
    );
    assert!(
        stderr(&out).contains("3 skill folders seen: 2 loaded, 1 skipped, 0 recovered, 0 hidden, 1 warnings"),
        "{}",
        stderr(&out)
    );

    // Warnings alone do not fail validation.
    let out = skills(dir.path(), &["validate", "lib/renamed", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["ok"], true);
    assert_eq!(report["diagnostics"][0]["kind"], "name-mismatch");
}

#[test]
fn validate_of_a_folder_without_skills_fails_and_a_missing_path_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = skills(dir.path(), &["validate", "empty"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("empty: no-skills: no skill folders found"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("0 skill folders seen: 0 loaded, 0 skipped, 0 recovered, 0 hidden, 0 warnings, 1 errors"),
        "{}",
        stderr(&out)
    );
    let out = skills(dir.path(), &["validate", "missing"]);
    assert_eq!(out.status.code(), Some(2));
    let out = skills(dir.path(), &["validate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn version_completions_and_the_manual_page_come_from_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(dir.path(), &["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let version = stdout(&out);
    assert!(
        version.starts_with(&format!("skills {}", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    // Built from this git checkout, it names the commit: `skills 0.1.0 (1a2b3c4 2026-11-27)`.
    if Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.git")).exists() {
        let commit = version
            .trim_end()
            .rsplit_once(" (")
            .map(|(_, c)| c.trim_end_matches(')'));
        let hash = commit.and_then(|c| c.split(' ').next()).unwrap_or_default();
        assert!(
            hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{version}"
        );
    }
    for (shell, marker) in [
        ("bash", "_skills()"),
        ("zsh", "#compdef skills"),
        ("fish", "complete -c skills"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = skills(dir.path(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {marker} missing");
        assert!(script.contains("validate"), "{shell}: the subcommands are completed");
    }
    assert_eq!(skills(dir.path(), &["completions", "tcsh"]).status.code(), Some(2));
    let out = skills(dir.path(), &["manpage"]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(page.contains(".TH skills 1"), "{page}");
    for section in ["SKILLS LIST", "SKILLS VALIDATE", "SKILLS SERVE"] {
        assert!(page.contains(section), "{section} missing");
    }
}

#[test]
fn validate_reads_a_folder_whose_skill_file_is_lowercase_and_names_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/lower/skill.md", &md("lower", "Kept in skill.md"));
    for target in ["lib/lower", "lib/lower/skill.md", "lib"] {
        let out = skills(dir.path(), &["validate", target]);
        assert_eq!(out.status.code(), Some(0), "{target}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stdout(&out).contains("lowercase-skill-file") && stdout(&out).contains("rename it to SKILL.md"),
            "{target}: {}",
            stdout(&out)
        );
        assert!(stderr(&out).contains("1 loaded"), "{target}: {}", stderr(&out));
    }
    let listed = json(&skills(dir.path(), &["list", "--json", "--source", "lib"]));
    assert_eq!(strings(&listed, "name"), ["lower"]);
}

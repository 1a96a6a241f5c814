//! Limits on the command line: raised by flags and `[limits]` in skills.toml, said in one
//! line on stderr in the command line's words when they cut a source, exit 3 unless
//! `--allow-partial`; `validate` counts what it saw and what became of it.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;

use common::{json, md, skills, stderr, stdout, write};
use serde_json::Value;

fn library(root: &Path, count: usize) {
    for i in 0..count {
        let name = format!("skill-{i:02}");
        write(root, &format!("lib/{name}/SKILL.md"), &md(&name, "A skill"));
    }
}

/// The names `list --json` printed.
fn names(out: &std::process::Output) -> Vec<String> {
    json(out)
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

fn cut_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("error: skills left out"))
        .collect()
}

#[test]
fn a_cut_source_is_said_once_in_cli_words_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path(), 6);
    for command in [&["list"][..], &["prompt"], &["info", "skill-00"], &["load", "skill-00"]] {
        let mut args = command.to_vec();
        args.extend(["--source", "lib", "--max-skills", "4"]);
        let out = skills(dir.path(), &args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        let lines = cut_lines(&err);
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        for needle in [
            "more than 4 skill folders",
            "2 were not read",
            "--max-skills",
            "[limits]",
            "--allow-partial",
        ] {
            assert!(lines[0].contains(needle), "{needle:?} missing: {}", lines[0]);
        }
        assert!(
            !err.contains("DiscoveryLimits"),
            "a Rust name reached the command line: {err}"
        );
        assert!(
            !err.contains("limit-exceeded"),
            "the cut is said once, not twice: {err}"
        );
        args.push("--allow-partial");
        assert_eq!(skills(dir.path(), &args).status.code(), Some(0), "{args:?}");
    }
    let listed = skills(dir.path(), &["list", "--source", "lib", "--max-skills", "4", "--json"]);
    assert_eq!(json(&listed).as_array().unwrap().len(), 4, "what fits is still listed");
}

#[test]
fn skills_toml_limits_apply_and_flags_override_them() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path(), 6);
    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n\n[limits]\nmax-skills = 3\n",
    );
    let out = skills(dir.path(), &["list", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(json(&out).as_array().unwrap().len(), 3);
    let out = skills(dir.path(), &["list", "--json", "--max-skills", "10"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out).as_array().unwrap().len(), 6);
    assert!(cut_lines(&stderr(&out)).is_empty());

    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n[limits]\nmax-skils = 3\n",
    );
    let out = skills(dir.path(), &["list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("max-skils"), "{}", stderr(&out));
}

#[test]
fn validate_counts_folders_and_reports_the_cut_in_json() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path(), 6);
    let out = skills(dir.path(), &["validate", "lib", "--max-skills", "4"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "6 skill folders seen: 4 loaded, 0 skipped, 0 recovered, 0 hidden, 2 left out by limits, 0 warnings"
        ),
        "{}",
        stderr(&out)
    );
    let out = skills(
        dir.path(),
        &["validate", "lib", "--max-skills", "4", "--json", "--allow-partial"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["ok"], true);
    assert_eq!(report["summary"]["folders"], 6);
    assert_eq!(report["summary"]["left_out"], 2);
    let cut = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "limit-exceeded")
        .unwrap();
    assert_eq!(cut["cut"]["limit"], "max-skills");
    assert_eq!(
        (cut["cut"]["max"].as_u64(), cut["cut"]["left_out"].as_u64()),
        (Some(4), Some(2))
    );
}

#[test]
fn a_hidden_duplicate_is_reported_on_its_own_folder_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/a-copy/SKILL.md", &md("shared", "first copy"));
    write(dir.path(), "lib/b-copy/SKILL.md", &md("shared", "second copy"));
    let out = skills(dir.path(), &["validate", "lib"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let hidden = format!("{}/lib/a-copy/SKILL.md: duplicate-name: ", root.display());
    let line = stdout(&out).lines().find(|l| l.starts_with(&hidden)).map(str::to_owned);
    let line = line.unwrap_or_else(|| panic!("no duplicate-name line on the hidden folder:\n{}", stdout(&out)));
    assert!(
        line.contains(&format!("{}/lib/b-copy/SKILL.md", root.display())),
        "{line}"
    );
    assert!(
        stderr(&out).contains("2 skill folders seen: 1 loaded, 0 skipped, 0 recovered, 1 hidden"),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn the_hard_link_policy_is_set_by_flag_and_skills_toml() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path(), 2);
    // A hard-linked copy of the user's own skill elsewhere: read by default.
    std::fs::create_dir_all(dir.path().join("backup")).unwrap();
    std::fs::hard_link(
        dir.path().join("lib/skill-00/SKILL.md"),
        dir.path().join("backup/SKILL.md"),
    )
    .unwrap();
    let out = skills(dir.path(), &["list", "--source", "lib", "--json"]);
    assert_eq!(names(&out), ["skill-00", "skill-01"], "{}", stderr(&out));

    let out = skills(
        dir.path(),
        &["list", "--source", "lib", "--json", "--hard-links", "refuse"],
    );
    assert_eq!(names(&out), ["skill-01"]);
    let err = stderr(&out);
    assert!(err.contains("hard links") && err.contains("`refuse`"), "{err}");
    assert!(
        !err.contains("FilesystemBackend"),
        "a Rust name reached the command line: {err}"
    );

    write(
        dir.path(),
        "skills.toml",
        "hard-links = \"refuse\"\n[[source]]\nlocation = \"lib\"\n",
    );
    let out = skills(dir.path(), &["list", "--json"]);
    assert_eq!(names(&out), ["skill-01"]);
    let out = skills(dir.path(), &["list", "--json", "--hard-links", "allow"]);
    assert_eq!(names(&out), ["skill-00", "skill-01"], "the flag wins over the file");
    let out = skills(dir.path(), &["validate", "lib"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "validate follows skills.toml: {}",
        stderr(&out)
    );

    let bad = skills(dir.path(), &["list", "--hard-links", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("same-owner, refuse or allow"), "{}", stderr(&bad));
}

#[test]
fn recovered_mistakes_load_and_fail_only_strict_validation() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lib/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys apps: fast\n---\n",
    );
    write(
        dir.path(),
        "lib/pdf/SKILL.md",
        "---\nname: pdf\ndescription: #1 tool for PDFs\n---\n",
    );
    write(
        dir.path(),
        "lib/notes/SKILL.md",
        "---\nname: notes\ndescription: |- Takes notes.\n---\n",
    );
    let out = skills(dir.path(), &["list", "--source", "lib", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = json(&out);
    let descriptions: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["description"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(descriptions, ["Deploys apps: fast", "Takes notes.", "#1 tool for PDFs"]);
    let err = stderr(&out);
    for hint in ["quote the value", "`#` starts a comment", "belongs on the next line"] {
        assert!(err.contains(hint), "{hint:?} missing:\n{err}");
    }

    let out = skills(dir.path(), &["validate", "lib"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3 skill folders seen: 3 loaded, 0 skipped, 3 recovered, 0 hidden"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        stdout(&out).lines().filter(|l| l.contains(": recovered: ")).count(),
        3,
        "{}",
        stdout(&out)
    );
    let strict = skills(dir.path(), &["validate", "lib", "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn skills_kept_in_hidden_folders_are_hinted_with_the_folders_to_give() {
    // A repository laid out as `skills/.curated/<skill>`: the walk does not look into
    // hidden folders; the warning names the folder, which read as a source finds them.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "repo/skills/.curated/review/SKILL.md",
        &md("review", "Reviews"),
    );
    write(
        dir.path(),
        "repo/skills/.curated/deploy/SKILL.md",
        &md("deploy", "Deploys"),
    );
    let out = skills(dir.path(), &["list", "--source", "repo", "--json"]);
    assert!(names(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("hidden-skills") && err.contains("but 2 in them") && err.contains("repo/skills/.curated"),
        "{err}"
    );
    assert!(!err.contains("--depth") && err.contains("#path=FOLDER"), "{err}");
    let out = skills(dir.path(), &["list", "--source", "repo/skills/.curated", "--json"]);
    assert_eq!(names(&out), ["deploy", "review"], "{}", stderr(&out));
}

#[test]
fn nested_layouts_are_found_with_a_depth_and_hinted_without_one() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "repo/plugins/docs/skills/write/SKILL.md",
        &md("write", "Writes"),
    );
    write(
        dir.path(),
        "repo/owner--repo/skills/deploy/SKILL.md",
        &md("deploy", "Deploys"),
    );
    write(dir.path(), "repo/.git/skills/hidden/SKILL.md", &md("hidden", "Hidden"));
    let out = skills(dir.path(), &["list", "--source", "repo", "--json"]);
    assert!(names(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("deeper-skills") && err.contains("but 2 deeper") && err.contains("--depth"),
        "{err}"
    );

    let out = skills(dir.path(), &["list", "--source", "repo", "--json", "--depth", "4"]);
    assert_eq!(names(&out), ["deploy", "write"], "{}", stderr(&out));

    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"repo\"\ndepth = 4\n",
    );
    let out = skills(dir.path(), &["list", "--json"]);
    assert_eq!(names(&out), ["deploy", "write"], "{}", stderr(&out));
    let out = skills(dir.path(), &["validate", "repo", "--depth", "4"]);
    assert!(
        stderr(&out).contains("2 skill folders seen: 2 loaded"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_spec_profile_fails_what_the_lenient_one_reports() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lib/good/SKILL.md",
        &md("good", "Follows the specification"),
    );
    write(
        dir.path(),
        "lib/extra/SKILL.md",
        "---\nname: extra\ndescription: Has a version\nversion: 2\n---\n",
    );
    write(
        dir.path(),
        "lib/moved/SKILL.md",
        &md("renamed", "Name differs from its folder"),
    );
    let lenient = skills(dir.path(), &["validate", "lib"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", stderr(&lenient));
    assert!(
        !stdout(&lenient).contains("unknown-field"),
        "lenient keeps unknown keys quietly"
    );

    let spec = skills(dir.path(), &["validate", "lib", "--profile", "spec"]);
    assert_eq!(spec.status.code(), Some(1), "{}", stderr(&spec));
    let out = stdout(&spec);
    assert!(out.contains("extra/SKILL.md: unknown-field: `version`"), "{out}");
    assert!(out.contains("moved/SKILL.md: name-mismatch"), "{out}");
    assert!(stderr(&spec).contains("(2 fail the spec profile)"), "{}", stderr(&spec));
    let report = json(&skills(dir.path(), &["validate", "lib", "--profile", "spec", "--json"]));
    assert_eq!(
        (report["ok"].as_bool(), report["summary"]["violations"].as_u64()),
        (Some(false), Some(2))
    );

    let only_good = skills(dir.path(), &["validate", "lib/good", "--profile", "spec"]);
    assert_eq!(only_good.status.code(), Some(0), "{}", stderr(&only_good));
    let bad = skills(dir.path(), &["validate", "lib", "--profile", "pedantic"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn validate_flags_skills_over_the_mcp_extension_limits() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/many/SKILL.md", &md("many", "Too many files"));
    for i in 0..512 {
        write(dir.path(), &format!("lib/many/data/{i:03}.txt"), "x");
    }
    write(dir.path(), "lib/fine/SKILL.md", &md("fine", "Small"));
    let out = skills(dir.path(), &["validate", "lib", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning in the lenient profile: {}",
        stdout(&out)
    );
    let report = json(&out);
    let over: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "over-spec-limits")
        .collect();
    assert_eq!(over.len(), 1, "{report}");
    assert!(over[0]["path"].as_str().unwrap().ends_with("/lib/many/SKILL.md"));
    assert!(
        over[0]["message"].as_str().unwrap().contains("513 files, over the 512"),
        "{}",
        over[0]
    );
    let out = skills(dir.path(), &["validate", "lib", "--profile", "spec"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("over-spec-limits"), "{}", stdout(&out));
    // One skill folder given directly is checked too.
    let out = skills(dir.path(), &["validate", "lib/many", "--profile", "spec"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

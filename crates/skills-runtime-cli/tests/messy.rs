//! The committed library `tests/fixtures/messy`: one skill per form of frontmatter found
//! in real public collections that a strict YAML 1.2 reader refuses. Each loads as
//! PyYAML reads it (or, for the three authoring mistakes, as a person reads it) with a
//! warning that says what to fix; the one nobody can read is skipped with a hint.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::PathBuf;

use common::{json, skills, stderr};
use serde_json::Value;

fn messy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/messy")
}

/// Folder, the description it loads with, the diagnostic kind, and words of the hint.
const FORMS: &[(&str, &str, &str, &str)] = &[
    (
        "quoted-continuation",
        "Writes release notes from the merged pull requests",
        "non-standard-yaml",
        "continuation lines of a quoted value are not indented",
    ),
    (
        "single-quoted-continuation",
        "Writes release notes from the merged pull requests",
        "non-standard-yaml",
        "indent them",
    ),
    (
        "surrogate-pair",
        "Tracks spending",
        "non-standard-yaml",
        "surrogate-pair escape",
    ),
    (
        "flow-column-zero",
        "Reviews code",
        "non-standard-yaml",
        "inside `[...]` or `{...}`",
    ),
    ("bom-inside", "Formats tables", "non-standard-yaml", "byte order mark"),
    (
        "duplicate-key",
        "Summarises meetings",
        "duplicate-key",
        "the last one is used",
    ),
    (
        "block-header-text",
        "Drafts emails\nin the team voice",
        "recovered",
        "text after `|-` belongs on the next line",
    ),
    (
        "colon-in-value",
        "Deploys apps: fast and safe",
        "recovered",
        "which starts a mapping: quote the value",
    ),
    (
        "star-start",
        "**Bold** summary of a document",
        "recovered",
        "reads as an alias: quote the value",
    ),
    (
        "bracket-start",
        "[TODO: Say what this skill does, and when to use it.]",
        "recovered",
        "`[` starts a list: quote the value",
    ),
    (
        "hash-start",
        "#1 tool for changelogs",
        "recovered",
        "`#` starts a comment: quote the value",
    ),
];

/// The one diagnostic of `folder` that is about its form (a scaffold's `TODO`
/// description also gets a `placeholder-description` warning, which is about its words).
fn diagnostic_of<'a>(report: &'a Value, folder: &str) -> &'a Value {
    let path = format!("/{folder}/SKILL.md");
    let found: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"].as_str().is_some_and(|p| p.ends_with(&path)))
        .filter(|d| d["kind"] != "placeholder-description")
        .collect();
    assert_eq!(found.len(), 1, "{folder}: {found:?}");
    found[0]
}

#[test]
fn every_messy_form_loads_with_a_warning_that_says_what_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    let source = messy();
    let out = skills(dir.path(), &["list", "--source", source.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = json(&out);
    let listed = listed.as_array().unwrap();
    for (folder, description, _, _) in FORMS {
        let skill = listed
            .iter()
            .find(|s| s["name"] == *folder)
            .unwrap_or_else(|| panic!("{folder} is not listed"));
        assert_eq!(skill["description"], *description, "{folder}");
    }
    let icon = listed.iter().find(|s| s["name"] == "surrogate-pair").unwrap();
    assert_eq!(icon["metadata"]["icon"], "\u{1f4b0}", "the pair is one character");
    let review = listed.iter().find(|s| s["name"] == "flow-column-zero").unwrap();
    assert_eq!(review["metadata"]["author"], "team");
    assert_eq!(listed.len(), FORMS.len(), "only `unreadable` is left out");

    let out = skills(dir.path(), &["validate", source.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "`unreadable` is a skip");
    let report = json(&out);
    for (folder, _, kind, hint) in FORMS {
        let diagnostic = diagnostic_of(&report, folder);
        assert_eq!(diagnostic["kind"], *kind, "{folder}: {diagnostic}");
        let message = diagnostic["message"].as_str().unwrap();
        assert!(message.contains(hint), "{folder}: {message}");
    }
    let unreadable = diagnostic_of(&report, "unreadable");
    assert_eq!(unreadable["kind"], "invalid-yaml");
    assert!(unreadable["message"].as_str().unwrap().contains("hint: `description`"));
    let summary = &report["summary"];
    assert_eq!(
        (
            &summary["folders"],
            &summary["loaded"],
            &summary["skipped"],
            &summary["recovered"]
        ),
        (&Value::from(12), &Value::from(11), &Value::from(1), &Value::from(5)),
        "{summary}"
    );
}

#[test]
fn the_spec_profile_fails_on_each_form_and_strict_on_each_recovery() {
    let dir = tempfile::tempdir().unwrap();
    for (folder, _, kind, _) in FORMS {
        let one = messy().join(folder);
        let one = one.to_str().unwrap();
        let out = skills(dir.path(), &["validate", one]);
        assert_eq!(out.status.code(), Some(0), "{folder} loads: {}", stderr(&out));
        let out = skills(dir.path(), &["validate", "--profile", "spec", one]);
        assert_eq!(out.status.code(), Some(1), "{folder} breaks the spec");
        // `--strict` is about the mistakes read line by line; what PyYAML reads is no
        // mistake of that kind.
        let out = skills(dir.path(), &["validate", "--strict", one]);
        let strict = if *kind == "recovered" { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(strict), "{folder} under --strict");
    }
}

//! Sources from a `skills.toml`: found in the current directory, or given with
//! `--config`, relative paths resolved against the file's directory.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::Output;

use common::{md, skills, write};
use serde_json::Value;

/// `(name, description, source)` of `list --json`.
fn listed(output: &Output) -> Vec<(String, String, String)> {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap().to_owned();
            (field("name"), field("description"), field("source"))
        })
        .collect()
}

fn library(root: &Path) {
    write(root, "lib/base/web/SKILL.md", &md("web", "base web"));
    write(root, "lib/base/pdf/SKILL.md", &md("pdf", "base pdf"));
    write(root, "lib/team/web/SKILL.md", &md("web", "team web"));
    write(
        root,
        "lib/skills.toml",
        "[[source]]\nlocation = \"base\"\n\n[[source]]\nlabel = \"team\"\nlocation = \"./team\"\n",
    );
}

#[test]
fn a_config_file_lists_sources_in_priority_order() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let expected = vec![
        ("pdf".to_owned(), "base pdf".to_owned(), "base".to_owned()),
        ("web".to_owned(), "team web".to_owned(), "team".to_owned()),
    ];

    // ./skills.toml is picked up in its directory...
    assert_eq!(listed(&skills(&dir.path().join("lib"), &["list", "--json"])), expected);
    // ... and --config finds relative paths next to the file, wherever the command runs.
    assert_eq!(
        listed(&skills(dir.path(), &["list", "--json", "--config", "lib/skills.toml"])),
        expected
    );

    // --source values come after the file's sources, so they win.
    write(dir.path(), "extra/web/SKILL.md", &md("web", "extra web"));
    let output = skills(
        dir.path(),
        &["list", "--json", "-c", "lib/skills.toml", "--source", "extra"],
    );
    let web = listed(&output).into_iter().find(|(name, _, _)| name == "web").unwrap();
    assert_eq!(web, ("web".to_owned(), "extra web".to_owned(), "extra".to_owned()));

    // Without --config, --source alone ignores ./skills.toml.
    let output = skills(&dir.path().join("lib"), &["list", "--json", "--source", "base"]);
    assert!(listed(&output).iter().all(|(_, _, source)| source == "base"));
}

#[test]
fn a_broken_config_file_is_a_source_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"a\"\nbranch = \"main\"\n",
    );
    let output = skills(dir.path(), &["list"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("skills.toml") && stderr.contains("branch"), "{stderr}");

    let output = skills(dir.path(), &["list", "--config", "missing.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.toml"));

    write(dir.path(), "other.toml", "[[source]]\nlocation = \"does-not-exist\"\n");
    let output = skills(dir.path(), &["list", "--config", "other.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("does-not-exist"));
}

#[test]
fn list_shows_which_copies_a_winning_skill_hides() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let lib = dir.path().join("lib");
    let output = skills(&lib, &["list", "--json"]);
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let web = value.as_array().unwrap().iter().find(|s| s["name"] == "web").unwrap();
    assert_eq!(web["shadowed"][0]["source"], "base");
    assert!(
        web["shadowed"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("lib/base/web/SKILL.md")
    );
    let pdf = value.as_array().unwrap().iter().find(|s| s["name"] == "pdf").unwrap();
    assert_eq!(pdf["shadowed"], serde_json::json!([]));

    let table = String::from_utf8(skills(&lib, &["list"]).stdout).unwrap();
    let web_row = table.lines().find(|l| l.starts_with("web")).unwrap();
    assert!(web_row.ends_with("team (hides base)"), "{table}");
}

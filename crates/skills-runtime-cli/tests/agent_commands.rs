//! `skills prompt`, `skills load` and `skills new`, run as the built binary.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use common::skills;
use serde_json::Value;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn prompt_prints_the_section_a_model_gets() {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("examples={EXAMPLES}");
    let output = skills(
        dir.path(),
        &["prompt", "--source", &source, "--loaded", "web-research,code-review"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let section = text(&output.stdout);
    assert!(section.contains("## Skills System"), "{section}");
    assert!(section.contains("**web-research** [Loaded]:"), "{section}");
    assert!(section.contains("**code-review** [Loaded]:"), "{section}");
    assert!(section.contains("**sql-review**: "), "{section}");
    assert!(section.contains("(higher priority)"));

    let output = skills(dir.path(), &["prompt", "--source", &source, "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["catalog_version"], 1);
    assert_eq!(json["loaded"], serde_json::json!([]));
    assert!(!json["section"].as_str().unwrap().contains("[Loaded]"));

    let output = skills(dir.path(), &["prompt", "--source", &source, "--loaded", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("nope"));
}

#[test]
fn load_prints_what_load_skill_answers() {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("examples={EXAMPLES}");
    let output = skills(dir.path(), &["load", "web-research", "--source", &source]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let answer = text(&output.stdout);
    let skill_md = std::fs::read_to_string(format!("{EXAMPLES}/web-research/SKILL.md")).unwrap();
    let body_line = skill_md.lines().find(|l| l.starts_with("# ")).unwrap();
    assert!(answer.contains(body_line), "{answer}");
    assert!(answer.contains("- [script]"), "{answer}");

    let output = skills(dir.path(), &["load", "web-research", "--source", &source, "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["status"], "success");

    let output = skills(dir.path(), &["load", "nope", "--source", &source]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("not found") && stderr.contains("web-research"),
        "{stderr}"
    );
    let output = skills(dir.path(), &["load", "nope", "--source", &source, "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["status"], "error");
}

#[test]
fn new_scaffolds_a_valid_skill_and_refuses_bad_names_and_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    let output = skills(
        dir.path(),
        &[
            "new",
            "report-writer",
            "--dir",
            "lib",
            "--description",
            "Write \"reports\": fast",
        ],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    for sub in ["scripts", "references", "assets"] {
        // Git keeps the folder: it is not empty.
        assert!(lib.join("report-writer").join(sub).join(".gitkeep").is_file(), "{sub}");
    }
    // The keep files are not offered as resources.
    let output = skills(dir.path(), &["list", "--json", "--resources", "--source", "lib"]);
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let counts = &listed[0]["resources"];
    assert!(counts.is_object(), "{listed}");
    assert!(counts.as_object().unwrap().values().all(|n| n == 0), "{listed}");
    let output = skills(dir.path(), &["validate", "lib/report-writer"]);
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let output = skills(dir.path(), &["list", "--json", "--source", "lib"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json[0]["name"], "report-writer");
    assert_eq!(json[0]["description"], "Write \"reports\": fast");

    let before = std::fs::read(lib.join("report-writer/SKILL.md")).unwrap();
    let output = skills(dir.path(), &["new", "report-writer", "--dir", "lib"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("already exists"));
    assert_eq!(std::fs::read(lib.join("report-writer/SKILL.md")).unwrap(), before);

    for bad in ["Report", "a--b", "-a", "a_b", "../x", ""] {
        let output = skills(dir.path(), &["new", bad, "--dir", "lib"]);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
    }
    let output = skills(
        dir.path(),
        &["new", "two-lines", "--dir", "lib", "--description", "a\nb"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(!lib.join("two-lines").exists());

    // Without --description the scaffold's placeholder is warned about until replaced.
    let output = skills(dir.path(), &["new", "draft", "--dir", "lib"]);
    assert!(output.status.success());
    let output = skills(dir.path(), &["validate", "lib/draft"]);
    assert!(output.status.success(), "a warning does not fail validation");
    assert!(
        text(&output.stdout).contains("placeholder-description"),
        "{}",
        text(&output.stdout)
    );
    let edited = std::fs::read_to_string(lib.join("draft/SKILL.md"))
        .unwrap()
        .replace("TODO: what this skill does and when to use it.", "Drafts release notes");
    std::fs::write(lib.join("draft/SKILL.md"), edited).unwrap();
    let output = skills(dir.path(), &["validate", "lib/draft"]);
    assert!(
        !text(&output.stdout).contains("placeholder"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn no_progress_output_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("examples={EXAMPLES}");
    for args in [
        vec!["list", "--source", source.as_str()],
        vec!["prompt", "--source", source.as_str()],
        vec!["info", "web-research", "--source", source.as_str()],
    ] {
        let output = skills(dir.path(), &args);
        assert!(output.status.success());
        let stderr = text(&output.stderr);
        assert!(
            !stderr.contains("reading skill sources") && !stderr.contains('\r'),
            "{args:?}: {stderr:?}"
        );
    }
}

#[test]
fn load_and_search_count_the_rest_of_the_library_s_warnings() {
    // One skill to load; three with names the specification refuses (warnings), one
    // without a description (skipped) and one whose own warning concerns it.
    let dir = tempfile::tempdir().unwrap();
    common::write(dir.path(), "lib/web/SKILL.md", &common::md("web", "Researches the web"));
    for name in ["Title One", "Title Two", "Title Three"] {
        let folder = name.to_lowercase().replace(' ', "-");
        common::write(
            dir.path(),
            &format!("lib/{folder}/SKILL.md"),
            &common::md(name, "A title"),
        );
    }
    common::write(
        dir.path(),
        "lib/blank/SKILL.md",
        "---\nname: blank\ndescription: ''\n---\n",
    );
    common::write(
        dir.path(),
        "lib/mismatch/SKILL.md",
        &common::md("other-name", "Named apart"),
    );
    let source = "--source=lib";

    let out = skills(dir.path(), &["load", source, "web"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert_eq!(
        err.trim(),
        "warning: 1 skipped skill and 4 warnings in the library not shown (`skills validate` lists them)"
    );
    // What concerns the skill loaded is said in full.
    let out = skills(dir.path(), &["load", source, "other-name"]);
    let err = text(&out.stderr);
    assert!(err.contains("lib/mismatch/SKILL.md: name-mismatch"), "{err}");
    assert!(err.contains("1 skipped skill and 3 warnings in the library"), "{err}");
    // A skill that does not load gets everything, which may say why.
    let out = skills(dir.path(), &["load", source, "blank"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("lib/blank/SKILL.md: missing-description"), "{err}");
    assert!(err.contains("invalid-name") && !err.contains("not shown"), "{err}");

    let out = skills(dir.path(), &["search", source, "research the web"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("web"));
    assert_eq!(
        text(&out.stderr).trim(),
        "warning: 1 skipped skill and 4 warnings in the library not shown (`skills validate` lists them)"
    );
}

/// A skill file's control characters (`ESC [2J` clears a terminal, an OSC sequence sets
/// its title or clipboard) and bidirectional controls reach no terminal from a command's
/// lines for a person: they are shown as escapes. JSON escapes them itself, and `load`
/// prints what a model reads byte for byte unless its output is a terminal.
#[test]
fn control_characters_of_a_skill_file_are_shown_as_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    common::write(
        &lib,
        "evil/SKILL.md",
        "---\nname: evil\ndescription: \"Clears \\e[2J\\e]0;owned\\a the \\u202e screen\"\nlicense: \"MIT\\e[8m\"\n---\nBody \u{1b}[31mred\n",
    );
    common::write(&lib, "evil/references/a\u{1b}[2Jb.md", "x\n");
    let source = lib.to_str().unwrap();
    for args in [
        &["list", "--source", source][..],
        &["info", "evil", "--source", source],
        &["search", "clears the screen", "--source", source],
        &["validate", source],
    ] {
        let out = skills(dir.path(), args);
        let shown = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "{args:?}: {shown:?}"
        );
    }
    let info = common::stdout(&skills(dir.path(), &["info", "evil", "--source", source]));
    assert!(
        info.contains("Clears \\x1b[2J\\x1b]0;owned\\x07 the \\u{202e} screen"),
        "{info}"
    );
    assert!(info.contains("a\\x1b[2Jb.md"), "{info}");
    let json = common::stdout(&skills(dir.path(), &["list", "--json", "--source", source]));
    let listed: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        listed[0]["description"],
        "Clears \u{1b}[2J\u{1b}]0;owned\u{7} the \u{202e} screen"
    );
    let loaded = skills(dir.path(), &["load", "evil", "--source", source]);
    assert!(
        text(&loaded.stdout).contains("Body \u{1b}[31mred"),
        "piped: byte for byte"
    );
}

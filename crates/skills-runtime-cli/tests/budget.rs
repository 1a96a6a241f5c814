//! `skills prompt --budget` / `--context-window` and `--report`: the skills list kept
//! within a number of characters, and what the budget did.

#![allow(clippy::unwrap_used)]

mod common;

use common::{md, skills, stderr, stdout, write};

fn library(root: &std::path::Path) {
    for i in 0..30 {
        let name = format!("skill-{i:02}");
        let description = format!("Handles request kind {i}. It reads the input, checks it and writes a report.");
        write(root, &format!("lib/{name}/SKILL.md"), &md(&name, &description));
    }
}

/// The skills list of a section: from its first entry to its counting line.
fn list_of(section: &str) -> &str {
    let start = section.find("- **").unwrap();
    let end = section[start..].find("\n\n").map_or(section.len(), |e| start + e);
    &section[start..end]
}

#[test]
fn prompt_keeps_the_list_within_the_budget_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let whole = skills(dir.path(), &["prompt", "--source", "lib"]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert!(!stdout(&whole).contains("not listed"), "no budget unless given");
    assert_eq!(list_of(&stdout(&whole)).matches("load_skill(").count(), 30);

    let out = skills(dir.path(), &["prompt", "--source", "lib", "--budget", "900"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let list = list_of(&text);
    assert!(
        list.chars().count() <= 900,
        "{} characters:\n{list}",
        list.chars().count()
    );
    assert!(list.contains("not listed, to keep this list short"), "{list}");
    // The same budget from a context window: 22,500 tokens at 1% is 900 characters.
    let window = skills(dir.path(), &["prompt", "--source", "lib", "--context-window", "22500"]);
    assert_eq!(stdout(&window), text);

    let report = skills(
        dir.path(),
        &["prompt", "--source", "lib", "--budget", "900", "--report"],
    );
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let lines: Vec<String> = stdout(&report).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 30 + 1 + 6, "{lines:?}");
    assert!(
        lines[30].starts_with("total ") && lines[30].contains("(budget 900)"),
        "{}",
        lines[30]
    );
    assert!(lines[31].starts_with("at 2000 characters: "), "{}", lines[31]);
    assert!(
        lines[36].contains("30 full, 0 short, 0 by name, 0 not listed"),
        "{}",
        lines[36]
    );

    let bad = skills(
        dir.path(),
        &[
            "prompt",
            "--source",
            "lib",
            "--context-window",
            "1000",
            "--budget-fraction",
            "2",
        ],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("budget-fraction must be above 0 and at most 1"),
        "{}",
        stderr(&bad)
    );
    let both = skills(
        dir.path(),
        &["prompt", "--source", "lib", "--budget", "9", "--context-window", "9"],
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn prompt_has_a_default_budget_and_search_finds_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..100 {
        let name = format!("skill-{i:03}");
        let description = format!("Handles request kind {i}. It reads the input, checks it and writes a report.");
        write(dir.path(), &format!("lib/{name}/SKILL.md"), &md(&name, &description));
    }
    write(
        dir.path(),
        "lib/invoice-maker/SKILL.md",
        &md("invoice-maker", "Creates invoices with taxes and due dates"),
    );
    let out = skills(dir.path(), &["prompt", "--source", "lib"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = list_of(&stdout(&out)).to_owned();
    assert!(
        list.chars().count() <= 8_000,
        "the default budget: {} characters",
        list.chars().count()
    );
    assert!(list.contains("`search_skills` finds any skill"), "{list}");
    let whole = skills(dir.path(), &["prompt", "--source", "lib", "--no-budget"]);
    assert_eq!(list_of(&stdout(&whole)).matches("load_skill(").count(), 101);

    let found = skills(dir.path(), &["search", "--source", "lib", "invoicing with tax"]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    assert_eq!(
        stdout(&found).lines().next(),
        Some("- invoice-maker: Creates invoices with taxes and due dates (lib)")
    );
    let json = skills(
        dir.path(),
        &["search", "--source", "lib", "--json", "-n", "2", "request kind 7"],
    );
    let hits: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(hits.as_array().unwrap().len(), 2);
    let many = skills(dir.path(), &["search", "--source", "lib", "-n", "100", "request kind"]);
    assert_eq!(stdout(&many).lines().count(), skills_runtime::MAX_SEARCH_RESULTS);
    assert!(
        stderr(&many).contains("a search gives at most 16 skills (asked for 100)"),
        "{}",
        stderr(&many)
    );
    assert_eq!(hits[0]["name"], "skill-007");

    let empty = skills(dir.path(), &["search", "--source", "lib", " "]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(
        stderr(&empty).contains("the search query is empty"),
        "{}",
        stderr(&empty)
    );
    let zero = skills(dir.path(), &["search", "--source", "lib", "-n", "0", "invoice"]);
    assert_eq!(zero.status.code(), Some(2));
    // Said before the library is read: nothing about its source, and no wait for it.
    let unread = skills(dir.path(), &["search", "--source", "no-such-folder", "?"]);
    assert_eq!(unread.status.code(), Some(2));
    assert!(
        stderr(&unread).starts_with("error: the search query is empty"),
        "{}",
        stderr(&unread)
    );
}

#[test]
fn skills_toml_sets_the_budget_and_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let config = |text: &str| {
        write(
            dir.path(),
            "skills.toml",
            &format!("[[source]]\nlocation = \"lib\"\n\n{text}"),
        )
    };
    config("[prompt]\nbudget = 600\npinned = [\"skill-29\"]\n");
    let out = skills(dir.path(), &["prompt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let list = list_of(&text);
    assert!(list.chars().count() <= 600, "{list}");
    assert!(
        list.contains("- **skill-29**: Handles request kind 29. It reads"),
        "pinned: {list}"
    );
    // A flag over the file.
    let out = skills(dir.path(), &["prompt", "--no-budget"]);
    assert_eq!(list_of(&stdout(&out)).matches("load_skill(").count(), 30);

    config("[prompt]\nbudget = \"none\"\n");
    let out = skills(dir.path(), &["prompt"]);
    assert_eq!(list_of(&stdout(&out)).matches("load_skill(").count(), 30);

    config("[prompt]\nbudget = \"all\"\n");
    let out = skills(dir.path(), &["prompt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("budget must be a number of characters or \"none\""),
        "{}",
        stderr(&out)
    );
    config("[prompt]\ncontext-window = 1000\nbudget-fraction = 2.0\n");
    let out = skills(dir.path(), &["prompt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("budget-fraction must be above 0"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn search_reads_the_instructions_unless_skills_toml_says_not_to() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lib/astro/SKILL.md",
        &(md("astro", "Astronomy toolkit") + "Convert sky coordinates and read FITS files.\n"),
    );
    write(
        dir.path(),
        "lib/units/SKILL.md",
        &md("units", "Convert units of measure"),
    );
    // `skills search --json` for "sky coordinates" under a skills.toml ending in `settings`.
    let search = |settings: &str| {
        write(
            dir.path(),
            "skills.toml",
            &format!("[[source]]\nlocation = \"lib\"\n\n{settings}"),
        );
        skills(dir.path(), &["search", "--json", "sky coordinates"])
    };
    let names = |out: &std::process::Output| -> Vec<String> {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
        let hits: serde_json::Value = serde_json::from_str(&stdout(out)).unwrap();
        hits.as_array()
            .unwrap()
            .iter()
            .map(|h| h["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&search("")), ["astro"]);
    assert!(names(&search("[search]\ninstructions = false\n")).is_empty());
    let bad = search("[search]\ninstructons = false\n");
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("instructons"), "{}", stderr(&bad));
}

#[test]
fn search_explain_says_which_words_of_which_field_made_each_score() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lib/pdf-forms/SKILL.md",
        &(md("pdf-forms", "Fill in PDF forms") + "Read the form's fields first.\n"),
    );
    write(
        dir.path(),
        "lib/web/SKILL.md",
        &md("web", "Search the web for PDF files"),
    );
    let out = skills(dir.path(), &["search", "pdf forms", "--source", "lib", "--explain"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("- pdf-forms: Fill in PDF forms"), "{text}");
    // The named skill: the request is its name, which outweighs every word.
    assert!(lines[1].trim_start().starts_with("1"), "{text}");
    assert!(lines[1].contains("named: pdf-forms 1000.00"), "{text}");
    assert!(lines[1].contains("name: pdf"), "{text}");
    assert!(lines[1].contains("description: form"), "{text}");
    assert!(lines[2].starts_with("- web:"), "{text}");
    assert!(lines[3].contains("description: pdf"), "{text}");
    let json: serde_json::Value = serde_json::from_slice(
        &skills(
            dir.path(),
            &["search", "fill pdf forms", "--source", "lib", "--explain", "--json"],
        )
        .stdout,
    )
    .unwrap();
    let score = json[1]["score"].as_f64().unwrap();
    let parts: f64 = json[1]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["points"].as_f64().unwrap())
        .sum();
    assert!((score - parts).abs() < 1e-3, "the parts add up to the score: {json}");
}

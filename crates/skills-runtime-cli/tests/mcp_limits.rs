//! `skills serve` and the per-skill limits of the MCP skills extension (SEP-2640),
//! driven by the `mcp` Python SDK's client (tests/mcp/client.py, mode `limits`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{mcp_client, md, stderr, write};
use serde_json::json;

const SKILLS: &str = env!("CARGO_BIN_EXE_skills");

/// SEP-2640: a published manifest is complete (no depth or count cap), and a skill
/// that cannot be published as the extension requires (over 512 files, a file over the
/// server's per-file limit, a description over the specification's length, a
/// frontmatter a host's YAML reader cannot read) is left out of `skills/list` with a
/// word on stderr, and `skills/get` says why.
#[test]
fn manifests_are_complete_and_skills_over_the_limits_are_left_out_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("limits");
    write(&lib, "deep/SKILL.md", &md("deep", "Nested files."));
    write(&lib, "deep/a/b/c/d/e/f/g/h/i/j/notes.md", "ten levels down\n");
    write(&lib, "many/SKILL.md", &md("many", "Too many files."));
    for i in 0..512 {
        write(&lib, &format!("many/data/{i:03}.txt"), "x");
    }
    write(&lib, "large/SKILL.md", &md("large", "One file too large to read."));
    std::fs::create_dir_all(lib.join("large/assets")).unwrap();
    std::fs::write(lib.join("large/assets/big.bin"), vec![0u8; 10 * 1024 * 1024 + 1]).unwrap();
    write(&lib, "wordy/SKILL.md", &md("wordy", &"word ".repeat(220)));
    write(&lib, "colon/SKILL.md", &md("colon", "Deploys apps: fast"));
    write(&lib, "fits/SKILL.md", &md("fits", "Exactly 512 files."));
    for i in 0..511 {
        write(&lib, &format!("fits/data/{i:03}.txt"), "x");
    }
    let (output, report) = mcp_client(
        dir.path(),
        "limits",
        &lib,
        &[SKILLS, "serve", "--source", lib.to_str().unwrap()],
    );

    let listed: Vec<&str> = report["skills_list"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["skill://deep/SKILL.md", "skill://fits/SKILL.md"], "{report}");
    let deep = &report["deep"]["value"];
    assert!(
        deep.as_str()
            .unwrap()
            .contains("skill://deep/a/b/c/d/e/f/g/h/i/j/notes.md"),
        "{report}"
    );
    let fits = &report["skills_list"]["skills"][1]["resources"];
    assert_eq!(
        fits.as_array().unwrap().len(),
        512,
        "SKILL.md and 511 files, all listed"
    );
    for (name, reason) in [
        ("many", "513 files, over the 512"),
        ("large", "assets/big.bin is 10485761 bytes, over this server's limit"),
        ("colon", "its frontmatter is not valid YAML as written"),
        (
            "wordy",
            "its description is 1099 characters, over the 1024 the Agent Skills specification allows",
        ),
    ] {
        let error = &report[name];
        assert_eq!(error["code"], json!(-32602), "{name}: {report}");
        assert_eq!(
            error["data"]["uri"],
            format!("skill://{name}/SKILL.md"),
            "{name}: {report}"
        );
        let said = error["data"]["reason"].as_str().unwrap();
        assert!(said.contains(reason), "{name}: {said}");
        assert!(
            stderr(&output).contains(&format!("warning: skill {name} is not published: ")),
            "{}",
            stderr(&output)
        );
    }
}

/// A skill whose name cannot be a `skill://` URI is not in `skills/list`, and the server
/// says when it starts that the tools and prompts still reach it, instead of "0".
#[test]
fn skills_whose_names_cannot_be_uris_are_named_when_the_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    write(&lib, "good/SKILL.md", &md("good", "A good name."));
    write(
        &lib,
        "spaced/SKILL.md",
        "---\nname: Spaced Name\ndescription: Not a URI segment.\n---\n",
    );
    // No client: stdin is closed at once, after the startup lines.
    let output = Command::new(SKILLS)
        .args(["serve", "--source", lib.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&output);
    assert!(
        err.contains(
            "serving 2 skills (1 of them through tools and prompts only: names that are not valid skill names, \
             e.g. \"Spaced Name\""
        ) && err.contains("over MCP on stdio"),
        "{err}"
    );
}

/// `skills/list` and `prompts/list` page through a library larger than a page, every
/// skill exactly once.
#[test]
fn skills_list_pages_through_every_skill_once() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    for i in 0..1_100 {
        let name = format!("skill-{i:04}");
        write(&lib, &format!("{name}/SKILL.md"), &md(&name, "One of many."));
    }
    let (_, report) = mcp_client(
        dir.path(),
        "pages",
        &lib,
        &[SKILLS, "serve", "--source", lib.to_str().unwrap()],
    );
    assert_eq!(report["pages"], json!(3), "500 skills a page");
    let uris: Vec<&str> = report["uris"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..1_100).map(|i| format!("skill://skill-{i:04}/SKILL.md")).collect();
    assert_eq!(uris, expected);
    // prompts/list pages the same way: every skill once, as a prompt.
    assert_eq!(report["prompt_pages"], json!(3), "500 prompts a page");
    let names: Vec<&str> = report["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..1_100).map(|i| format!("skill-{i:04}")).collect();
    assert_eq!(names, expected);
}

#[test]
fn a_large_library_gets_a_budgeted_list_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    for i in 0..300 {
        let name = format!("skill-{i:03}");
        write(&lib, &format!("{name}/SKILL.md"), &md(&name, "One of many."));
    }
    write(
        &lib,
        "invoice-maker/SKILL.md",
        &md("invoice-maker", "Creates invoices with taxes and due dates."),
    );
    let (_, report) = mcp_client(
        dir.path(),
        "budget",
        &lib,
        &[SKILLS, "serve", "--source", lib.to_str().unwrap(), "--budget", "4000"],
    );
    let list = report["list_skills"]["content"][0]["text"].as_str().unwrap();
    assert!(list.chars().count() <= 4_000, "{} characters", list.chars().count());
    assert!(list.contains("`search_skills` finds any skill"), "{list}");
    let structured = &report["list_skills"]["structured"];
    let shown = structured["skills"].as_array().unwrap().len();
    let not_listed = structured["not_listed"].as_u64().unwrap() as usize;
    assert!(not_listed > 0 && shown + not_listed == 301, "{shown} + {not_listed}");
    // The instructions are written to be cut: within 4,000 characters, the count and
    // search_skills in the first 2,048, every skill on a line of its own, the rest
    // counted at the end.
    let instructions = report["instructions"].as_str().unwrap();
    assert!(instructions.chars().count() <= 4_000, "{instructions}");
    let head: String = instructions.chars().take(2_048).collect();
    assert!(
        head.contains("301 skills") && head.contains("search_skills(query)"),
        "{head}"
    );
    let entries: Vec<&str> = instructions.lines().skip(1).collect();
    assert!(entries.len() > 10, "{instructions}");
    assert!(entries.iter().all(|l| l.starts_with("- ")), "{instructions}");
    assert!(
        instructions.ends_with("more: search_skills finds them)"),
        "{instructions}"
    );
    assert_eq!(
        report["search_skills"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .lines()
            .next(),
        Some("- invoice-maker: Creates invoices with taxes and due dates. (lib)")
    );
    // skills/list stays complete.
    assert_eq!(report["skills_list_count"], json!(301));
}

/// A skill folder whose file is a lowercase `skill.md` is published: SEP-2640 names a
/// skill by its `SKILL.md`, so the file is listed, digested and read as `SKILL.md` (the
/// name a host looks for once it has copied the folder), and still reads by its own name.
#[test]
fn a_lowercase_skill_md_is_published_as_its_skill_md() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let content = md("lower", "Kept in a lowercase file.");
    write(&lib, "lower/skill.md", &content);
    write(&lib, "lower/references/notes.md", "notes\n");
    let (_, report) = mcp_client(
        dir.path(),
        "skill-file",
        &lib,
        &[SKILLS, "serve", "--source", lib.to_str().unwrap()],
    );
    let skills = report["skills_list"]["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{report}");
    assert_eq!(skills[0]["uri"], "skill://lower/SKILL.md", "{report}");
    let resources = report["skills_get"]["skill"]["resources"].as_array().unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["skill://lower/SKILL.md", "skill://lower/references/notes.md"]);
    assert_eq!(resources[0]["size"], json!(content.len()));
    assert_eq!(
        resources[0]["digest"],
        json!(skills_runtime::digest::sha256_text(content.as_bytes()))
    );
    assert_eq!(report["read"], json!(content));
    assert_eq!(report["read_lowercase"], json!(content));
}

/// On a 10,000-skill library the instructions stay within 4,000 characters, the first
/// 2,048 (what Claude Code kept before its version 2.1.296) hold the count and
/// `search_skills`, and the skills come most used first, not in alphabetical order.
#[test]
fn instructions_of_a_10000_skill_library_survive_every_client_cut() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    for i in 0..10_000 {
        let name = format!("skill-{i:05}");
        write(
            &lib,
            &format!("{name}/SKILL.md"),
            &md(
                &name,
                &format!("Does task number {i} of the generated library, and nothing else."),
            ),
        );
    }
    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n\n[prompt]\npinned = [\"skill-09999\"]\n",
    );
    let config = dir.path().join("skills.toml");
    let (_, legacy) = mcp_client(
        dir.path(),
        "instructions-legacy",
        &lib,
        &[SKILLS, "serve", "--config", config.to_str().unwrap()],
    );
    let (_, report) = mcp_client(
        dir.path(),
        "instructions",
        &lib,
        &[SKILLS, "serve", "--config", config.to_str().unwrap()],
    );
    let instructions = report["instructions"].as_str().unwrap();
    assert_eq!(
        legacy["instructions"], report["instructions"],
        "both protocol eras get the same text"
    );
    assert!(
        instructions.chars().count() <= 4_000,
        "{} characters",
        instructions.chars().count()
    );
    let head: String = instructions.chars().take(2_048).collect();
    assert!(
        head.contains("10000 skills") && head.contains("search_skills(query)"),
        "{head}"
    );
    let entries: Vec<&str> = instructions.lines().skip(1).collect();
    assert!(
        entries[0].starts_with("- **skill-09999**"),
        "the pinned skill first: {}",
        entries[0]
    );
    assert!(entries.iter().all(|l| l.starts_with("- ")), "{instructions}");
    assert!(
        instructions.ends_with("more: search_skills finds them)"),
        "{instructions}"
    );

    // A smaller budget is a smaller text, cut between entries.
    let (_, report) = mcp_client(
        dir.path(),
        "instructions",
        &lib,
        &[
            SKILLS,
            "serve",
            "--config",
            config.to_str().unwrap(),
            "--instructions-budget",
            "1500",
        ],
    );
    let short = report["instructions"].as_str().unwrap();
    assert!(
        short.chars().count() <= 1_500 && short.len() < instructions.len(),
        "{short}"
    );
    assert!(instructions.starts_with(short.lines().next().unwrap()));
    // So is one a skills.toml sets.
    write(
        dir.path(),
        "serve.toml",
        "[[source]]\nlocation = \"lib\"\n\n[serve]\ninstructions-budget = 1000\n",
    );
    let config = dir.path().join("serve.toml");
    let (_, report) = mcp_client(
        dir.path(),
        "instructions",
        &lib,
        &[SKILLS, "serve", "--config", config.to_str().unwrap()],
    );
    let configured = report["instructions"].as_str().unwrap();
    assert!(
        configured.chars().count() <= 1_000 && configured.lines().count() > 1,
        "{configured}"
    );
}

use std::collections::BTreeMap;

use super::*;
use crate::DiagnosticKind::{self, *};

const PATH: &str = "/skills/web/SKILL.md";

fn parse_in(dir: &str, md: &str) -> ParseOutcome {
    parse_skill_md(md.as_bytes(), &format!("/skills/{dir}/SKILL.md"), dir)
}

fn kinds(outcome: &ParseOutcome) -> Vec<DiagnosticKind> {
    outcome.diagnostics.iter().map(|d| d.kind).collect()
}

/// Frontmatter with `name: web` and a description, plus `more` lines.
fn md(more: &str) -> String {
    format!("---\nname: web\ndescription: Search the web\n{more}---\n# Body\n")
}

/// Parses `source` in directory `web`, asserts it loads with exactly `diagnostics`.
fn loaded(source: &str, diagnostics: &[DiagnosticKind]) -> SkillMetadata {
    loaded_in("web", source, diagnostics)
}

fn loaded_in(dir: &str, source: &str, diagnostics: &[DiagnosticKind]) -> SkillMetadata {
    let outcome = parse_in(dir, source);
    assert_eq!(kinds(&outcome), diagnostics, "diagnostics of {source:?}");
    outcome.skill.unwrap_or_else(|| panic!("{source:?} was skipped"))
}

/// Asserts `content` is skipped with exactly `diagnostics`, the last one a skip.
fn skipped(content: &[u8], diagnostics: &[DiagnosticKind]) {
    let outcome = parse_skill_md(content, PATH, "web");
    let shown = String::from_utf8_lossy(&content[..content.len().min(80)]).into_owned();
    assert_eq!(outcome.skill, None, "{shown:?} was loaded");
    assert_eq!(kinds(&outcome), diagnostics, "diagnostics of {shown:?}");
    assert!(outcome.diagnostics.iter().any(|d| d.severity() == Severity::Skip));
    assert!(outcome.diagnostics.iter().all(|d| d.path == PATH));
}

#[test]
fn full_frontmatter_fills_every_field() {
    let skill = loaded(
        &md(
            "license: MIT\ncompatibility: Python 3.10+\nmetadata:\n  author: team\n  version: \"2\"\nallowed-tools: Read Grep\n",
        ),
        &[],
    );
    assert_eq!(
        skill,
        SkillMetadata {
            path: "/skills/web/SKILL.md".into(),
            name: "web".into(),
            description: "Search the web".into(),
            license: Some("MIT".into()),
            compatibility: Some("Python 3.10+".into()),
            metadata: BTreeMap::from([("author".into(), "team".into()), ("version".into(), "2".into())]).into(),
            allowed_tools: vec!["Read".into(), "Grep".into()],
            extra: FieldMap::new(),
            extensions: None,
        }
    );
}

#[test]
fn minimal_frontmatter_leaves_optional_fields_empty() {
    let skill = loaded(&md(""), &[]);
    assert_eq!((skill.license, skill.compatibility), (None, None));
    assert!(skill.metadata.is_empty() && skill.allowed_tools.is_empty() && skill.extra.is_empty());
}

#[test]
fn missing_or_malformed_frontmatter_is_a_skip() {
    for source in [
        "",
        "# Title\n\nno frontmatter\n",
        "---\nname: web\ndescription: never closed\n",
        " ---\nname: web\ndescription: d\n---\n",
        "--- x\nname: web\ndescription: d\n---\n",
        "\n---\nname: web\ndescription: d\n---\n",
    ] {
        skipped(source.as_bytes(), &[NoFrontmatter]);
    }
}

#[test]
fn invalid_yaml_is_a_skip() {
    for source in [
        "---\nname: [unclosed\ndescription: d\n---\n",
        "---\nname: web\n\tdescription: tab indent\n---\n",
    ] {
        skipped(source.as_bytes(), &[InvalidYaml]);
    }
}

#[test]
fn duplicate_keys_are_a_warning_and_the_last_one_wins() {
    let skill = loaded(
        "---\nname: web\ndescription: first\ndescription: second\n---\n",
        &[DuplicateKey],
    );
    assert_eq!(skill.description, "second");
}

#[test]
fn alias_bomb_is_a_skip_not_a_hang() {
    let mut source = String::from("---\nname: web\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\n");
    let mut prev = 'a';
    for name in 'b'..='k' {
        let refs = vec![format!("*{prev}"); 10].join(", ");
        source.push_str(&format!("{name}: &{name} [{refs}]\n"));
        prev = name;
    }
    source.push_str("---\n");
    skipped(source.as_bytes(), &[InvalidYaml]);
}

#[test]
fn frontmatter_that_is_not_a_mapping_is_a_skip() {
    for source in [
        "---\n- a\n- b\n---\n",
        "---\njust a sentence\n---\n",
        "---\n---\n",
        "---\n42\n---\n",
    ] {
        skipped(source.as_bytes(), &[FrontmatterNotMapping]);
    }
}

#[test]
fn missing_or_blank_required_fields_are_skips() {
    for source in [
        "---\ndescription: d\n---\n",
        "---\nname:\ndescription: d\n---\n",
        "---\nname: ~\ndescription: d\n---\n",
        "---\nname: '   '\ndescription: d\n---\n",
        "---\nname: [a, b]\ndescription: d\n---\n",
    ] {
        skipped(source.as_bytes(), &[MissingName]);
    }
    for source in [
        "---\nname: web\n---\n",
        "---\nname: web\ndescription:\n---\n",
        "---\nname: web\ndescription: \"\"\n---\n",
        "---\nname: web\ndescription: {a: 1}\n---\n",
    ] {
        skipped(source.as_bytes(), &[MissingDescription]);
    }
    skipped(b"---\nlicense: MIT\n---\n", &[MissingName, MissingDescription]);
}

#[test]
fn empty_name_is_never_the_string_none() {
    let outcome = parse_skill_md(b"---\nname:\ndescription: d\n---\n", PATH, "None");
    assert_eq!(outcome.skill, None);
}

#[test]
fn name_rules_warn_but_load() {
    let long = "a".repeat(65);
    for (dir, name, expected) in [
        ("web-research", "web-research", vec![]),
        ("caf\u{e9}", "caf\u{e9}", vec![]),
        ("123", "123", vec![]),
        (long.as_str(), long.as_str(), vec![InvalidName]),
        ("Web", "Web", vec![InvalidName]),
        ("Caf\u{e9}", "Caf\u{e9}", vec![InvalidName]),
        ("-web", "-web", vec![InvalidName]),
        ("web-", "web-", vec![InvalidName]),
        ("web--x", "web--x", vec![InvalidName]),
        ("web_x", "web_x", vec![InvalidName]),
        // Any script, as the specification's reference library reads it.
        ("\u{6280}\u{80fd}", "\u{6280}\u{80fd}", vec![]),
        (
            "\u{43d}\u{430}\u{432}\u{44b}\u{43a}",
            "\u{43d}\u{430}\u{432}\u{44b}\u{43a}",
            vec![],
        ),
        (
            "\u{41d}\u{410}\u{412}\u{42b}\u{41a}",
            "\u{41d}\u{410}\u{412}\u{42b}\u{41a}",
            vec![InvalidName],
        ),
        // Compared with the folder in NFKC form: a decomposed name in a composed folder.
        ("caf\u{e9}", "cafe\u{301}", vec![]),
        ("\u{1f680}", "\u{1f680}", vec![InvalidName]),
        ("web-research", "web", vec![NameMismatch]),
    ] {
        let skill = loaded_in(dir, &format!("---\nname: {name}\ndescription: d\n---\n"), &expected);
        assert_eq!(skill.name, name);
    }
}

#[test]
fn long_description_and_compatibility_are_cut_with_a_warning() {
    let exact = "d".repeat(1024);
    assert_eq!(
        loaded(&format!("---\nname: web\ndescription: {exact}\n---\n"), &[]).description,
        exact
    );

    let long = "\u{e9}".repeat(1100);
    let skill = loaded(
        &format!("---\nname: web\ndescription: {long}\n---\n"),
        &[DescriptionTruncated],
    );
    assert_eq!(skill.description, "\u{e9}".repeat(1024));

    let compat = "c".repeat(501);
    let skill = loaded(&md(&format!("compatibility: {compat}\n")), &[CompatibilityTruncated]);
    assert_eq!(skill.compatibility, Some("c".repeat(500)));
    assert_eq!(
        loaded(&md(&format!("compatibility: {}\n", "c".repeat(500))), &[])
            .compatibility
            .map(|c| c.len()),
        Some(500)
    );
}

#[test]
fn allowed_tools_forms() {
    let tools = |yaml: &str, diagnostics: &[DiagnosticKind]| {
        loaded(&md(&format!("allowed-tools: {yaml}\n")), diagnostics).allowed_tools
    };
    assert_eq!(tools("Bash  Read", &[]), ["Bash", "Read"]);
    assert_eq!(tools("Bash,Read,Write", &[]), ["Bash", "Read", "Write"]);
    assert_eq!(tools("Bash, Read ,  Write,", &[]), ["Bash", "Read", "Write"]);
    assert_eq!(tools("Bash(git add:*) Read", &[]), ["Bash(git add:*)", "Read"]);
    assert_eq!(tools("\"\"", &[]), Vec::<String>::new());
    assert_eq!(tools("", &[]), Vec::<String>::new());
    assert_eq!(
        tools("[Bash, ' Read ', '', '  ', Write]", &[]),
        ["Bash", "Read", "Write"]
    );
    assert_eq!(
        tools("[Bash, 5, true, ~, [x], Read, '7']", &[AllowedToolsEntryDropped]),
        ["Bash", "Read", "7"]
    );
    assert_eq!(tools("5", &[AllowedToolsIgnored]), Vec::<String>::new());
    assert_eq!(tools("true", &[AllowedToolsIgnored]), Vec::<String>::new());
    assert_eq!(tools("{Bash: yes}", &[AllowedToolsIgnored]), Vec::<String>::new());
}

#[test]
fn metadata_values_keep_their_yaml_text() {
    let skill = loaded(
        &md(
            "metadata:\n  version: 1.10\n  flag: true\n  count: 007\n  empty:\n  quoted: 'x y'\n  nested: {a: 1, b: [x]}\n",
        ),
        &[],
    );
    let expected: FieldMap<String> = [
        ("version", "1.10"),
        ("flag", "true"),
        ("count", "007"),
        ("empty", ""),
        ("quoted", "x y"),
        ("nested", "{a: 1, b: [x]}"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(skill.metadata, expected);
}

#[test]
fn metadata_that_is_not_a_mapping_is_ignored_with_a_warning() {
    for yaml in ["[a, b]", "just text", "3"] {
        let skill = loaded(&md(&format!("metadata: {yaml}\n")), &[MetadataIgnored]);
        assert!(skill.metadata.is_empty());
    }
    assert!(loaded(&md("metadata:\n"), &[]).metadata.is_empty());
}

#[test]
fn optional_scalars_keep_their_text_and_empty_means_absent() {
    assert_eq!(loaded(&md("license: true\n"), &[]).license.as_deref(), Some("true"));
    assert_eq!(loaded(&md("license: yes\n"), &[]).license.as_deref(), Some("yes"));
    assert_eq!(loaded(&md("license: 2.0\n"), &[]).license.as_deref(), Some("2.0"));
    assert_eq!(loaded(&md("license: ''\n"), &[]).license, None);
    assert_eq!(loaded(&md("license: '   '\n"), &[]).license, None);
    assert_eq!(loaded(&md("license:\n"), &[]).license, None);
    assert_eq!(loaded(&md("compatibility: ''\n"), &[]).compatibility, None);
    assert_eq!(loaded(&md("license: [MIT]\n"), &[FieldIgnored]).license, None);
}

#[test]
fn non_string_name_and_description_keep_their_text() {
    let skill = loaded_in("1-0", "---\nname: 1-0\ndescription: 1.10\n---\n", &[]);
    assert_eq!((skill.name.as_str(), skill.description.as_str()), ("1-0", "1.10"));
}

#[test]
fn unknown_keys_are_kept_in_extra() {
    let skill = loaded(&md("version: 1.10\ntags: [a, b]\nowner: {team: x}\nnothing:\n"), &[]);
    assert_eq!(
        skill.extra,
        FieldMap::from_iter([
            ("version".to_owned(), FrontmatterValue::Text("1.10".into())),
            (
                "tags".to_owned(),
                FrontmatterValue::List(vec![
                    FrontmatterValue::Text("a".into()),
                    FrontmatterValue::Text("b".into())
                ])
            ),
            (
                "owner".to_owned(),
                FrontmatterValue::Map(FieldMap::from_iter([(
                    "team".to_owned(),
                    FrontmatterValue::Text("x".into())
                )]))
            ),
            ("nothing".to_owned(), FrontmatterValue::Null),
        ])
    );
}

#[test]
fn crlf_bom_trailing_spaces_and_closing_marker_at_eof_are_accepted() {
    for source in [
        "---\r\nname: web\r\ndescription: Search the web\r\n---\r\n# Body\r\n",
        "\u{feff}---\nname: web\ndescription: Search the web\n---\n",
        "---   \nname: web\ndescription: Search the web\n---  \n",
        "---\nname: web\ndescription: Search the web\n---",
        "---\nname: web\ndescription: Search the web\n---\n---\nmore body after a rule\n",
    ] {
        let skill = loaded(source, &[]);
        assert_eq!(skill.description, "Search the web", "{source:?}");
    }
}

#[test]
fn oversized_file_is_a_skip_without_parsing() {
    let mut content = md("").into_bytes();
    content.resize(usize::try_from(MAX_SKILL_FILE_SIZE).unwrap() + 1, b'x');
    skipped(&content, &[TooLarge]);
}

#[test]
fn invalid_utf8_is_a_skip() {
    let mut content = b"---\nname: web\ndescription: ".to_vec();
    content.extend_from_slice(&[0xff, 0xfe, b'\n']);
    content.extend_from_slice(b"---\n");
    skipped(&content, &[InvalidUtf8]);
    // Deep in a long body too, and the message says where.
    let mut content = b"---\nname: web\ndescription: Browse\n---\n".to_vec();
    content.extend(std::iter::repeat_n(b'a', 4_000));
    content.extend_from_slice(&[0xe2, 0x28, 0xa1]);
    skipped(&content, &[InvalidUtf8]);
    let outcome = parse_skill_md(&content, PATH, "web");
    let message = &outcome.diagnostics[0].message;
    assert!(message.contains("from index 4038"), "{message}");
}

#[test]
fn split_frontmatter_returns_yaml_and_body() {
    assert_eq!(split_frontmatter("---\na: 1\n---\nbody\n"), Some(("a: 1", "body\n")));
    assert_eq!(split_frontmatter("---\r\na: 1\r\n---\r\nbody"), Some(("a: 1", "body")));
    assert_eq!(split_frontmatter("---\n---\n"), Some(("", "")));
    assert_eq!(split_frontmatter("---\na: 1\n---"), Some(("a: 1", "")));
    assert_eq!(split_frontmatter("no"), None);
}

#[test]
fn only_a_line_that_is_three_dashes_closes_the_frontmatter() {
    // Lines that start with dashes but say more, or dashes not at the line's start, do
    // not close it; trailing whitespace (any kind) does not count.
    let text = "---\na: |\n  ---\nb: ---\n----\n--- x\n---x\nc: 1\n--- \u{a0}\t\nbody\n---\n";
    let (yaml, body) = split_frontmatter(text).unwrap();
    assert_eq!(yaml, "a: |\n  ---\nb: ---\n----\n--- x\n---x\nc: 1");
    assert_eq!(body, "body\n---\n");
    // Never closed: candidates to the very end, with and without a last line break.
    assert_eq!(split_frontmatter("---\na: 1\n----\n--- x"), None);
    assert_eq!(split_frontmatter("---\na: 1\n----\n"), None);
    assert_eq!(split_frontmatter("---\n"), None);
    // The closing line right after the opening one, then text that looks like another.
    assert_eq!(split_frontmatter("---\n---\n---\n"), Some(("", "---\n")));
    assert_eq!(split_frontmatter("\u{feff}---\r\n---\r\n"), Some(("", "")));
}

#[test]
fn diagnostics_display_as_path_kind_message() {
    let outcome = parse_skill_md(b"# nothing", PATH, "web");
    let line = outcome.diagnostics[0].to_string();
    assert!(line.starts_with("/skills/web/SKILL.md: no-frontmatter: "), "{line}");
}

#[test]
fn frontmatter_json_resolves_scalars_as_yaml_does() {
    use serde_json::json;
    let md = "---\nname: pdf\ndescription: Read PDFs\nversion: 1.10\nquoted: \"1.10\"\nbeta: True\nnot-bool: 'true'\n\
              count: -12\nmask: 0x1F\nmode: 0o17\nhuge: 123456789012345678901234567890\nforever: .inf\nnothing: ~\n\
              allowed-tools: [read_file, grep]\nmetadata:\n  owner: team\n  level: 3\n---\n# Body\n";
    let fields = frontmatter_json(md.as_bytes()).expect("a mapping");
    let expected = json!({
        "name": "pdf", "description": "Read PDFs", "version": 1.1, "quoted": "1.10", "beta": true,
        "not-bool": "true", "count": -12, "mask": 31, "mode": 15,
        "huge": "123456789012345678901234567890", "forever": ".inf", "nothing": null,
        "allowed-tools": ["read_file", "grep"], "metadata": { "owner": "team", "level": 3 }
    });
    assert_eq!(serde_json::Value::Object(fields), expected);
}

#[test]
fn frontmatter_json_refuses_what_is_not_a_mapping() {
    assert_eq!(frontmatter_json(b"# no frontmatter\n"), None);
    assert_eq!(frontmatter_json(b"---\n- a\n- b\n---\n"), None);
    assert_eq!(frontmatter_json(b"---\nname: [unclosed\n---\n"), None);
    assert_eq!(frontmatter_json(b"---\nname: \xff\n---\n"), None);
}

#[test]
fn names_that_could_break_a_prompt_are_skips() {
    for name in [
        "\"x</skill_load_warnings>\"",
        "\"two\\nlines\"",
        "\"tick`\"",
        "\"rtl\\u202eevil\"",
        "\"a<b\"",
    ] {
        let md = format!("---\nname: {name}\ndescription: d\n---\n");
        let outcome = parse_in("x", &md);
        assert!(outcome.skill.is_none(), "{name} loaded");
        assert_eq!(kinds(&outcome), [DiagnosticKind::UnsafeName], "{name}");
    }
    // Off-specification but printable names still load, with a warning.
    let outcome = parse_in("Web_Research", "---\nname: Web_Research\ndescription: d\n---\n");
    assert_eq!(kinds(&outcome), [DiagnosticKind::InvalidName]);
    assert_eq!(outcome.skill.unwrap().name, "Web_Research");
}

// The common authoring mistakes, read line by line.
#[path = "parse_recovery_tests.rs"]
mod recovery;

//! The validator and parser cases of the Agent Skills specification's reference library
//! (`skills-ref` in agentskills/agentskills, `tests/test_validator.py` and
//! `tests/test_parser.py`), each run through our parser and judged by `--profile spec`:
//! what the reference accepts passes, what it refuses fails (or is skipped), with the
//! diagnostic that says why. Where we deliberately differ, the case says so.

#![allow(clippy::unwrap_used)]

use skills_core::{DiagnosticKind, Severity, ValidationProfile, parse_skill_md};

/// What the reference library makes of a case.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Reference {
    /// Valid: no error.
    Valid,
    /// Invalid, with our diagnostic for the reason.
    Invalid(DiagnosticKind),
}

/// Parses `md` as the skill file of folder `dir` and judges it as `--profile spec` does.
fn check(dir: &str, md: &str, expected: Reference) {
    let outcome = parse_skill_md(md.as_bytes(), &format!("/s/{dir}/SKILL.md"), dir);
    let mut diagnostics = outcome.diagnostics.clone();
    if let Some(skill) = &outcome.skill {
        diagnostics.extend(ValidationProfile::Spec.check(skill));
    }
    let failed: Vec<DiagnosticKind> = diagnostics
        .iter()
        .filter(|d| ValidationProfile::Spec.fails(d))
        .map(|d| d.kind)
        .collect();
    match expected {
        Reference::Valid => assert!(failed.is_empty(), "{dir}: {md:?} should pass, failed {failed:?}"),
        Reference::Invalid(kind) => assert!(
            failed.contains(&kind),
            "{dir}: {md:?} should fail with {kind:?}, got {diagnostics:?}"
        ),
    }
}

fn skill(name: &str, more: &str) -> String {
    format!("---\nname: {name}\ndescription: A test skill\n{more}---\nBody\n")
}

#[test]
fn validator_cases_of_the_reference_library() {
    use DiagnosticKind::*;
    use Reference::*;
    let long_name = "a".repeat(70);
    let long_description = format!("---\nname: my-skill\ndescription: {}\n---\nBody\n", "x".repeat(1100));
    for (dir, md, expected) in [
        ("my-skill", skill("my-skill", ""), Valid),
        ("MySkill", skill("MySkill", ""), Invalid(InvalidName)),
        (long_name.as_str(), skill(&long_name, ""), Invalid(InvalidName)),
        ("-my-skill", skill("-my-skill", ""), Invalid(InvalidName)),
        ("my--skill", skill("my--skill", ""), Invalid(InvalidName)),
        ("my_skill", skill("my_skill", ""), Invalid(InvalidName)),
        ("wrong-name", skill("correct-name", ""), Invalid(NameMismatch)),
        (
            "my-skill",
            skill("my-skill", "unknown_field: should not be here\n"),
            Invalid(UnknownField),
        ),
        (
            "my-skill",
            skill("my-skill", "license: MIT\nmetadata:\n  author: Test\n"),
            Valid,
        ),
        (
            "my-skill",
            skill("my-skill", "allowed-tools: Bash(jq:*) Bash(git:*)\n"),
            Valid,
        ),
        (
            "my-skill",
            skill("my-skill", "allowed-tools: [Read, Write, Edit, Bash]\n"),
            Valid,
        ),
        (
            "my-skill",
            skill("my-skill", "allowed-tools:\n  - Read\n  - Bash\n  - Grep\n"),
            Valid,
        ),
        ("技能", skill("技能", ""), Valid),
        ("мой-навык", skill("мой-навык", ""), Valid),
        ("навык", skill("навык", ""), Valid),
        ("НАВЫК", skill("НАВЫК", ""), Invalid(InvalidName)),
        ("my-skill", long_description, Invalid(DescriptionTruncated)),
        (
            "my-skill",
            skill("my-skill", "compatibility: Requires Python 3.11+\n"),
            Valid,
        ),
        (
            "my-skill",
            skill("my-skill", &format!("compatibility: {}\n", "x".repeat(550))),
            Invalid(CompatibilityTruncated),
        ),
        // NFKC: a decomposed name in a folder named with the composed form.
        ("caf\u{e9}", skill("cafe\u{301}", ""), Valid),
    ] {
        check(dir, &md, expected);
    }
}

#[test]
fn allowed_tools_of_the_wrong_type_are_refused_by_the_spec_profile() {
    use DiagnosticKind::*;
    // The reference: "list items must all be strings", "must be either a string or a
    // list of strings". We read what can be read and say what was dropped.
    check(
        "my-skill",
        &skill("my-skill", "allowed-tools:\n  - Read\n  - 123\n"),
        Reference::Invalid(AllowedToolsEntryDropped),
    );
    check(
        "my-skill",
        &skill("my-skill", "allowed-tools: 123\n"),
        Reference::Invalid(AllowedToolsIgnored),
    );
}

#[test]
fn parser_cases_of_the_reference_library() {
    use DiagnosticKind::*;
    let skipped = |md: &str, kind: DiagnosticKind| {
        let outcome = parse_skill_md(md.as_bytes(), "/s/my-skill/SKILL.md", "my-skill");
        assert!(outcome.skill.is_none(), "{md:?} loaded");
        let kinds: Vec<_> = outcome.diagnostics.iter().map(|d| d.kind).collect();
        assert!(kinds.contains(&kind), "{md:?}: {kinds:?}");
        assert!(outcome.diagnostics.iter().any(|d| d.severity() == Severity::Skip));
    };
    skipped("# No frontmatter here", NoFrontmatter);
    skipped("---\nname: my-skill\ndescription: A test skill\n", NoFrontmatter);
    skipped(
        "---\nname: [invalid\ndescription: broken\n---\nBody here\n",
        InvalidYaml,
    );
    skipped("---\n- just\n- a\n- list\n---\nBody\n", FrontmatterNotMapping);
    skipped("---\ndescription: A test skill\n---\nBody\n", MissingName);
    skipped("---\nname: my-skill\n---\nBody\n", MissingDescription);

    let md = "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test Author\n  version: 1.0\nallowed-tools: [Read, Write, Bash]\n---\n# My Skill\n";
    let skill = parse_skill_md(md.as_bytes(), "/s/my-skill/SKILL.md", "my-skill")
        .skill
        .unwrap();
    assert_eq!(skill.license.as_deref(), Some("MIT"));
    assert_eq!(skill.metadata.get("author").map(String::as_str), Some("Test Author"));
    // The reference reads `1.0` as the float 1.0 and shows it as "1.0"; we keep the text.
    assert_eq!(skill.metadata.get("version").map(String::as_str), Some("1.0"));
    assert_eq!(skill.allowed_tools, ["Read", "Write", "Bash"]);
}

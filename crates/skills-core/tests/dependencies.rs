//! `dependencies` and `required-tools` in every published form, and the unknown shapes
//! real skills write (reported, never a skip).

use skills_core::extensions::agent_yaml_dependencies;
use skills_core::{DiagnosticKind, SkillMetadata, parse_skill_md};

fn parse(frontmatter: &str) -> (SkillMetadata, Vec<String>) {
    let md = format!("---\nname: s\ndescription: d\n{frontmatter}\n---\nbody\n");
    let outcome = parse_skill_md(md.as_bytes(), "/lib/s/SKILL.md", "s");
    let warnings = outcome
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::FieldIgnored)
        .map(|d| d.message.clone())
        .collect();
    (outcome.skill.expect("the skill loads"), warnings)
}

#[test]
fn the_full_form_reads_all_any_and_skills() {
    let (skill, warnings) = parse(
        "dependencies:\n  tools:\n    all: [github_create_pr, Bash(git:*)]\n    any: [Read, cat]\n  skills: [review, lint]",
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let deps = &skill.extensions().unwrap().dependencies;
    assert_eq!(deps.tools.all, ["github_create_pr", "Bash(git:*)"]);
    assert_eq!(deps.tools.any, ["Read", "cat"]);
    assert_eq!(skill.required_skills(), ["review", "lint"]);
    // `Bash(git:*)` needs the tool `Bash`.
    let all = |t: &str| ["github_create_pr", "Bash", "cat"].contains(&t);
    assert!(skill.missing_tools(all).is_none());
    let missing = skill.missing_tools(|t| t == "Bash" || t == "Read").unwrap();
    assert_eq!(missing.all, ["github_create_pr"]);
    assert!(missing.any.is_empty());
    let missing = skill.missing_tools(|t| t == "github_create_pr" || t == "Bash").unwrap();
    assert_eq!(missing.any, ["Read", "cat"], "none of `any` available");
    assert_eq!(missing.to_string(), "one of Read, cat");
}

#[test]
fn tools_as_a_list_mean_all_and_required_tools_adds_to_them() {
    let (skill, warnings) = parse("required-tools: Bash Edit\ndependencies:\n  tools: [Write]");
    assert!(warnings.is_empty(), "{warnings:?}");
    let missing = skill.missing_tools(|_| false).unwrap();
    assert_eq!(missing.all, ["Bash", "Edit", "Write"]);
    assert_eq!(missing.to_string(), "Bash, Edit, Write");
    let (skill, _) = parse("required-tools:\n  - Bash\n  - Bash");
    assert_eq!(
        skill.missing_tools(|_| false).unwrap().all,
        ["Bash"],
        "named twice, missing once"
    );
}

#[test]
fn a_list_or_a_string_names_skills() {
    let (skill, warnings) = parse("dependencies: [version-manager, project-manager]");
    assert!(warnings.is_empty());
    assert_eq!(skill.required_skills(), ["version-manager", "project-manager"]);
    let (skill, _) = parse("dependencies: version-manager, dev-pipeline");
    assert_eq!(skill.required_skills(), ["version-manager", "dev-pipeline"]);
    assert!(skill.missing_tools(|_| false).is_none(), "skills are not tools");
    let (skill, warnings) = parse("dependencies: []");
    assert!(warnings.is_empty());
    assert!(skill.required_skills().is_empty());
}

#[test]
fn shapes_that_are_not_dependencies_are_warnings_not_skips() {
    // Package lists, as real skills write them.
    let (skill, warnings) = parse("dependencies:\n  - sentence-transformers>=2.2.2\n  - numpy\n  - yt-dlp (video)");
    assert_eq!(skill.required_skills(), ["numpy"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`sentence-transformers>=2.2.2`"),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains("`yt-dlp (video)`"), "{}", warnings[0]);
    // A mapping of something else.
    let (skill, warnings) = parse("dependencies:\n  python: \">=3.10\"\n  python-packages: [rdkit]");
    assert!(skill.required_skills().is_empty());
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("`dependencies.python`"));
    // A list of mappings that are not MCP entries.
    let (_, warnings) = parse("dependencies:\n  tools:\n    - Tool: shopify_graphql\n  skills: 3");
    assert!(
        warnings.iter().any(|w| w.contains("without `type: mcp`")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("dependencies.skills")),
        "{warnings:?}"
    );
    let (_, warnings) = parse("required-tools: {a: b}");
    assert!(warnings[0].contains("required-tools"));
}

#[test]
fn mcp_entries_in_the_frontmatter_are_servers() {
    let (skill, warnings) = parse("dependencies:\n  tools:\n    - type: mcp\n      value: github\n    - gh");
    assert!(warnings.is_empty(), "{warnings:?}");
    let deps = &skill.extensions().unwrap().dependencies;
    assert_eq!(deps.mcp_servers[0].name, "github");
    assert_eq!(deps.tools.all, ["gh"]);
}

#[test]
fn dependencies_round_trip_through_json_and_count_as_declared_keys() {
    let (skill, _) = parse("required-tools: Bash\ndependencies:\n  tools:\n    any: [a, b]\n  skills: [x]");
    let json = serde_json::to_value(&skill).unwrap();
    assert_eq!(
        json["extensions"]["dependencies"]["tools"]["any"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(json["extensions"]["required_tools"], serde_json::json!(["Bash"]));
    let back: SkillMetadata = serde_json::from_value(json).unwrap();
    assert_eq!(back, skill);
    let keys = skill.extensions().unwrap().declared_keys();
    assert!(keys.contains(&"dependencies") && keys.contains(&"required-tools"));
    assert!(skill.extra.is_empty(), "no longer an unknown field");
}

#[test]
fn codex_agent_yaml_gives_mcp_servers() {
    let yaml = b"interface:\n  display_name: \"Bitrix\"\ndependencies:\n  tools:\n    - type: \"mcp\"\n      \
        value: \"bitrix24-docs\"\n      description: \"Docs server\"\n      transport: \"streamable_http\"\n      \
        url: \"https://example.invalid/mcp\"\n    - type: cli\n      value: x\npolicy:\n  allow_implicit_invocation: true\n";
    let (servers, problems) = agent_yaml_dependencies(yaml);
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].name, "bitrix24-docs");
    assert_eq!(servers[0].description.as_deref(), Some("Docs server"));
    assert_eq!(servers[0].url.as_deref(), Some("https://example.invalid/mcp"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("`cli`"));
    assert_eq!(
        agent_yaml_dependencies(b"dependencies:\n  tools: []\n"),
        (vec![], vec![])
    );
    assert!(agent_yaml_dependencies(b"\xff").1[0].contains("UTF-8"));
    assert!(agent_yaml_dependencies(b"a: [").1[0].contains("not valid YAML"));
}

#[test]
fn a_skill_naming_itself_is_a_package_list_not_a_cycle() {
    // `s` is the skill's own name in `parse`.
    let (skill, warnings) = parse("dependencies: [s, other-skill]");
    assert_eq!(skill.required_skills(), ["other-skill"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("names the skill itself (`s`)"), "{}", warnings[0]);
}

//! `skills info NAME`: one skill in full: its fields, its source, the copies it hides,
//! its files and its warnings.

use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use skills_runtime::{Diagnostic, HookAction, McpServerDependency, MissingTools, ResourceKind, SkillMetadata};

use super::{ShadowedJson, SkillJson, print_json, shadowed_of};
use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};

#[derive(Serialize)]
struct InfoJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    source_location: &'a str,
    shadowed: Vec<ShadowedJson<'a>>,
    files: Vec<FileJson>,
    diagnostics: Vec<&'a Diagnostic>,
    dependencies: DependenciesJson,
}

/// What a skill needs, and what of it the catalog has.
#[derive(Serialize)]
struct DependenciesJson {
    /// Every tool it needs (`required-tools`, `dependencies.tools.all`), and those of
    /// which one is enough.
    tools: MissingTools,
    /// With `--available-tools`: what an agent with those tools lacks (empty: it can run
    /// the skill); without, not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    missing_tools: Option<MissingTools>,
    /// Each skill it depends on and whether a source has it.
    skills: Vec<SkillDependencyJson>,
    /// The MCP servers it uses (frontmatter and agents/openai.yaml).
    mcp_servers: Vec<McpServerDependency>,
    /// What could not be read of agents/openai.yaml.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<String>,
}

#[derive(Serialize)]
struct SkillDependencyJson {
    name: String,
    found: bool,
}

#[derive(Serialize)]
struct FileJson {
    path: String,
    size: u64,
}

pub async fn info(
    name: &str,
    specs: &SourceArgs,
    json: bool,
    available_tools: Option<&[String]>,
) -> anyhow::Result<ExitCode> {
    let library = library::catalog(specs, Need::Inventory, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    let (Some(skill), Some(source)) = (snapshot.get(name), snapshot.source_for(name)) else {
        let names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
        show_err!(
            "error: no skill named '{name}'; available: {}",
            skills_runtime::available_names(name, &names)
        );
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    };
    let dir = skill.dir();
    let walk = source
        .backend()
        .walk(dir, 16)
        .await
        .with_context(|| format!("listing {dir}"))?;
    let files: Vec<FileJson> = walk
        .entries
        .iter()
        .filter(|e| !e.is_dir)
        .map(|e| FileJson {
            path: e.path[dir.len()..].trim_start_matches('/').to_owned(),
            size: e.size,
        })
        .collect();
    let diagnostics: Vec<&Diagnostic> = snapshot.diagnostics().iter().filter(|d| d.path == skill.path).collect();
    let shadowed = shadowed_of(&snapshot, name);
    let (mcp_servers, problems) = skills_runtime::mcp_server_dependencies(&snapshot, name).await;
    let dependencies = DependenciesJson {
        tools: skill.missing_tools(|_| false).unwrap_or_default(),
        missing_tools: available_tools.map(|tools| {
            skill
                .missing_tools(|tool| tools.iter().any(|t| t.trim() == tool))
                .unwrap_or_default()
        }),
        skills: skill
            .required_skills()
            .iter()
            .map(|d| SkillDependencyJson {
                name: d.clone(),
                found: snapshot.get(d).is_some(),
            })
            .collect(),
        mcp_servers,
        problems,
    };
    if json {
        return print_json(&InfoJson {
            skill: SkillJson::new(skill, source.label()),
            source_location: source.location(),
            shadowed,
            files,
            diagnostics,
            dependencies,
        })
        .map(|()| ExitCode::from(library.exit(EXIT_OK)));
    }
    show!("name:          {}", skill.name);
    show!("description:   {}", skill.description);
    show!("source:        {} ({})", source.label(), source.location());
    show!("path:          {}", skill.path);
    if let Some(license) = &skill.license {
        show!("license:       {license}");
    }
    if let Some(compatibility) = &skill.compatibility {
        show!("compatibility: {compatibility}");
    }
    if !skill.allowed_tools.is_empty() {
        show!("allowed-tools: {}", skill.allowed_tools.join(", "));
    }
    print_extensions(skill);
    print_dependencies(&dependencies);
    if !skill.metadata.is_empty() {
        show!("metadata:");
        for (key, value) in &skill.metadata {
            show!("  {key}: {value}");
        }
    }
    for hidden in &shadowed {
        show!("shadows:       {} ({})", hidden.path, hidden.source);
    }
    let resources = snapshot.resources_of(name).unwrap_or_default();
    if !resources.is_empty() {
        show!("resources:");
        for kind in [
            ResourceKind::Script,
            ResourceKind::Reference,
            ResourceKind::Asset,
            ResourceKind::Other,
        ] {
            let of_kind: Vec<&str> = resources
                .iter()
                .filter(|r| r.kind == kind)
                .map(|r| r.path[dir.len()..].trim_start_matches('/'))
                .collect();
            if !of_kind.is_empty() {
                show!("  {:<10} {}", format!("{}:", kind.as_str()), of_kind.join(", "));
            }
        }
    }
    show!("files:");
    for file in &files {
        show!("  {} ({} bytes)", file.path, file.size);
    }
    for d in diagnostics {
        show!("warning:       {}: {}", d.kind, d.message);
    }
    Ok(ExitCode::from(library.finish(EXIT_OK)))
}

/// The invocation fields, tool rules and hooks a skill declares, one line each.
fn print_extensions(skill: &SkillMetadata) {
    let flags = super::flags(skill);
    if !flags.is_empty() {
        show!("flags:         {}", flags.join(", "));
    }
    let Some(ext) = skill.extensions() else { return };
    let fields = [
        ("argument-hint", ext.argument_hint.as_deref()),
        ("model", ext.model.as_deref()),
        ("effort", ext.effort.as_deref()),
        ("agent", ext.agent.as_deref()),
        ("when_to_use", ext.when_to_use.as_deref()),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            show!("{:<15}{value}", format!("{key}:"));
        }
    }
    if !ext.disallowed_tools.is_empty() {
        show!("disallowed-tools: {}", ext.disallowed_tools.join(", "));
    }
    if !ext.paths.is_empty() {
        show!("paths:         {}", ext.paths.join(", "));
    }
    if !ext.hooks.is_empty() {
        show!("hooks (nothing here runs them; an agent hands command hooks to its hook runner):");
        for hook in &ext.hooks {
            let matcher = hook.matcher.as_deref().unwrap_or("*");
            let once = if hook.once { " (once)" } else { "" };
            let action = match &hook.action {
                HookAction::Command { command, .. } => format!("command: {command}"),
                HookAction::Prompt { prompt } => format!("prompt: {prompt}"),
            };
            show!("  {} [{matcher}]{once} {action}", hook.event.as_str());
        }
    }
}

/// The dependency lines of `skills info`.
fn print_dependencies(deps: &DependenciesJson) {
    if !deps.tools.is_empty() {
        let checked = match &deps.missing_tools {
            None => "checked by the agent host".to_owned(),
            Some(missing) if missing.is_empty() => "all available".to_owned(),
            Some(missing) => format!("missing: {missing}"),
        };
        show!("needs tools:   {} ({checked})", deps.tools);
    }
    if !deps.skills.is_empty() {
        let skills: Vec<String> = deps
            .skills
            .iter()
            .map(|d| format!("{} ({})", d.name, if d.found { "found" } else { "missing" }))
            .collect();
        show!("depends on:    {}", skills.join(", "));
    }
    if !deps.mcp_servers.is_empty() {
        let servers: Vec<String> = deps
            .mcp_servers
            .iter()
            .map(|s| match &s.transport {
                Some(transport) => format!("{} ({transport})", s.name),
                None => s.name.clone(),
            })
            .collect();
        show!("mcp servers:   {}", servers.join(", "));
    }
    for problem in &deps.problems {
        show!("warning:       {problem}");
    }
}

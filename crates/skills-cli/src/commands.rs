//! The subcommands.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;
use skills_backend_fs::FilesystemBackend;
use skills_core::{
    BackendProtocol, Diagnostic, DiagnosticKind, MergedSkill, SKILL_FILE, Severity, SkillMetadata, list_skills,
    merge_last_wins, parse_skill_md, path,
};

use crate::cli::{Cli, Command, EXIT_OK, EXIT_SOURCE_ERROR, EXIT_VALIDATION, SourceArgs};
use crate::output::{print_diagnostics, shorten, table};
use crate::progress::Progress;
use crate::source::{Source, list_source, open_source, open_sources};

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { sources, json } => list(&sources, json).await,
        Command::Info { name, sources, json } => info(&name, &sources, json).await,
        Command::Validate { paths, json } => validate(&paths, json).await,
        Command::Watch { sources, json } => crate::watch::watch(&sources, json).await,
        Command::Prompt { sources, loaded, json } => crate::agent::prompt(&sources, &loaded, json).await,
        Command::Load { name, sources, json } => crate::agent::load(&sources, &name, json).await,
        Command::New { name, dir, description } => crate::agent::new_skill(&name, &dir, description.as_deref()),
        Command::Serve { sources, http } => {
            let transport = match http {
                None => crate::mcp::Transport::Stdio,
                Some(addr) => crate::mcp::Transport::Http(parse_http_addr(&addr)?),
            };
            crate::mcp::serve(&sources, transport).await
        }
    }
}

/// `PORT` (on 127.0.0.1) or `HOST:PORT`.
fn parse_http_addr(text: &str) -> anyhow::Result<std::net::SocketAddr> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let text = text
        .strip_prefix("localhost:")
        .map_or_else(|| text.to_owned(), |port| format!("127.0.0.1:{port}"));
    text.parse()
        .with_context(|| format!("--http wants PORT or HOST:PORT (such as 127.0.0.1:8765), not {text:?}"))
}

/// The merged skills of all sources.
struct Catalog {
    sources: Vec<Source>,
    skills: Vec<MergedSkill>,
    diagnostics: Vec<Diagnostic>,
}

async fn discover(specs: &SourceArgs, json: bool) -> anyhow::Result<Catalog> {
    let _progress = Progress::start(json, "reading skill sources");
    let sources = open_sources(specs)?;
    let mut per_source = Vec::with_capacity(sources.len());
    let mut diagnostics = Vec::new();
    for source in &sources {
        let listing = list_source(source).await?;
        diagnostics.extend(listing.diagnostics);
        per_source.push(listing.skills);
    }
    Ok(Catalog {
        skills: merge_last_wins(per_source),
        sources,
        diagnostics,
    })
}

/// A skill as `--json` prints it: the `SkillMetadata` fields plus its source's label.
#[derive(Serialize)]
struct SkillJson<'a> {
    name: &'a str,
    description: &'a str,
    path: &'a str,
    license: Option<&'a str>,
    compatibility: Option<&'a str>,
    metadata: &'a BTreeMap<String, String>,
    allowed_tools: &'a [String],
    source: &'a str,
}

impl<'a> SkillJson<'a> {
    fn new(skill: &'a SkillMetadata, source: &'a Source) -> Self {
        Self {
            name: &skill.name,
            description: &skill.description,
            path: &skill.path,
            license: skill.license.as_deref(),
            compatibility: skill.compatibility.as_deref(),
            metadata: &skill.metadata,
            allowed_tools: &skill.allowed_tools,
            source: &source.label,
        }
    }
}

/// Writes `value` as pretty JSON to stdout, streamed: a large catalog is never held as
/// one string.
fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

async fn list(specs: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let catalog = discover(specs, json).await?;
    print_diagnostics(&catalog.diagnostics);
    if json {
        let skills: Vec<_> = catalog
            .skills
            .iter()
            .map(|m| ListJson {
                skill: SkillJson::new(&m.skill, &catalog.sources[m.source]),
                shadowed: shadowed_of(&catalog, m),
            })
            .collect();
        print_json(&skills)?;
    } else if catalog.skills.is_empty() {
        let searched: Vec<_> = catalog.sources.iter().map(|s| s.location.as_str()).collect();
        eprintln!("no skills found in: {}", searched.join(", "));
    } else {
        let rows: Vec<_> = catalog
            .skills
            .iter()
            .map(|m| {
                let mut source = catalog.sources[m.source].label.clone();
                if !m.shadowed.is_empty() {
                    let hidden: Vec<_> = shadowed_of(&catalog, m).iter().map(|s| s.source).collect();
                    source = format!("{source} (hides {})", hidden.join(", "));
                }
                vec![m.skill.name.clone(), shorten(&m.skill.description, 60), source]
            })
            .collect();
        print!("{}", table(&["NAME", "DESCRIPTION", "SOURCE"], &rows));
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// A skill as `list --json` prints it: with the copies it hides.
#[derive(Serialize)]
struct ListJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    shadowed: Vec<ShadowedJson<'a>>,
}

/// The copies a merged skill hides, earliest source first.
fn shadowed_of<'a>(catalog: &'a Catalog, merged: &'a MergedSkill) -> Vec<ShadowedJson<'a>> {
    merged
        .shadowed
        .iter()
        .map(|s| ShadowedJson {
            source: &catalog.sources[s.source].label,
            path: &s.path,
        })
        .collect()
}

#[derive(Serialize)]
struct InfoJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    source_location: &'a str,
    shadowed: Vec<ShadowedJson<'a>>,
    files: Vec<FileJson>,
    diagnostics: Vec<&'a Diagnostic>,
}

#[derive(Serialize)]
struct ShadowedJson<'a> {
    source: &'a str,
    path: &'a str,
}

#[derive(Serialize)]
struct FileJson {
    path: String,
    size: u64,
}

async fn info(name: &str, specs: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let catalog = discover(specs, json).await?;
    let Some(merged) = catalog.skills.iter().find(|m| m.skill.name == name) else {
        let available: Vec<_> = catalog.skills.iter().map(|m| m.skill.name.as_str()).collect();
        eprintln!("error: no skill named '{name}'; available: {}", available.join(", "));
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    };
    let skill = &merged.skill;
    let source = &catalog.sources[merged.source];
    let dir = skill.dir();
    let walk = source
        .backend
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
    let diagnostics: Vec<&Diagnostic> = catalog.diagnostics.iter().filter(|d| d.path == skill.path).collect();
    let shadowed = shadowed_of(&catalog, merged);
    if json {
        return print_json(&InfoJson {
            skill: SkillJson::new(skill, source),
            source_location: &source.location,
            shadowed,
            files,
            diagnostics,
        })
        .map(|()| ExitCode::from(EXIT_OK));
    }
    println!("name:          {}", skill.name);
    println!("description:   {}", skill.description);
    println!("source:        {} ({})", source.label, source.location);
    println!("path:          {}", skill.path);
    if let Some(license) = &skill.license {
        println!("license:       {license}");
    }
    if let Some(compatibility) = &skill.compatibility {
        println!("compatibility: {compatibility}");
    }
    if !skill.allowed_tools.is_empty() {
        println!("allowed-tools: {}", skill.allowed_tools.join(", "));
    }
    if !skill.metadata.is_empty() {
        println!("metadata:");
        for (key, value) in &skill.metadata {
            println!("  {key}: {value}");
        }
    }
    for hidden in &shadowed {
        println!("shadows:       {} ({})", hidden.path, hidden.source);
    }
    println!("files:");
    for file in &files {
        println!("  {} ({} bytes)", file.path, file.size);
    }
    for d in diagnostics {
        println!("warning:       {}: {}", d.kind, d.message);
    }
    Ok(ExitCode::from(EXIT_OK))
}

#[derive(Serialize)]
struct ValidateJson<'a> {
    ok: bool,
    skills: Vec<ValidSkillJson<'a>>,
    diagnostics: &'a [Diagnostic],
}

#[derive(Serialize)]
struct ValidSkillJson<'a> {
    name: &'a str,
    path: &'a str,
}

async fn validate(targets: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let mut skills = Vec::new();
    let mut diagnostics = Vec::new();
    for given in targets {
        let before = (skills.len(), diagnostics.len());
        if given.contains("://") {
            let _progress = Progress::start(json, "reading the source");
            let listing = list_source(&open_source(given)?).await?;
            skills.extend(listing.skills);
            diagnostics.extend(listing.diagnostics);
        } else {
            validate_path(Path::new(given), &mut skills, &mut diagnostics).await?;
        }
        if (skills.len(), diagnostics.len()) == before {
            let msg = "no skill folders found (a skill folder holds SKILL.md)";
            diagnostics.push(Diagnostic::new(given.clone(), DiagnosticKind::NoSkills, msg));
        }
    }
    let skipped: std::collections::BTreeSet<&str> = diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Skip)
        .map(|d| d.path.as_str())
        .collect();
    let errors = diagnostics.iter().filter(|d| d.severity() == Severity::Error).count();
    let ok = skipped.is_empty() && errors == 0;
    if json {
        print_json(&ValidateJson {
            ok,
            skills: skills
                .iter()
                .map(|s: &SkillMetadata| ValidSkillJson {
                    name: &s.name,
                    path: &s.path,
                })
                .collect(),
            diagnostics: &diagnostics,
        })?;
    } else {
        for d in &diagnostics {
            println!("{d}");
        }
        let warnings = diagnostics.iter().filter(|d| d.severity() == Severity::Warning).count();
        let errors = if errors > 0 {
            format!(", {errors} errors")
        } else {
            String::new()
        };
        eprintln!(
            "{} skills checked: {} ok, {} skipped, {warnings} warnings{errors}",
            skills.len() + skipped.len(),
            skills.len(),
            skipped.len()
        );
    }
    Ok(ExitCode::from(if ok { EXIT_OK } else { EXIT_VALIDATION }))
}

/// Checks one skill folder, a `SKILL.md`, or a source folder.
async fn validate_path(
    given: &Path,
    skills: &mut Vec<SkillMetadata>,
    diagnostics: &mut Vec<Diagnostic>,
) -> anyhow::Result<()> {
    let meta = std::fs::metadata(given).with_context(|| format!("cannot read {}", given.display()))?;
    let skill_dir = if meta.is_file() {
        if given.file_name().is_none_or(|n| n != SKILL_FILE) {
            bail!(
                "{} is a file; give a skill folder, a SKILL.md or a source folder",
                given.display()
            );
        }
        given.parent().unwrap_or(Path::new("."))
    } else if given.join(SKILL_FILE).is_file() {
        given
    } else {
        let backend = FilesystemBackend::new(given)?.with_virtual_mode(false)?;
        let listing = list_skills(&backend, backend.root_path()).await?;
        skills.extend(listing.skills);
        diagnostics.extend(listing.diagnostics);
        return Ok(());
    };
    let backend = FilesystemBackend::new(skill_dir)?.with_virtual_mode(false)?;
    let md_path = path::join(backend.root_path(), SKILL_FILE);
    let content = match backend.download_file(&md_path).await {
        Ok(content) => content,
        Err(error) => {
            diagnostics.push(Diagnostic::new(md_path, DiagnosticKind::ReadFailed, error.to_string()));
            return Ok(());
        }
    };
    let outcome = parse_skill_md(&content, &md_path, path::file_name(backend.root_path()));
    skills.extend(outcome.skill);
    diagnostics.extend(outcome.diagnostics);
    Ok(())
}

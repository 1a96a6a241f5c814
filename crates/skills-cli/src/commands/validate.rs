//! `skills validate PATH|SOURCE...`: check skill folders, `SKILL.md` files, source
//! folders and sources; exit 1 when a skill would be skipped.

use std::path::Path;
use std::process::ExitCode;

use agent_skills::fs::FilesystemBackend;
use agent_skills::{
    BackendExt, Diagnostic, DiagnosticKind, SKILL_FILE, Severity, SkillMetadata, list_skills, parse_skill_md, path,
};
use anyhow::{Context, bail};
use serde::Serialize;

use super::print_json;
use crate::cli::{EXIT_OK, EXIT_VALIDATION};
use crate::library;
use crate::progress::Progress;

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

pub async fn validate(targets: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let mut skills = Vec::new();
    let mut diagnostics = Vec::new();
    for given in targets {
        let before = (skills.len(), diagnostics.len());
        if given.contains("://") {
            let _progress = Progress::start(json, "reading the source");
            let source = library::open_source(given)?;
            let listing = list_skills(source.backend().as_ref(), source.path())
                .await
                .with_context(|| format!("source {} ({})", source.label(), source.location()))?;
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

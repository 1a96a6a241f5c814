//! `skills validate PATH|SOURCE...`: check skill folders, `SKILL.md` files, source
//! folders and sources; exit 1 when a skill would be skipped, 3 when a limit left skill
//! folders out (unless `--allow-partial`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::sources::OpenOptions;
use skills_runtime::{
    BackendExt, BackendProtocol, Diagnostic, DiagnosticKind, Discovery, DiscoveryLimits, LOWERCASE_SKILL_FILE,
    SKILL_FILE, Severity, SkillListing, SkillMetadata, ValidationProfile, is_skill_file_name, parse_skill_md, path,
    size_diagnostics,
};

use super::print_json;
use crate::cli::{DiscoveryArgs, EXIT_OK, EXIT_VALIDATION};
use crate::library;
use crate::progress::Progress;

#[derive(Serialize)]
struct ValidateJson<'a> {
    ok: bool,
    summary: Summary,
    skills: Vec<ValidSkillJson<'a>>,
    diagnostics: &'a [Diagnostic],
}

#[derive(Serialize)]
struct ValidSkillJson<'a> {
    name: &'a str,
    path: &'a str,
}

/// What `validate` counts: every skill folder it saw, and what became of each.
#[derive(Debug, Default, Serialize)]
struct Summary {
    /// Folders holding a `SKILL.md`.
    folders: usize,
    /// Skills that load.
    loaded: usize,
    /// Folders whose skill does not load.
    skipped: usize,
    /// Skills loaded from a frontmatter read line by line (a common mistake recovered).
    recovered: usize,
    /// Folders hidden by a later folder of the same source declaring the same name.
    hidden: usize,
    /// Folders a limit left out unread.
    left_out: u64,
    /// Warnings (hidden folders included).
    warnings: usize,
    /// Sources or folders that could not be read.
    errors: usize,
    /// The profile judged by (`lenient`, `spec`).
    profile: &'static str,
    /// Warnings the profile fails on (0 under `lenient`).
    violations: usize,
}

/// What all targets gave.
#[derive(Default)]
struct Checked {
    skills: Vec<SkillMetadata>,
    diagnostics: Vec<Diagnostic>,
    folders: usize,
}

impl Checked {
    fn add(&mut self, listing: SkillListing) {
        self.skills.extend(listing.skills);
        self.diagnostics.extend(listing.diagnostics);
        self.folders += listing.folders;
    }

    fn summary(&self, profile: ValidationProfile) -> Summary {
        let of = |severity| self.diagnostics.iter().filter(move |d| d.severity() == severity);
        let skipped: BTreeSet<&str> = of(Severity::Skip)
            .filter(|d| d.kind != DiagnosticKind::LimitExceeded)
            .map(|d| d.path.as_str())
            .collect();
        Summary {
            folders: self.folders,
            loaded: self.skills.len(),
            skipped: skipped.len(),
            recovered: self
                .diagnostics
                .iter()
                .filter(|d| d.kind == DiagnosticKind::Recovered)
                .map(|d| d.path.as_str())
                .collect::<BTreeSet<_>>()
                .len(),
            hidden: self
                .diagnostics
                .iter()
                .filter(|d| d.kind == DiagnosticKind::DuplicateName)
                .count(),
            left_out: self
                .diagnostics
                .iter()
                .filter_map(|d| d.cut)
                .filter(|cut| cut.limit != skills_runtime::Limit::MaxDirEntries)
                .map(|cut| cut.left_out)
                .sum(),
            warnings: of(Severity::Warning).count(),
            errors: of(Severity::Error).count(),
            profile: profile.as_str(),
            violations: of(Severity::Warning).filter(|d| profile.fails(d)).count(),
        }
    }
}

pub async fn validate(
    targets: &[String],
    json: bool,
    strict: bool,
    profile: ValidationProfile,
    limit_args: DiscoveryArgs,
) -> anyhow::Result<ExitCode> {
    let (limits, options) = library::discovery_of(&limit_args)?;
    let mut checked = Checked::default();
    for given in targets {
        let before = (checked.skills.len(), checked.diagnostics.len());
        if given.contains("://") {
            let _progress = Progress::start(json, "reading the source");
            let source = library::open_with(given, &options)?;
            let listing = discover(source.backend().as_ref(), source.path(), limits, source.depth().max(1))
                .await
                .with_context(|| format!("source {} ({})", source.label(), source.location()))?;
            checked.add(listing);
        } else {
            validate_path(Path::new(given), limits, &options, &mut checked).await?;
        }
        if (checked.skills.len(), checked.diagnostics.len()) == before {
            let msg = "no skill folders found (a skill folder holds SKILL.md)";
            checked
                .diagnostics
                .push(Diagnostic::new(given.clone(), DiagnosticKind::NoSkills, msg));
        }
    }
    let found: Vec<Diagnostic> = checked.skills.iter().flat_map(|s| profile.check(s)).collect();
    checked.diagnostics.extend(found);
    // Dependencies among everything checked: a skill may depend on one in another target.
    checked
        .diagnostics
        .extend(skills_runtime::dependency_problems(&checked.skills));
    checked.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    let summary = checked.summary(profile);
    let mut cut = false;
    for line in checked.diagnostics.iter().filter_map(crate::output::cut_line) {
        show_err!("{line}");
        cut = true;
    }
    // Under --strict a recovered mistake fails validation: the file is wrong even though
    // it loads.
    let valid =
        summary.skipped == 0 && summary.errors == 0 && summary.violations == 0 && !(strict && summary.recovered > 0);
    let code = library::exit_code(
        if valid { EXIT_OK } else { EXIT_VALIDATION },
        cut,
        limit_args.allow_partial,
    );
    if json {
        print_json(&ValidateJson {
            ok: code == EXIT_OK,
            skills: checked
                .skills
                .iter()
                .map(|s| ValidSkillJson {
                    name: &s.name,
                    path: &s.path,
                })
                .collect(),
            diagnostics: &checked.diagnostics,
            summary,
        })?;
    } else {
        for d in &checked.diagnostics {
            show!("{d}");
        }
        show_err!("{}", summary_line(&summary));
    }
    Ok(ExitCode::from(code))
}

/// `N skill folders seen: L loaded, S skipped, R recovered, H hidden, W warnings` (and what limits
/// left out, and errors, when there are any).
fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} skill folders seen: {} loaded, {} skipped, {} recovered, {} hidden",
        s.folders, s.loaded, s.skipped, s.recovered, s.hidden
    );
    if s.left_out > 0 {
        line.push_str(&format!(", {} left out by limits", s.left_out));
    }
    line.push_str(&format!(", {} warnings", s.warnings));
    if s.violations > 0 {
        line.push_str(&format!(" ({} fail the {} profile)", s.violations, s.profile));
    }
    if s.errors > 0 {
        line.push_str(&format!(", {} errors", s.errors));
    }
    line
}

/// Discovers a source, with an `over-spec-limits` warning on every skill whose folder
/// goes beyond what the MCP skills extension lets a skill hold.
async fn discover(
    backend: &dyn BackendProtocol,
    source: &str,
    limits: DiscoveryLimits,
    depth: usize,
) -> Result<SkillListing, skills_runtime::SourceError> {
    let mut listing = Discovery::new(backend, source)
        .limits(limits)
        .depth(depth)
        .run()
        .await?;
    let over = size_diagnostics(backend, source, depth, &listing.skills).await;
    listing.diagnostics.extend(over);
    Ok(listing)
}

/// Checks one skill folder, a `SKILL.md`, or a source folder.
async fn validate_path(
    given: &Path,
    limits: DiscoveryLimits,
    options: &OpenOptions,
    checked: &mut Checked,
) -> anyhow::Result<()> {
    let meta = std::fs::metadata(given).with_context(|| format!("cannot read {}", given.display()))?;
    // A folder's skill file is its SKILL.md, or (without one) its lowercase skill.md.
    let skill_file_in = |dir: &Path| {
        [SKILL_FILE, LOWERCASE_SKILL_FILE]
            .into_iter()
            .find(|name| dir.join(name).is_file())
    };
    let (skill_dir, file_name) = if meta.is_file() {
        let Some(name) = given
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| is_skill_file_name(n))
        else {
            bail!(
                "{} is a file; give a skill folder, a SKILL.md or a source folder",
                given.display()
            );
        };
        let dir = given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (
            dir,
            if skill_file_in(dir) == Some(SKILL_FILE) {
                SKILL_FILE
            } else {
                name
            },
        )
    } else if let Some(name) = skill_file_in(given) {
        (given, name)
    } else {
        let backend = FilesystemBackend::new(given)?
            .with_virtual_mode(false)?
            .with_hard_links(options.hard_links);
        let depth = options.depth.unwrap_or(1);
        checked.add(discover(&backend, backend.root_path(), limits, depth).await?);
        return Ok(());
    };
    checked.folders += 1;
    let backend = FilesystemBackend::new(skill_dir)?
        .with_virtual_mode(false)?
        .with_hard_links(options.hard_links);
    let md_path = path::join(backend.root_path(), file_name);
    if file_name == LOWERCASE_SKILL_FILE {
        checked.diagnostics.push(skills_runtime::lowercase_skill_file(&md_path));
    }
    let content = match backend.download_file(&md_path).await {
        Ok(content) => content,
        Err(error) => {
            let problem = Diagnostic::new(md_path, DiagnosticKind::ReadFailed, error.to_string());
            checked.diagnostics.push(problem);
            return Ok(());
        }
    };
    let outcome = parse_skill_md(&content, &md_path, path::file_name(backend.root_path()));
    let skills: Vec<SkillMetadata> = outcome.skill.into_iter().collect();
    checked.diagnostics.extend(outcome.diagnostics);
    let root = backend.root_path().to_owned();
    let over = size_diagnostics(&backend, &root, 0, &skills).await;
    checked.diagnostics.extend(over);
    checked.skills.extend(skills);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_only_what_happened() {
        let plain = Summary {
            folders: 5,
            loaded: 4,
            skipped: 1,
            recovered: 0,
            hidden: 0,
            left_out: 0,
            warnings: 2,
            errors: 0,
            profile: "lenient",
            violations: 0,
        };
        assert_eq!(
            summary_line(&plain),
            "5 skill folders seen: 4 loaded, 1 skipped, 0 recovered, 0 hidden, 2 warnings"
        );
        let cut = Summary {
            left_out: 7,
            errors: 1,
            ..plain
        };
        assert_eq!(
            summary_line(&cut),
            "5 skill folders seen: 4 loaded, 1 skipped, 0 recovered, 0 hidden, 7 left out by limits, 2 warnings, 1 errors"
        );
    }
}

//! One-source discovery: find `<source>/<dir>/SKILL.md`, read them in one batch, parse.

use std::collections::HashMap;

use crate::backend::BackendProtocol;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::error::BackendError;
use crate::parse::parse_skill_md;
use crate::path;
use crate::types::{FileErrorKind, SkillMetadata};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The skills of one source and what was wrong with the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillListing {
    /// Parsed skills, one per name, ordered by directory path.
    pub skills: Vec<SkillMetadata>,
    /// Skips and warnings of this source, in path order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a whole source could not be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The source directory does not exist.
    #[error("skill source {source_path} does not exist")]
    NotFound {
        /// The source path.
        source_path: String,
    },
    /// The source path is a file.
    #[error("skill source {source_path} is not a directory")]
    NotADirectory {
        /// The source path.
        source_path: String,
    },
    /// Anything else (invalid path, permission, I/O, network).
    #[error("skill source {source_path} could not be listed: {error}")]
    Unreadable {
        /// The source path.
        source_path: String,
        /// What the backend said.
        error: BackendError,
    },
}

impl SourceError {
    fn from_backend(source_path: &str, error: BackendError) -> Self {
        let source_path = source_path.to_owned();
        match error {
            BackendError::NotFound { .. } => Self::NotFound { source_path },
            BackendError::NotADirectory { .. } => Self::NotADirectory { source_path },
            error => Self::Unreadable { source_path, error },
        }
    }

    /// The error as a diagnostic, for state and reports.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let (path, kind) = match self {
            Self::NotFound { source_path } => (source_path, DiagnosticKind::SourceNotFound),
            Self::NotADirectory { source_path } => (source_path, DiagnosticKind::SourceNotADirectory),
            Self::Unreadable { source_path, .. } => (source_path, DiagnosticKind::SourceUnreadable),
        };
        Diagnostic::new(path.clone(), kind, self.to_string())
    }
}

/// Lists the skills of one source: every `<source>/<dir>/SKILL.md`, one level deep.
///
/// Directories without a `SKILL.md` are skipped silently; every other skip (too large,
/// unreadable, unparseable) is a diagnostic. All `SKILL.md` files of the source are
/// fetched with one [`download_files`](BackendProtocol::download_files) call, and files
/// the listing already shows to be too large are not fetched at all. When two
/// directories declare the same name, the later one (in path order) is kept and a
/// `duplicate-name` warning says so.
///
/// ```
/// # tokio_test_block_on(async {
/// use skills_core::{list_skills, MemoryBackend};
/// let backend = MemoryBackend::new();
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Browse\n---\n");
/// let listing = list_skills(&backend, "/skills").await.unwrap();
/// assert_eq!(listing.skills[0].name, "web");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn list_skills(backend: &dyn BackendProtocol, source: &str) -> Result<SkillListing, SourceError> {
    let root = path::normalize(source).map_err(|e| SourceError::from_backend(source, e))?;
    let walk = backend
        .walk(&root, 2)
        .await
        .map_err(|e| SourceError::from_backend(source, e))?;
    let mut listing = SkillListing::default();
    for error in walk.errors {
        let msg = format!("could not list directory: {error}");
        listing
            .diagnostics
            .push(Diagnostic::new(error.path(), DiagnosticKind::ListingFailed, msg));
    }

    let max_size = backend.max_file_size();
    let mut to_download = Vec::new();
    for entry in &walk.entries {
        let dir = path::parent(&entry.path);
        if path::file_name(&entry.path) != SKILL_FILE || path::parent(dir) != root || dir == root {
            continue;
        }
        if entry.is_dir {
            let msg = format!("{SKILL_FILE} is a directory");
            listing
                .diagnostics
                .push(Diagnostic::new(&entry.path, DiagnosticKind::ReadFailed, msg));
        } else if entry.size > max_size {
            let msg = format!("file is {} bytes, over the {max_size}-byte limit; not read", entry.size);
            listing
                .diagnostics
                .push(Diagnostic::new(&entry.path, DiagnosticKind::TooLarge, msg));
        } else {
            to_download.push(entry.path.clone());
        }
    }

    let responses = backend.download_files(&to_download).await;
    let mut index: HashMap<String, usize> = HashMap::with_capacity(responses.len());
    for (md_path, response) in to_download.iter().zip(responses) {
        let content = match (response.content, response.error) {
            (Some(content), None) => content,
            // Deleted between the listing and the read: as if it had never been there.
            (_, Some(e)) if e.kind == FileErrorKind::FileNotFound => continue,
            (_, Some(e)) if e.kind == FileErrorKind::TooLarge => {
                listing
                    .diagnostics
                    .push(Diagnostic::new(md_path, DiagnosticKind::TooLarge, e.message));
                continue;
            }
            (_, error) => {
                let msg = error.map_or_else(|| "backend returned no content".to_owned(), |e| e.to_string());
                listing
                    .diagnostics
                    .push(Diagnostic::new(md_path, DiagnosticKind::ReadFailed, msg));
                continue;
            }
        };
        let dir = path::parent(md_path);
        let outcome = parse_skill_md(&content, md_path, path::file_name(dir));
        listing.diagnostics.extend(outcome.diagnostics);
        let Some(skill) = outcome.skill else { continue };
        match index.get(&skill.name) {
            Some(&i) => {
                let msg = format!(
                    "skill '{}' is also declared by {}; this later one is kept",
                    skill.name, listing.skills[i].path
                );
                listing
                    .diagnostics
                    .push(Diagnostic::new(md_path, DiagnosticKind::DuplicateName, msg));
                listing.skills[i] = skill;
            }
            None => {
                index.insert(skill.name.clone(), listing.skills.len());
                listing.skills.push(skill);
            }
        }
    }
    listing.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(listing)
}

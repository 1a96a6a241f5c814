//! How big a skill is, against the per-skill limits of the MCP skills extension
//! (SEP-2640): 512 files and 16 MiB, counted over every file of the skill's folder.

use crate::backend::BackendProtocol;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::discover::entries_under;
use crate::file::FileInfo;
use crate::skill::SkillMetadata;

/// Most files one skill may hold for every conforming MCP host to accept it.
pub const MAX_SKILL_FILES: usize = 512;

/// Most bytes all files of one skill may hold together for every conforming MCP host to
/// accept it (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// How deep a skill's folder is walked to find all its files: deeper nesting than any
/// real skill has, and a bound on what a hostile folder can make a walk do.
pub const SKILL_TREE_DEPTH: usize = 64;

/// The files of a skill's folder, counted.
///
/// ```
/// use skills_core::{FileInfo, SkillSize, MAX_SKILL_FILES};
/// let files: Vec<FileInfo> = (0..=MAX_SKILL_FILES)
///     .map(|i| FileInfo { path: format!("/s/a/f{i}"), is_dir: false, size: 1, modified_at: None, etag: None, changed_at: None })
///     .collect();
/// let size = SkillSize::of(&files);
/// assert_eq!((size.files, size.bytes), (513, 513));
/// assert!(size.over_limits().unwrap().contains("513 files"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkillSize {
    /// Files (directories not counted), `SKILL.md` included.
    pub files: usize,
    /// Their sizes, summed.
    pub bytes: u64,
}

impl SkillSize {
    /// Counts the files among `entries` (a walk of the skill's folder).
    pub fn of(entries: &[FileInfo]) -> Self {
        entries
            .iter()
            .filter(|e| !e.is_dir)
            .fold(Self::default(), |size, e| Self {
                files: size.files + 1,
                bytes: size.bytes.saturating_add(e.size),
            })
    }

    /// Which of the extension's limits the skill goes beyond, in words; `None` within
    /// both.
    pub fn over_limits(&self) -> Option<String> {
        let mut over = Vec::new();
        if self.files > MAX_SKILL_FILES {
            over.push(format!("{} files, over the {MAX_SKILL_FILES}", self.files));
        }
        if self.bytes > MAX_SKILL_BYTES {
            over.push(format!(
                "{:.1} MiB of files, over the 16 MiB",
                self.bytes as f64 / (1024.0 * 1024.0)
            ));
        }
        (!over.is_empty()).then(|| {
            format!(
                "{} the MCP skills extension lets a skill hold; MCP hosts may refuse it and `skills serve` does not publish it",
                over.join(" and ")
            )
        })
    }
}

/// An `over-spec-limits` warning for each of `skills` (all from the source at `root`)
/// whose folder holds more than the extension's limits. One walk of the source serves
/// every skill (a walk per skill folder cost a listing each: 40,000 of them on a real
/// collection); a source that cannot be walked says nothing here (discovery reports
/// what it could not read).
pub async fn size_diagnostics(
    backend: &dyn BackendProtocol,
    root: &str,
    depth: usize,
    skills: &[SkillMetadata],
) -> Vec<Diagnostic> {
    if skills.is_empty() {
        return Vec::new();
    }
    let Ok(walk) = backend.walk(root, depth + SKILL_TREE_DEPTH).await else {
        return Vec::new();
    };
    skills
        .iter()
        .filter_map(|skill| {
            let problem = SkillSize::of(entries_under(&walk.entries, skill.dir())).over_limits()?;
            Some(Diagnostic::new(&skill.path, DiagnosticKind::OverSpecLimits, problem))
        })
        .collect()
}

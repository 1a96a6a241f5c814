//! [`SkillSource`]: the one description of a place skills come from, shared by the
//! catalog, the agent middleware, the MCP server and the CLI.

use std::sync::Arc;

use skills_core::{BackendProtocol, path};

use crate::prompt::default_label;

/// One place skills come from: a directory inside a backend, with a label for people and
/// prompts (default: the directory's name, capitalized) and a location for people
/// (default: the path; a git source shows its URL and commit, an S3 source its
/// `s3://` URL).
#[derive(Debug, Clone)]
pub struct SkillSource {
    backend: Arc<dyn BackendProtocol>,
    path: String,
    label: String,
    /// Whether the label was set (otherwise it follows the path).
    labelled: bool,
    location: Option<String>,
    spec: Option<String>,
    depth: usize,
}

impl SkillSource {
    /// The skills under `path` of `backend`.
    pub fn new(backend: Arc<dyn BackendProtocol>, path: impl Into<String>) -> Self {
        let path = path.into();
        Self {
            backend,
            label: default_label(&path),
            labelled: false,
            path,
            location: None,
            spec: None,
            depth: 1,
        }
    }

    /// How many levels below the path a skill folder may lie (default 1); see
    /// [`Discovery::depth`](skills_core::Discovery::depth).
    pub fn with_depth(mut self, depth: usize) -> Self {
        self.depth = depth.max(1);
        self
    }

    /// The same source read as the one skill folder its path is (a repository whose
    /// `SKILL.md` is at its root, `skills/pdf` of a collection): the source then holds
    /// that skill. A folder below its backend's root (a local folder) is read where it
    /// is, from its parent, of which nothing else is served; a backend's root (a
    /// repository) is shown as a folder named as its `SKILL.md` names it, or
    /// `fallback_name` (the repository's name) when that is not a valid name. Its depth
    /// is then 0. See [`OneSkill`](skills_core::OneSkill).
    pub fn as_one_skill(mut self, fallback_name: impl Into<String>) -> Self {
        let one = skills_core::OneSkill::new(self.backend, &self.path, fallback_name);
        self.path = one.root().to_owned();
        self.backend = Arc::new(one);
        self.depth = 0;
        self
    }

    /// How many levels below the path a skill folder may lie; 0 for a source read as one
    /// skill folder ([`as_one_skill`](Self::as_one_skill)), whose skill lies one level
    /// below its path as it is shown.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Sets the label shown in listings and the prompt (`Team` gives `**Team Skills**`).
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self.labelled = true;
        self
    }

    /// Sets where the source is, as people should read it (`s3://team/library`).
    pub fn with_location(mut self, location: impl Into<String>) -> Self {
        self.location = Some(location.into());
        self
    }

    /// Sets the text the source was opened from (`git+https://...#ref=main`, a folder,
    /// `s3://bucket/prefix`), which opens it again: a lock records it, so that `skills
    /// verify` reads the sources the lock was made from. It holds no credentials.
    pub fn with_spec(mut self, spec: impl Into<String>) -> Self {
        self.spec = Some(spec.into());
        self
    }

    /// The text the source was opened from, when it was opened from one.
    pub fn spec(&self) -> Option<&str> {
        self.spec.as_deref()
    }

    /// The source path inside its backend.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The label: the one set, or the path's last component capitalized. In a catalog,
    /// a label an earlier source has gets a number (`skills-2`): the lock keeps each
    /// source under its label, and two sources of one label would be one to it.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Where the source is, for people: the location set, or the path.
    pub fn location(&self) -> &str {
        self.location.as_deref().unwrap_or(&self.path)
    }

    /// The backend the source is read through.
    pub fn backend(&self) -> &Arc<dyn BackendProtocol> {
        &self.backend
    }

    /// The same source with its path in normal form (absolute, no `.` or `..`, no
    /// doubled or trailing slash).
    pub fn normalized(mut self) -> Result<Self, SourcePathError> {
        self.path = path::normalize(&self.path).map_err(|e| SourcePathError {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        if !self.labelled {
            self.label = default_label(&self.path);
        }
        Ok(self)
    }
}

/// A source path that breaks the backend path rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid skill source path {path}: {reason}")]
pub struct SourcePathError {
    /// The path as given.
    pub path: String,
    /// Why it was refused.
    pub reason: String,
}

/// `label` if `taken` says it is free, else `label` with the first number that is
/// (`skills-2`, `skills-3`): how a catalog tells apart two sources of one label, and how
/// a lock keeps each under a key of its own.
///
/// ```
/// use skills_catalog::free_label;
/// assert_eq!(free_label("skills", |l| l == "skills"), "skills-2");
/// assert_eq!(free_label("team", |_| false), "team");
/// ```
pub fn free_label(label: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(label) {
        return label.to_owned();
    }
    (2u32..)
        .map(|n| format!("{label}-{n}"))
        .find(|numbered| !taken(numbered))
        .unwrap_or_else(|| label.to_owned())
}

/// `sources` with each label distinct ([`free_label`]); a source keeps whether its label
/// was set.
pub(crate) fn distinct_labels(mut sources: Vec<SkillSource>) -> Vec<SkillSource> {
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for source in &mut sources {
        source.label = free_label(&source.label, |l| taken.contains(l));
        taken.insert(source.label.clone());
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;
    use skills_core::MemoryBackend;

    #[test]
    fn label_and_location_default_from_the_path() {
        let source = SkillSource::new(Arc::new(MemoryBackend::new()), "/skills/team/");
        assert_eq!(source.label(), "Team");
        assert_eq!(source.location(), "/skills/team/");
        let source = source.with_label("base").with_location("s3://bucket/base");
        assert_eq!((source.label(), source.location()), ("base", "s3://bucket/base"));
    }

    #[test]
    fn normalizing_refuses_escapes() {
        let source = SkillSource::new(Arc::new(MemoryBackend::new()), "/a//b/");
        assert_eq!(source.normalized().unwrap().path(), "/a/b");
        let bad = SkillSource::new(Arc::new(MemoryBackend::new()), "/a/../../etc");
        let error = bad.normalized().unwrap_err();
        assert_eq!(error.path, "/a/../../etc");
    }
}

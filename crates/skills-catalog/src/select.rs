//! Which skills of a snapshot an agent is offered: a [`SkillView`] (a named selection,
//! for a subagent or a role) and a [`ToolSet`] (the tools the agent has; a skill needing
//! others is unavailable). Both are filters over the shared snapshot: a [`Selection`] is
//! computed once per (snapshot version, filter) and holds positions and shared
//! pointers, never a copy of a skill.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use skills_core::{MissingTools, SkillMetadata};

use crate::snapshot::CatalogSnapshot;

/// One entry of a view's `include` or `exclude` list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Selector {
    /// A skill's exact name.
    Name(String),
    /// A name pattern with `*` (any run of characters) and `?` (one character): `pdf-*`.
    Glob(String),
    /// `source:LABEL`: every skill a source serves, by the source's label (any case) or
    /// path.
    Source(String),
}

impl Selector {
    /// Reads `source:LABEL`, a pattern with `*` or `?`, or a name.
    pub fn parse(text: &str) -> Result<Self, ViewError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ViewError::Empty);
        }
        if let Some(label) = text.strip_prefix("source:") {
            let label = label.trim();
            if label.is_empty() {
                return Err(ViewError::Empty);
            }
            return Ok(Self::Source(label.to_owned()));
        }
        if text.contains(['*', '?']) {
            return Ok(Self::Glob(text.to_owned()));
        }
        Ok(Self::Name(text.to_owned()))
    }

    fn matches(&self, skill: &SkillMetadata, source: Option<&crate::SkillSource>) -> bool {
        match self {
            Self::Name(name) => skill.name == *name,
            Self::Glob(pattern) => glob_matches(pattern, &skill.name),
            Self::Source(label) => {
                source.is_some_and(|s| s.label().eq_ignore_ascii_case(label) || s.path() == label.as_str())
            }
        }
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(text) | Self::Glob(text) => f.write_str(text),
            Self::Source(label) => write!(f, "source:{label}"),
        }
    }
}

/// Why a view could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// An empty entry (or `source:` without a label).
    #[error("an empty entry")]
    Empty,
}

/// A named selection over the catalog: the skills `include` names (every skill when it
/// names none) without those `exclude` names, plus the skills they depend on.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{Selection, SkillCatalog, SkillFilter, SkillSource, SkillView};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/s/pdf-fill/SKILL.md", "---\nname: pdf-fill\ndescription: Fill\ndependencies: [ocr]\n---\n")?;
/// backend.insert("/s/pdf-sign/SKILL.md", "---\nname: pdf-sign\ndescription: Sign\n---\n")?;
/// backend.insert("/s/ocr/SKILL.md", "---\nname: ocr\ndescription: Read scans\n---\n")?;
/// backend.insert("/s/deploy/SKILL.md", "---\nname: deploy\ndescription: Ship\n---\n")?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/s")]);
/// let snapshot = catalog.ensure_loaded().await;
///
/// let view = SkillView::new("docs").include(["pdf-*"])?.exclude(["pdf-sign"])?;
/// let selection = Selection::of(&snapshot, &SkillFilter::view(view));
/// assert_eq!(selection.names(), ["ocr", "pdf-fill"]); // ocr: pdf-fill depends on it
/// assert!(!selection.offers(&snapshot, "deploy"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkillView {
    name: String,
    include: Vec<Selector>,
    exclude: Vec<Selector>,
}

impl SkillView {
    /// A view called `name` that includes every skill until [`include`](Self::include)
    /// names some.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    /// Adds entries (names, `*` patterns, `source:LABEL`) to the included skills.
    pub fn include<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, entries: I) -> Result<Self, ViewError> {
        for entry in entries {
            self.include.push(Selector::parse(entry.as_ref())?);
        }
        Ok(self)
    }

    /// Adds entries to the excluded skills (they win over `include`, not over a
    /// dependency of an included skill).
    pub fn exclude<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, entries: I) -> Result<Self, ViewError> {
        for entry in entries {
            self.exclude.push(Selector::parse(entry.as_ref())?);
        }
        Ok(self)
    }

    /// The view's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The included entries.
    pub fn included(&self) -> &[Selector] {
        &self.include
    }

    /// The excluded entries.
    pub fn excluded(&self) -> &[Selector] {
        &self.exclude
    }
}

/// The tools an agent has, for checking skills' tool dependencies against. Cheap to
/// clone and compare; the order tools are given in does not matter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolSet(Arc<BTreeSet<String>>);

impl ToolSet {
    /// The set of these tool names.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(tools: I) -> Self {
        Self(Arc::new(tools.into_iter().map(Into::into).collect()))
    }

    /// Whether the agent has `tool`.
    pub fn contains(&self, tool: &str) -> bool {
        self.0.contains(tool)
    }

    /// The tools, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

/// What an agent is offered of a snapshot: its view (if any), the tools it has (if
/// known), and whether skills it cannot run are left out (the default) or listed as
/// unavailable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SkillFilter {
    /// The view; `None` is every skill.
    pub view: Option<Arc<SkillView>>,
    /// The tools the agent has; `None` when not known (nothing is unavailable).
    pub tools: Option<ToolSet>,
    /// List skills whose tools are missing, marked unavailable, instead of leaving them
    /// out. They still cannot be loaded.
    pub show_unavailable: bool,
}

impl SkillFilter {
    /// Only `view`'s skills.
    pub fn view(view: SkillView) -> Self {
        Self {
            view: Some(Arc::new(view)),
            ..Self::default()
        }
    }

    /// This filter for an agent that has `tools`.
    pub fn with_tools(mut self, tools: Option<ToolSet>) -> Self {
        self.tools = tools;
        self
    }

    /// Whether the filter keeps every skill (no view, no tool set).
    pub fn is_everything(&self) -> bool {
        self.view.is_none() && self.tools.is_none()
    }
}

/// Why a skill of the snapshot is not offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotOffered {
    /// The view leaves it out.
    OutOfView,
    /// The agent lacks tools it needs.
    Unavailable(MissingTools),
}

/// The skills of one snapshot a [`SkillFilter`] offers, in the snapshot's order.
#[derive(Debug, Default)]
pub struct Selection {
    version: u64,
    tools: Option<ToolSet>,
    /// Per snapshot position: whether it is in the view.
    in_view: Vec<bool>,
    /// Per snapshot position: whether it is in the view and its tools are there.
    loadable: Vec<bool>,
    skills: Vec<Arc<SkillMetadata>>,
    sources: Vec<usize>,
    unavailable: BTreeMap<String, MissingTools>,
    warnings: Vec<String>,
}

impl Selection {
    /// What `filter` offers of `snapshot`. A face keeps it for the snapshot's version
    /// ([`PromptSection::selection`](crate::PromptSection::selection) does).
    pub fn of(snapshot: &CatalogSnapshot, filter: &SkillFilter) -> Self {
        let all = snapshot.skills();
        let mut warnings = Vec::new();
        let in_view = match &filter.view {
            None => vec![true; all.len()],
            Some(view) => view_members(snapshot, view, &mut warnings),
        };
        let mut selection = Self {
            version: snapshot.version(),
            tools: filter.tools.clone(),
            ..Self::default()
        };
        let mut loadable = in_view.clone();
        for (i, skill) in all.iter().enumerate() {
            if !in_view[i] {
                continue;
            }
            if let Some(tools) = &filter.tools {
                if let Some(missing) = skill.missing_tools(|tool| tools.contains(tool)) {
                    selection.unavailable.insert(skill.name.clone(), missing);
                    loadable[i] = false;
                    if !filter.show_unavailable {
                        continue;
                    }
                }
            }
            selection.skills.push(Arc::clone(skill));
            selection.sources.push(snapshot.skill_sources()[i]);
        }
        selection.in_view = in_view;
        selection.loadable = loadable;
        selection.warnings = warnings;
        selection
    }

    /// The snapshot version this selection is of.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The tool set the selection was checked against, if any.
    pub fn tools(&self) -> Option<&ToolSet> {
        self.tools.as_ref()
    }

    /// The skills offered (listed), in the snapshot's order.
    pub fn skills(&self) -> &[Arc<SkillMetadata>] {
        &self.skills
    }

    /// The source index of each offered skill, parallel to [`skills`](Self::skills).
    pub fn skill_sources(&self) -> &[usize] {
        &self.sources
    }

    /// The names of the offered skills.
    pub fn names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// Skills in the view that need tools the agent lacks, with what they lack.
    pub fn unavailable(&self) -> &BTreeMap<String, MissingTools> {
        &self.unavailable
    }

    /// What the view names that no skill matches (a warning each, never an error).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Why `name` is not offered; `None` when it is (or when the snapshot has no such
    /// skill: that is the caller's "not found").
    pub fn not_offered(&self, snapshot: &CatalogSnapshot, name: &str) -> Option<NotOffered> {
        match snapshot.position(name) {
            Some(i) if !self.in_view.get(i).copied().unwrap_or(false) => Some(NotOffered::OutOfView),
            Some(_) => self.unavailable.get(name).cloned().map(NotOffered::Unavailable),
            None => None,
        }
    }

    /// Whether `name` is offered and can be loaded.
    pub fn offers(&self, snapshot: &CatalogSnapshot, name: &str) -> bool {
        snapshot
            .position(name)
            .is_some_and(|i| self.loadable.get(i).copied().unwrap_or(false))
    }
}

/// Which snapshot positions `view` keeps: its `include` (all when empty) less its
/// `exclude`, then every skill a kept one depends on, transitively.
fn view_members(snapshot: &CatalogSnapshot, view: &SkillView, warnings: &mut Vec<String>) -> Vec<bool> {
    let all = snapshot.skills();
    let source = |i: usize| snapshot.sources().get(snapshot.skill_sources()[i]);
    let matches = |selectors: &[Selector], i: usize| selectors.iter().any(|s| s.matches(&all[i], source(i)));
    let mut keep: Vec<bool> = (0..all.len())
        .map(|i| (view.include.is_empty() || matches(&view.include, i)) && !matches(&view.exclude, i))
        .collect();
    for selector in view.include.iter().chain(&view.exclude) {
        if !(0..all.len()).any(|i| selector.matches(&all[i], source(i))) {
            warnings.push(format!(
                "view `{}`: `{selector}` matches no skill of the catalog",
                view.name
            ));
        }
    }
    let mut queue: Vec<usize> = (0..all.len()).filter(|&i| keep[i]).collect();
    while let Some(i) = queue.pop() {
        for dependency in all[i].required_skills() {
            if let Some(j) = snapshot.position(dependency) {
                if !keep[j] {
                    keep[j] = true;
                    queue.push(j);
                }
            }
        }
    }
    keep
}

/// Whether `name` matches `pattern`, where `*` is any run of characters and `?` one.
pub(crate) fn glob_matches(pattern: &str, name: &str) -> bool {
    if pattern.is_ascii() && name.is_ascii() {
        return glob_units(pattern.as_bytes(), name.as_bytes());
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    glob_units(&pattern, &name)
}

/// The classic two-pointer match with one backtrack point (linear for `*` patterns),
/// over bytes or characters.
fn glob_units<T: Copy + PartialEq + From<u8>>(pattern: &[T], name: &[T]) -> bool {
    let (star_unit, any_unit) = (T::from(b'*'), T::from(b'?'));
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(&c) if c == star_unit => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == any_unit || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == star_unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_matches("pdf-*", "pdf-fill"));
        assert!(glob_matches("*-fill", "pdf-fill"));
        assert!(glob_matches("p?f-*l", "pdf-fill"));
        assert!(glob_matches("*", ""));
        assert!(!glob_matches("pdf-*", "xpdf-fill"));
        assert!(!glob_matches("pdf", "pdf-fill"));
        assert!(!glob_matches("a*b*c", "aXbY"));
        assert!(glob_matches("数据-*", "数据-分析"));
        assert!(glob_matches("?-x", "é-x"), "`?` is one character, not one byte");
        assert!(!glob_matches("??-x", "é-x"));
    }

    #[test]
    fn selectors_read_sources_patterns_and_names() {
        assert_eq!(Selector::parse("source:Team"), Ok(Selector::Source("Team".into())));
        assert_eq!(Selector::parse(" pdf-* "), Ok(Selector::Glob("pdf-*".into())));
        assert_eq!(Selector::parse("pdf"), Ok(Selector::Name("pdf".into())));
        assert_eq!(Selector::parse("source:"), Err(ViewError::Empty));
        assert_eq!(Selector::parse(""), Err(ViewError::Empty));
    }
}

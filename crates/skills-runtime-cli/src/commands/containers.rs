//! Where a repository keeps the skills it publishes, for `skills add`: a collection on
//! GitHub keeps its skill folders in `skills/` (anthropics/skills, obra/superpowers,
//! vercel-labs/agent-skills), or in hidden sets inside it (`skills/.curated`), and a
//! project keeps its own in an agent's folder (`.claude/skills`). `skills add
//! owner/repo` reads those folders, as the npm installer does, instead of the
//! repository's root, where it would find a template or nothing (decision 115). A folder
//! whose skill folders all lie deeper (`skills/<author>/<name>`, a marketplace's
//! `plugins/<plugin>/skills/<name>`) is read as deep as they are, up to
//! [`MAX_CONTAINER_DEPTH`] (decision 118).

use skills_install::agents::{AGENTS, CANONICAL};
use skills_runtime::SkillSource;

use crate::library::Library;

/// The folders below a repository's root that publish skills, in the order they are
/// taken: the convention's `skills/`, then the hidden sets some collections keep in it.
const PUBLISHED: &[&str] = &["skills", "skills/.curated", "skills/.system", "skills/.experimental"];

/// Most top-level folders looked into for skill folders when nothing else holds any
/// (`scientific-skills/` of K-Dense-AI/claude-scientific-skills): each is a discovery.
const TOP_FOLDERS: usize = 16;

/// How deep below a folder `skills add` looks for its skill folders when none is a
/// folder of it, as the npm installer walks each such folder: `skills/<author>/<name>`
/// is 2, `plugins/<plugin>/skills/<name>` 3.
const MAX_CONTAINER_DEPTH: usize = 3;

/// How deep below a source `skills add` looks for a skill it was asked for by name and
/// did not find at the depth asked: collections of mirrored repositories keep skills
/// several levels down (thereisnotime/skills-collection, up to eight).
const NAMED_DEPTH: usize = 8;

/// `source` read from its folder `dir` instead of its root, when `source` names a whole
/// git repository (no `path=`) or a local folder; `None` for any other source (a
/// bucket, a registry, a sub-folder of a repository already).
pub fn below(source: &str, dir: &str) -> Option<String> {
    if let Some(rest) = source.strip_prefix("git+") {
        let (url, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        if url.is_empty() || fragment.split('&').any(|pair| pair.starts_with("path=")) {
            return None;
        }
        let joiner = if fragment.is_empty() { "#" } else { "&" };
        return Some(format!("{source}{joiner}path={dir}"));
    }
    let local = source.strip_prefix("file://").unwrap_or(source);
    if local.contains("://") || local.contains('=') || !std::path::Path::new(local).is_dir() {
        return None;
    }
    Some(format!("{}/{dir}", source.trim_end_matches('/')))
}

/// A folder below a source's root that holds skill folders, and the source read from it.
pub struct Found {
    /// The folder, below the root (`skills`, `skills/.curated`, `.claude/skills`).
    pub dir: String,
    /// The source read from that folder.
    pub source: String,
    /// That source, opened.
    pub library: Library,
    /// How deep it was read, when deeper than it was asked (its skill folders lie
    /// below its sub-folders).
    pub deeper: Option<usize>,
}

/// Where `skills add` reads `source`, already opened as `library` (its root): each
/// folder of [`PUBLISHED`] that holds skill folders, when any does; else, when the root
/// holds none, each agent's project folder that does (`.claude/skills`), else each
/// top-level folder that does (the first [`TOP_FOLDERS`] by name). Empty when the root
/// is what to read: a library at the root, a source that is not a repository or a
/// folder, a repository without such folders. `open` opens a source as the caller reads
/// it (with its lock), at the depth given or else the caller's.
pub async fn where_skills_are<F, Fut>(source: &str, library: &Library, open: F) -> Vec<Found>
where
    F: Fn(String, Option<usize>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Library>>,
{
    let mut found = Vec::new();
    let Some(root) = library
        .catalog
        .sources()
        .first()
        .filter(|_| below(source, "skills").is_some())
    else {
        return found;
    };
    let at_root = folders(root, "").await;
    if at_root.iter().any(|name| name == "skills") {
        let inside = folders(root, "skills").await;
        for &dir in PUBLISHED {
            let hidden = dir.strip_prefix("skills/");
            if hidden.is_some_and(|name| !inside.iter().any(|n| n == name)) {
                continue;
            }
            found.extend(with_skills(source, dir, &open).await);
        }
    }
    if found.is_empty() && library.catalog.snapshot().skills().is_empty() {
        let mut seen = Vec::new();
        for dir in std::iter::once(CANONICAL).chain(AGENTS.iter().map(|a| a.project)) {
            let first = dir.split('/').next().unwrap_or(dir);
            if seen.contains(&dir) || !at_root.iter().any(|name| name == first) {
                continue;
            }
            seen.push(dir);
            found.extend(with_skills(source, dir, &open).await);
        }
    }
    if found.is_empty() && library.catalog.snapshot().skills().is_empty() {
        let mut others: Vec<&String> = at_root
            .iter()
            .filter(|name| !name.starts_with('.') && *name != "node_modules" && *name != "skills")
            .collect();
        others.sort();
        for dir in others.into_iter().take(TOP_FOLDERS) {
            found.extend(with_skills(source, dir, &open).await);
        }
    }
    found
}

/// `source` read from `dir`, opened, when that finds skills there: at the caller's depth,
/// or, when that finds none and says skill folders lie deeper, one level deeper at a time
/// up to [`MAX_CONTAINER_DEPTH`].
async fn with_skills<F, Fut>(source: &str, dir: &str, open: &F) -> Option<Found>
where
    F: Fn(String, Option<usize>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Library>>,
{
    let below = below(source, dir)?;
    let mut library = open(below.clone(), None).await.ok()?;
    let mut deeper = None;
    let asked = library.catalog.sources().first().map_or(1, |s| s.depth());
    for depth in asked + 1..=MAX_CONTAINER_DEPTH {
        if !library.catalog.snapshot().skills().is_empty()
            || !says(&library, skills_runtime::DiagnosticKind::DeeperSkills)
        {
            break;
        }
        library = open(below.clone(), Some(depth)).await.ok()?;
        deeper = Some(depth);
    }
    (!library.catalog.snapshot().skills().is_empty()).then_some(Found {
        dir: dir.to_owned(),
        source: below,
        library,
        deeper,
    })
}

/// Whether `library`'s discovery said a diagnostic of `kind` (the hints of a source
/// without skills: its skill folders lie deeper, or it is one skill folder).
fn says(library: &Library, kind: skills_runtime::DiagnosticKind) -> bool {
    library.catalog.snapshot().diagnostics().iter().any(|d| d.kind == kind)
}

/// Which of `asked` (every skill when empty) `skills add` takes from each folder of
/// `found`: a name from the first folder that has it; a name none has goes to the first
/// folder's install, which says so (or keeps it, for a skill pinned and gone).
pub fn share<'a>(asked: &[String], found: &'a [Found]) -> Vec<(&'a Found, Vec<String>)> {
    let mut shares: Vec<(&Found, Vec<String>)> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for place in found {
        let snapshot = place.library.catalog.snapshot();
        let names: Vec<String> = if asked.is_empty() {
            snapshot.skills().iter().map(|s| s.name.clone()).collect()
        } else {
            asked.iter().filter(|n| snapshot.get(n).is_some()).cloned().collect()
        };
        let names: Vec<String> = names.into_iter().filter(|n| !taken.contains(n)).collect();
        taken.extend(names.iter().cloned());
        shares.push((place, names));
    }
    if let Some((_, first)) = shares.first_mut() {
        first.extend(asked.iter().filter(|n| !taken.contains(n)).cloned());
    }
    shares.retain(|(_, names)| !names.is_empty());
    shares
}

/// The names of the folders in `dir` below `source`'s root (none when it cannot be
/// listed).
async fn folders(source: &SkillSource, dir: &str) -> Vec<String> {
    let path = skills_runtime::path::join(source.path(), dir);
    let Ok(entries) = source.backend().ls_info(&path).await else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter(|e| e.is_dir)
        .map(|e| skills_runtime::path::file_name(&e.path).to_owned())
        .collect()
}

/// Whether `library` read nothing because its source is itself one skill folder (its
/// `SKILL.md` at its root): `skills add` then reads it at depth 0.
pub fn is_one_skill(library: &Library) -> bool {
    library.catalog.snapshot().skills().is_empty() && says(library, skills_runtime::DiagnosticKind::SourceIsASkill)
}

/// `library` (the source `source`, opened at the depth asked) read as deep as the skills
/// of `asked` it lacks lie, when they are within [`NAMED_DEPTH`] levels of it: the depth
/// and the source opened there. `None` when none is missing, when the depth asked
/// already reaches [`NAMED_DEPTH`], or when no missing skill is found deeper. Only
/// named skills are looked for so: a whole source stays read at the depth asked, where
/// a deeper walk would take what a repository keeps in its tests and examples.
pub async fn deeper_for_names<F, Fut>(
    source: &str,
    library: &Library,
    asked: &[String],
    open: &F,
) -> Option<(usize, Library)>
where
    F: Fn(String, Option<usize>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Library>>,
{
    let snapshot = library.catalog.snapshot();
    let missing: Vec<&String> = asked.iter().filter(|name| snapshot.get(name).is_none()).collect();
    let asked_depth = library.catalog.sources().first()?.depth();
    if missing.is_empty() || asked_depth >= NAMED_DEPTH {
        return None;
    }
    let deep = open(source.to_owned(), Some(NAMED_DEPTH)).await.ok()?;
    let root = deep.catalog.sources().first()?.path().to_owned();
    let found = deep.catalog.snapshot();
    let depth = missing
        .iter()
        .filter_map(|name| found.get(name))
        .map(|skill| levels_below(&root, &skill.path))
        .max()?
        .max(asked_depth);
    if depth == NAMED_DEPTH {
        return Some((depth, deep));
    }
    let library = open(source.to_owned(), Some(depth)).await.ok()?;
    Some((depth, library))
}

/// How many levels below the folder `root` the skill whose `SKILL.md` is at `skill_file`
/// lies (1 for `ROOT/name/SKILL.md`).
fn levels_below(root: &str, skill_file: &str) -> usize {
    let below = skill_file.strip_prefix(root).unwrap_or(skill_file);
    below
        .split('/')
        .filter(|part| !part.is_empty())
        .count()
        .saturating_sub(1)
}

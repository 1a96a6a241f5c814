//! [`CatalogSnapshot`]: one consistent, immutable view of the catalog, and the change
//! events between two of them.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use skills_core::{
    Diagnostic, DiagnosticKind, NameIndex, ResourceMetadata, Severity, ShadowedSkill, SkillMetadata, SkillsState,
    merge_last_wins_indexed, resources::resources_from_entries,
};

use crate::listing::{Listing, SharedResources};
use crate::source::SkillSource;

/// One consistent view of the catalog. Readers hold it behind an `Arc`; a reload builds a
/// new one and swaps it in, so nobody ever sees half a reload.
#[derive(Debug, Clone, Default)]
pub struct CatalogSnapshot {
    pub(crate) version: u64,
    /// The catalog's sources, in priority order (shared by every snapshot).
    sources: Arc<[SkillSource]>,
    /// Shared with the [`SkillsState`] of every thread on this snapshot, and each skill
    /// with the next snapshots a change leaves it in.
    skills: Arc<[Arc<SkillMetadata>]>,
    /// Position in `skills` by name.
    index: NameIndex,
    /// The source of each skill, parallel to `skills`.
    skill_sources: Vec<usize>,
    shadowed: BTreeMap<String, Vec<ShadowedSkill>>,
    resources: Arc<BTreeMap<String, SharedResources>>,
    diagnostics: Arc<[Diagnostic]>,
    /// Whether resources are listed when a skill needs them instead of at discovery.
    lazy: bool,
    /// Resources listed so far, for a lazy snapshot.
    fetched: Arc<std::sync::RwLock<BTreeMap<String, SharedResources>>>,
    /// The lock of a frozen catalog.
    pub(crate) lock: Option<Arc<crate::lock::Lock>>,
}

impl CatalogSnapshot {
    /// The lock a frozen catalog checks every skill against.
    pub fn lock(&self) -> Option<&crate::lock::Lock> {
        self.lock.as_deref()
    }

    /// Increases with every change; 0 before the first discovery.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The merged skills (last source wins), in first-seen order. Each is shared: with
    /// the threads on this snapshot and with the next snapshots that keep it.
    pub fn skills(&self) -> &[Arc<SkillMetadata>] {
        &self.skills
    }

    /// Where the skill called `name` is in [`skills`](Self::skills).
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name, |i| self.skills[i].name.as_str())
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&SkillMetadata> {
        self.position(name).map(|i| &*self.skills[i])
    }

    /// The index of each skill's source, parallel to [`skills`](Self::skills).
    pub fn skill_sources(&self) -> &[usize] {
        &self.skill_sources
    }

    /// Index of the source the skill `name` comes from.
    pub fn source_of(&self, name: &str) -> Option<usize> {
        self.position(name).map(|i| self.skill_sources[i])
    }

    /// The source that serves the skill `name`: its backend is the one to read the
    /// skill's files through.
    pub fn source_for(&self, name: &str) -> Option<&SkillSource> {
        self.sources.get(self.source_of(name)?)
    }

    /// The catalog's sources, in priority order.
    pub fn sources(&self) -> &[SkillSource] {
        &self.sources
    }

    /// Copies of `name` hidden by the winning source.
    pub fn shadowed(&self, name: &str) -> &[ShadowedSkill] {
        self.shadowed.get(name).map_or(&[], Vec::as_slice)
    }

    /// Resources of every skill, by name, as discovery found them (empty when the
    /// catalog lists resources lazily: see [`resources_of`](Self::resources_of)).
    pub fn resources(&self) -> &BTreeMap<String, SharedResources> {
        &self.resources
    }

    /// Whether this snapshot lists a skill's resources when something needs them (the
    /// skills list's full entries, `load_skill`) rather than at discovery.
    pub fn lazy_resources(&self) -> bool {
        self.lazy
    }

    /// The resources of skill `name` known so far: discovered, or listed by
    /// [`fetch_resources`](Self::fetch_resources).
    pub fn resources_of(&self, name: &str) -> Option<Vec<ResourceMetadata>> {
        if !self.lazy {
            return self.resources.get(name).map(|r| r.to_vec());
        }
        let fetched = self.fetched.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        fetched.get(name).map(|r| r.to_vec())
    }

    /// Lists the resources of the skills `names` that a lazy snapshot has not listed
    /// yet, through the backend of the source serving each (a folder that cannot be
    /// listed has none). Does nothing for a snapshot that discovered its resources.
    pub async fn fetch_resources(&self, names: &[&str]) {
        if !self.lazy {
            return;
        }
        for &name in names {
            let known = {
                let fetched = self.fetched.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                fetched.contains_key(name)
            };
            let (Some(skill), Some(source), false) = (self.get(name), self.source_for(name), known) else {
                continue;
            };
            let dir = skill.dir();
            let found = match source.backend().walk(dir, 2).await {
                Ok(walk) => resources_from_entries(dir, name, &walk.entries),
                Err(_) => Vec::new(),
            };
            let mut fetched = self.fetched.write().unwrap_or_else(std::sync::PoisonError::into_inner);
            fetched.insert(name.to_owned(), found.into());
        }
    }

    /// Drops the listed resources of `names` (all with `None`), to be listed again.
    pub(crate) fn forget_resources(&self, names: Option<&BTreeSet<String>>) {
        if !self.lazy {
            return;
        }
        let mut fetched = self.fetched.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        match names {
            Some(names) => fetched.retain(|name, _| !names.contains(name)),
            None => fetched.clear(),
        }
    }

    /// Calls `f` with the resources known now (see [`known_resources`](Self::known_resources)),
    /// without copying a lazy snapshot's: a rendering reads them under the lock.
    pub(crate) fn with_known_resources<R>(&self, f: impl FnOnce(&BTreeMap<String, SharedResources>) -> R) -> R {
        if self.lazy {
            let fetched = self.fetched.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            f(&fetched)
        } else {
            f(&self.resources)
        }
    }

    /// The resources to render the skills list with: everything discovered, or what a
    /// lazy snapshot listed so far.
    pub(crate) fn known_resources(&self) -> std::borrow::Cow<'_, BTreeMap<String, SharedResources>> {
        if self.lazy {
            let fetched = self.fetched.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            std::borrow::Cow::Owned(fetched.clone())
        } else {
            std::borrow::Cow::Borrowed(&self.resources)
        }
    }

    /// Everything discovery reported, including kept-last-good notes.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether `other` has the same diagnostics (at once when they share their list).
    pub(crate) fn same_diagnostics(&self, other: &Self) -> bool {
        self.diagnostics == other.diagnostics
    }

    /// The snapshot as a thread's [`SkillsState`], with `loaded` as its loaded skills.
    pub fn to_state(&self, loaded: Vec<String>) -> SkillsState {
        SkillsState {
            skills_metadata: Some(Arc::clone(&self.skills)),
            skills_loaded: loaded,
            skill_resources: match self.known_resources() {
                std::borrow::Cow::Borrowed(_) => Arc::clone(&self.resources),
                std::borrow::Cow::Owned(fetched) => Arc::new(fetched),
            },
            skills_load_errors: Arc::clone(&self.diagnostics),
        }
    }
}

/// What a reload changed, by skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogChange {
    /// A new skill.
    Added {
        /// Its name.
        name: String,
    },
    /// A skill whose metadata, path, source or resources changed.
    Changed {
        /// Its name.
        name: String,
    },
    /// A skill that is gone.
    Removed {
        /// Its name.
        name: String,
    },
    /// An edit broke a skill; its last good version is still served.
    KeptLastGood {
        /// Its name.
        name: String,
        /// What is wrong with the edit.
        reason: String,
    },
    /// A new problem that is not about a served skill (a skipped skill, an unreadable
    /// source).
    Problem(Diagnostic),
}

/// A catalog change notification: the new version and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEvent {
    /// The version now served.
    pub version: u64,
    /// What changed, skills first, then problems.
    pub changes: Vec<CatalogChange>,
}

/// Counters for tests, benchmarks and status output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CatalogStats {
    /// Reloads run (including the first discovery).
    pub reloads: u64,
    /// `SKILL.md` files downloaded in all reloads.
    pub files_read: u64,
}

impl PartialEq for CatalogSnapshot {
    /// Same version, skills, sources of each skill, resources and diagnostics (the
    /// sources themselves are the catalog's and compared by identity).
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
            && Arc::ptr_eq(&self.sources, &other.sources)
            && self.skills == other.skills
            && self.skill_sources == other.skill_sources
            && self.shadowed == other.shadowed
            && self.resources == other.resources
            && self.diagnostics == other.diagnostics
    }
}

/// Merges the listing of each source (priority order) into a snapshot (version 0; the
/// catalog numbers it), moving skills and resources out of the listings. Each source's
/// listing error, if any, follows its listing's diagnostics.
pub(crate) fn build_snapshot(
    sources: &Arc<[SkillSource]>,
    listings: Vec<(Option<Listing>, Option<Diagnostic>)>,
    lazy: bool,
) -> CatalogSnapshot {
    let mut said = Vec::with_capacity(listings.len());
    let mut per_source = Vec::with_capacity(listings.len());
    let mut resources = Vec::with_capacity(listings.len());
    for (listing, error) in listings {
        let found = listing.unwrap_or_default();
        said.push(found.diagnostics);
        per_source.push(found.skills);
        resources.push(found.resources);
        said.extend(error.map(|e| Arc::from([e])));
    }
    let diagnostics = joined(said);
    // The merge's index of names holds each skill at the position it keeps here.
    let (merged, index) = merge_last_wins_indexed(per_source);
    let mut skills = Vec::with_capacity(merged.len());
    let mut skill_sources = Vec::with_capacity(merged.len());
    let mut shadowed = BTreeMap::new();
    for entry in merged {
        if !entry.shadowed.is_empty() {
            shadowed.insert(entry.skill.name.clone(), entry.shadowed);
        }
        skills.push(entry.skill);
        skill_sources.push(entry.source);
    }
    // Each source's resources of the skills it serves, moved over whole (one source's
    // map is the snapshot's as it is).
    let mut served_resources = BTreeMap::new();
    for (source, mut found) in resources.into_iter().enumerate() {
        found.retain(|name, _| {
            index
                .get(name, |i| skills[i].name.as_str())
                .is_some_and(|i| skill_sources[i] == source)
        });
        served_resources.append(&mut found);
    }
    CatalogSnapshot {
        version: 0,
        sources: Arc::clone(sources),
        skills: skills.into(),
        index,
        skill_sources,
        shadowed,
        resources: Arc::new(served_resources),
        diagnostics,
        lazy,
        fetched: Arc::default(),
        lock: None,
    }
}

/// The diagnostics of every source in order, shared as they are when only one source
/// has any (a large library's, with small ones beside it).
fn joined(said: Vec<Arc<[Diagnostic]>>) -> Arc<[Diagnostic]> {
    let mut saying = said.iter().filter(|d| !d.is_empty());
    match (saying.next(), saying.next()) {
        (None, _) => Arc::from([]),
        (Some(only), None) => Arc::clone(only),
        _ => said.iter().flat_map(|d| d.iter().cloned()).collect(),
    }
}

/// Diagnostics of `new` that `old` did not have: none when the two share their list (a
/// reload that changed no diagnostic of a library's only source that has any).
pub(crate) fn new_diagnostics<'a>(old: &CatalogSnapshot, new: &'a CatalogSnapshot) -> Vec<&'a Diagnostic> {
    if Arc::ptr_eq(&old.diagnostics, &new.diagnostics) {
        return Vec::new();
    }
    let known: HashSet<&Diagnostic> = old.diagnostics.iter().collect();
    new.diagnostics.iter().filter(|d| !known.contains(d)).collect()
}

/// What changed from `old` to `new`; `touched`, when given, holds every name that may
/// have changed (the others are not compared).
pub(crate) fn diff(
    old: &CatalogSnapshot,
    new: &CatalogSnapshot,
    fresh: &[&Diagnostic],
    touched: Option<&BTreeSet<String>>,
) -> Vec<CatalogChange> {
    // The skills to compare, in the new catalog's order, and the old ones to look for.
    let (new_skills, old_skills): (Vec<&Arc<SkillMetadata>>, Vec<&Arc<SkillMetadata>>) = match touched {
        Some(names) => {
            let mut at: Vec<usize> = names.iter().filter_map(|n| new.position(n)).collect();
            at.sort_unstable();
            let mut was: Vec<usize> = names.iter().filter_map(|n| old.position(n)).collect();
            was.sort_unstable();
            (
                at.into_iter().map(|i| &new.skills[i]).collect(),
                was.into_iter().map(|i| &old.skills[i]).collect(),
            )
        }
        None => (new.skills.iter().collect(), old.skills.iter().collect()),
    };
    // A first discovery adds every skill: sized once, not doubled a dozen times.
    let mut changes = Vec::with_capacity(if old.skills.is_empty() {
        new_skills.len() + fresh.len()
    } else {
        0
    });
    for skill in new_skills {
        let name = &skill.name;
        match old.get(name) {
            None => changes.push(CatalogChange::Added { name: name.clone() }),
            // A skill no change touched is the same allocation in both.
            Some(before)
                if !(std::ptr::eq(before, &**skill) || *before == **skill)
                    || old.source_of(name) != new.source_of(name)
                    || old.resources.get(name) != new.resources.get(name) =>
            {
                changes.push(CatalogChange::Changed { name: name.clone() });
            }
            Some(_) => {}
        }
    }
    for skill in old_skills {
        if new.get(&skill.name).is_none() {
            changes.push(CatalogChange::Removed {
                name: skill.name.clone(),
            });
        }
    }
    let kept: HashSet<&str> = new
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::KeptLastGood)
        .map(|d| d.path.as_str())
        .collect();
    for &diagnostic in fresh {
        if diagnostic.kind == DiagnosticKind::KeptLastGood {
            let name = new
                .skills
                .iter()
                .find(|s| s.path == diagnostic.path)
                .map_or_else(String::new, |s| s.name.clone());
            changes.push(CatalogChange::KeptLastGood {
                name,
                reason: diagnostic.message.clone(),
            });
        } else if diagnostic.severity() >= Severity::Skip && !kept.contains(diagnostic.path.as_str()) {
            changes.push(CatalogChange::Problem(diagnostic.clone()));
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use skills_core::{MemoryBackend, ResourceKind};

    use super::*;

    /// A source's listing of `names`, each with one script under `root`, and resources
    /// of a name it does not list.
    fn listing(root: &str, names: &[&str]) -> Listing {
        let mut listing = skills_core::SkillListing::default();
        for name in names {
            listing
                .skills
                .push(SkillMetadata::new(*name, "d", format!("{root}/{name}/SKILL.md")));
            let resource = ResourceMetadata {
                path: format!("{root}/{name}/scripts/run.sh"),
                kind: ResourceKind::Script,
                skill_name: (*name).to_owned(),
            };
            listing.resources.insert((*name).to_owned(), vec![resource]);
        }
        listing.resources.insert("not-listed".into(), Vec::new());
        listing.into()
    }

    #[test]
    fn each_skill_is_served_with_the_resources_of_the_source_that_serves_it() {
        let backend = Arc::new(MemoryBackend::new());
        let sources: Arc<[SkillSource]> =
            vec![SkillSource::new(backend.clone(), "/a"), SkillSource::new(backend, "/b")].into();
        let error = Diagnostic::new("/b", DiagnosticKind::ListingFailed, "e");
        let listings = vec![
            (Some(listing("/a", &["web", "pdf"])), None),
            (Some(listing("/b", &["web", "sql"])), Some(error.clone())),
        ];
        let snapshot = build_snapshot(&sources, listings, false);
        let names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["web", "pdf", "sql"], "the place a name first appeared");
        assert_eq!(snapshot.skill_sources, [1, 0, 1]);
        let script = |name: &str| snapshot.resources[name][0].path.clone();
        assert_eq!(script("web"), "/b/web/scripts/run.sh", "the later source's");
        assert_eq!(script("pdf"), "/a/pdf/scripts/run.sh");
        assert_eq!(script("sql"), "/b/sql/scripts/run.sh");
        assert!(!snapshot.resources.contains_key("not-listed"));
        assert_eq!(snapshot.shadowed("web")[0].path, "/a/web/SKILL.md");
        assert_eq!(*snapshot.diagnostics(), [error]);
        // One source: its skills and resources as they are.
        let one = build_snapshot(
            &sources[..1].to_vec().into(),
            vec![(Some(listing("/a", &["web"])), None)],
            true,
        );
        assert_eq!(one.get("web").map(|s| s.path.as_str()), Some("/a/web/SKILL.md"));
        assert_eq!(one.resources.keys().collect::<Vec<_>>(), ["web"]);
    }

    #[test]
    fn diagnostics_keep_source_order_and_one_sources_are_shared_as_they_are() {
        let backend = Arc::new(MemoryBackend::new());
        let sources: Arc<[SkillSource]> = (0..3).map(|_| SkillSource::new(backend.clone(), "/s")).collect();
        let said = |p: &&str| Diagnostic::new(*p, DiagnosticKind::NameMismatch, "m");
        let with = |paths: &[&str]| Listing {
            diagnostics: paths.iter().map(said).collect(),
            ..Listing::default()
        };
        let big = with(&["/b/x/SKILL.md", "/b/y/SKILL.md"]);
        let listings = |big: &Listing| vec![(None, None), (Some(big.clone()), None), (Some(with(&[])), None)];
        // The only source with any: not copied; two snapshots sharing it: nothing new.
        let [one, two] = [0, 1].map(|_| build_snapshot(&sources, listings(&big), false));
        assert!(Arc::ptr_eq(&one.diagnostics, &big.diagnostics));
        assert!(one.same_diagnostics(&two) && new_diagnostics(&one, &two).is_empty());
        let other = build_snapshot(&sources, listings(&with(&["/b/x/SKILL.md"])), false);
        assert!(!one.same_diagnostics(&other) && new_diagnostics(&other, &one).len() == 1);
        let error = Some(Diagnostic::new("/a", DiagnosticKind::ListingFailed, "e"));
        let listings = vec![
            (Some(with(&["/z/SKILL.md"])), error),
            (None, None),
            (Some(with(&["/a/SKILL.md", "/b/SKILL.md"])), None),
        ];
        let snapshot = build_snapshot(&sources, listings, false);
        let paths: Vec<&str> = snapshot.diagnostics().iter().map(|d| d.path.as_str()).collect();
        // Each source's, its error after them.
        assert_eq!(paths, ["/z/SKILL.md", "/a", "/a/SKILL.md", "/b/SKILL.md"]);
        let none = build_snapshot(&sources, vec![(None, None)], false);
        assert!(none.diagnostics.is_empty());
    }
}

//! [`Listing`]: one source's skills as the catalog keeps them between reloads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use skills_core::{Diagnostic, DiagnosticKind, ResourceMetadata, Severity, SharedListing, SkillListing, SkillMetadata};

/// A skill's resource files, shared by every snapshot and thread that has them.
pub type SharedResources = Arc<[ResourceMetadata]>;

/// A source's skills, diagnostics and resources as the catalog keeps them: each skill
/// and each skill's resource list behind its own `Arc`, so a new snapshot shares every
/// part a change did not touch (a one-file edit in a source of 10,000 skills copies
/// 10,000 pointers, not 10,000 skills), and a thread's [`skills_core::SkillsState`]
/// shares them with it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing {
    /// Parsed skills, one per name, ordered by path.
    pub(crate) skills: Vec<Arc<SkillMetadata>>,
    /// Skips and warnings of this source, in path order: shared with the snapshots as
    /// they are (a large library has more diagnostics than skills: 96,000 at 40,000).
    pub(crate) diagnostics: Arc<[Diagnostic]>,
    /// Skill folders seen (see [`SkillListing::folders`]).
    pub(crate) folders: usize,
    /// Resource files of each listed skill, by skill name.
    pub(crate) resources: BTreeMap<String, SharedResources>,
}

impl From<SkillListing> for Listing {
    fn from(listing: SkillListing) -> Self {
        Self {
            skills: shared(listing.skills),
            diagnostics: listing.diagnostics.into(),
            folders: listing.folders,
            resources: listing
                .resources
                .into_iter()
                .map(|(name, resources)| (name, resources.into()))
                .collect(),
        }
    }
}

impl From<SharedListing> for Listing {
    fn from(listing: SharedListing) -> Self {
        Self {
            skills: listing.skills,
            diagnostics: listing.diagnostics,
            folders: listing.folders,
            resources: BTreeMap::new(),
        }
    }
}

/// How many skills [`shared`] moves behind `Arc`s before it gives back the room they
/// took in the list.
const SHARE_STEP: usize = 512;

/// `skills`, each behind its own `Arc`, in order.
///
/// Not `into_iter().map(Arc::new).collect()`: until the last skill is moved, that holds
/// every skill twice, in the list and in the `Arc`s, at the top of discovery's peak.
/// Taken from the back a step at a time, with the list shrunk after each step, the
/// `Arc`s reuse the room the list gives back: the heap's peak fell by 1.6 MB on a real
/// source of 12,810 skills (200-odd bytes a skill).
fn shared(mut skills: Vec<SkillMetadata>) -> Vec<Arc<SkillMetadata>> {
    let mut shared = Vec::with_capacity(skills.len());
    while !skills.is_empty() {
        let step = skills.len().saturating_sub(SHARE_STEP);
        shared.extend(skills.drain(step..).rev().map(Arc::new));
        skills.shrink_to_fit();
    }
    shared.reverse();
    shared
}

/// `found` (a new listing) with the last good version of each skill whose file it now
/// skips, from `last_skills`: a broken edit keeps being served as it was, with a
/// `kept-last-good` diagnostic. Skills and diagnostics come out sorted by path.
pub(crate) fn keep_last_good(
    mut found: Listing,
    last_skills: &[Arc<SkillMetadata>],
    last_resources: &BTreeMap<String, SharedResources>,
) -> Listing {
    let kept: Vec<(Arc<SkillMetadata>, Diagnostic)> = {
        // Nothing was served before (a first discovery): nothing to keep, and neither
        // the diagnostics to look through (cold in memory after a large kept listing's
        // decoding) nor a set of every name to build.
        let skipped: Vec<&Diagnostic> = if last_skills.is_empty() {
            Vec::new()
        } else {
            found
                .diagnostics
                .iter()
                // A skill the lock withholds is not an edit to get over: never serve it.
                .filter(|d| d.severity() == Severity::Skip && d.kind != DiagnosticKind::LockMismatch)
                .collect()
        };
        if skipped.is_empty() {
            Vec::new()
        } else {
            let by_path: HashMap<&str, &Arc<SkillMetadata>> =
                last_skills.iter().map(|s| (s.path.as_str(), s)).collect();
            let names: HashSet<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
            skipped
                .into_iter()
                .filter_map(|diagnostic| {
                    let good = by_path.get(diagnostic.path.as_str())?;
                    if names.contains(good.name.as_str()) {
                        return None;
                    }
                    let msg = format!(
                        "serving the last good version of '{}': {}",
                        good.name, diagnostic.message
                    );
                    let note = Diagnostic::new(&diagnostic.path, DiagnosticKind::KeptLastGood, msg);
                    Some((Arc::clone(good), note))
                })
                .collect()
        }
    };
    // Listings come in path order (but for a name a source declares again: the later
    // folder's skill is kept in the place of the first, as the reference keeps a name's
    // first place), so only what is added here needs sorting in (a large kept listing's
    // skills, cold in memory, took 20-40 ms to check at 40,000 skills).
    if kept.is_empty() {
        debug_assert!(found.diagnostics.is_sorted_by(|a, b| a.path <= b.path));
        return found;
    }
    let mut diagnostics = found.diagnostics.to_vec();
    for (skill, note) in kept {
        if let Some(resources) = last_resources.get(&skill.name) {
            found
                .resources
                .entry(skill.name.clone())
                .or_insert_with(|| resources.clone());
        }
        diagnostics.push(note);
        found.skills.push(skill);
    }
    // Stable sorts: the listing is in order but for what was added.
    found.skills.sort_by(|a, b| a.path.cmp(&b.path));
    diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    found.diagnostics = diagnostics.into();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_skills_keep_their_order_over_several_steps() {
        let count = 2 * SHARE_STEP + 7;
        let skills: Vec<SkillMetadata> = (0..count)
            .map(|i| SkillMetadata::new(format!("s{i:05}"), "d", format!("/s/s{i:05}/SKILL.md")))
            .collect();
        let expected: Vec<String> = skills.iter().map(|s| s.name.clone()).collect();
        let shared = shared(skills);
        let names: Vec<String> = shared.iter().map(|s| s.name.clone()).collect();
        assert_eq!(names, expected);
        assert_eq!(shared.capacity(), count, "the list of pointers is sized once");
    }
}

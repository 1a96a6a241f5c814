//! [`Listing`]: one source's skills as the catalog keeps them between reloads.

use std::collections::BTreeMap;
use std::sync::Arc;

use skills_core::{Diagnostic, ResourceMetadata, SkillListing, SkillMetadata};

/// A source's skills, diagnostics and resources as the catalog keeps them: each skill
/// and each skill's resource list behind its own `Arc`, so a new snapshot shares every
/// part a change did not touch (a one-file edit in a source of 10,000 skills copies
/// 10,000 pointers, not 10,000 skills), and a thread's [`skills_core::SkillsState`]
/// shares them with it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing {
    /// Parsed skills, one per name, ordered by path.
    pub(crate) skills: Vec<Arc<SkillMetadata>>,
    /// Skips and warnings of this source, in path order.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Skill folders seen (see [`SkillListing::folders`]).
    pub(crate) folders: usize,
    /// Resource files of each listed skill, by skill name.
    pub(crate) resources: BTreeMap<String, Arc<[ResourceMetadata]>>,
}

impl From<SkillListing> for Listing {
    fn from(listing: SkillListing) -> Self {
        Self {
            skills: listing.skills.into_iter().map(Arc::new).collect(),
            diagnostics: listing.diagnostics,
            folders: listing.folders,
            resources: listing
                .resources
                .into_iter()
                .map(|(name, resources)| (name, resources.into()))
                .collect(),
        }
    }
}

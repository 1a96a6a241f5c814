//! What a [`SkillsMiddleware`](crate::SkillsMiddleware) shares at run time with its
//! clones and its `load_skill` tool, and which snapshot a thread reads.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use skills_catalog::{CatalogSnapshot, PromptSection, SkillCatalog};

use crate::state::{AgentState, StatePart};

/// When a thread sees a new catalog snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReloadPolicy {
    /// Every model and tool call uses the newest snapshot: a skill added mid-session
    /// shows up on the next call, a deleted one disappears (and `load_skill` says it is
    /// not found). The thread's loaded skills are kept.
    #[default]
    Live,
    /// A thread keeps the snapshot it started with until its state is reset
    /// (`skills_metadata` set to `None`), as deepagents does.
    PerThread,
}

/// The snapshot a thread started with, for [`ReloadPolicy::PerThread`].
#[derive(Debug, Clone)]
pub(crate) struct PinnedSnapshot(pub(crate) Arc<CatalogSnapshot>);

impl StatePart for PinnedSnapshot {
    const PRIVATE: bool = true;
}

/// What a [`SkillsMiddleware`], its clones and its `load_skill` tool share at run time:
/// the catalog, the prompt section (with its cache and the allowed-tools policy its
/// wording follows) and the reload policy.
#[derive(Debug)]
pub(crate) struct SkillsRuntime {
    pub(crate) catalog: Arc<SkillCatalog>,
    pub(crate) section: PromptSection,
    pub(crate) reload: ReloadPolicy,
    pub(crate) search: crate::SearchToolPolicy,
}

impl SkillsRuntime {
    /// The snapshot a call of this thread uses.
    pub(crate) async fn snapshot_for(&self, state: &AgentState) -> Arc<CatalogSnapshot> {
        if self.reload == ReloadPolicy::PerThread {
            if let Some(PinnedSnapshot(pinned)) = state.get::<PinnedSnapshot>() {
                return pinned.clone();
            }
        }
        self.catalog.ensure_loaded().await
    }
}

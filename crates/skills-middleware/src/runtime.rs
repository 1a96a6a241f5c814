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
    pub(crate) hooks: Option<Arc<dyn crate::HookRunner>>,
    pub(crate) models: crate::ModelChoice,
    pub(crate) forks: crate::fork::Forks,
    /// Diagnostics of the last snapshot a thread started from, with the
    /// `hooks-ignored` ones added (computed once per catalog version).
    pub(crate) diagnostics: std::sync::Mutex<Option<(u64, Arc<[skills_core::Diagnostic]>)>>,
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

impl SkillsRuntime {
    /// A fresh thread's skills state over `snapshot` with `loaded` skills: the
    /// snapshot's state, plus one `hooks-ignored` warning per skill whose command hooks
    /// no [`HookRunner`](crate::HookRunner) will see.
    pub(crate) fn state_of(&self, snapshot: &CatalogSnapshot, loaded: Vec<String>) -> skills_core::SkillsState {
        let mut state = snapshot.to_state(loaded);
        if self.hooks.is_some() {
            return state;
        }
        let mut cached = self
            .diagnostics
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*cached {
            Some((version, diagnostics)) if *version == snapshot.version() => {
                state.skills_load_errors = diagnostics.clone();
            }
            _ => {
                let ignored: Vec<skills_core::Diagnostic> = snapshot
                    .skills()
                    .iter()
                    .filter(|skill| crate::hooks::has_command_hooks(skill))
                    .map(|skill| {
                        skills_core::Diagnostic::new(
                            &skill.path,
                            skills_core::DiagnosticKind::HooksIgnored,
                            "its command hooks are ignored: this agent has no hook runner (nothing runs them)",
                        )
                    })
                    .collect();
                if !ignored.is_empty() {
                    let all: Arc<[skills_core::Diagnostic]> =
                        state.skills_load_errors.iter().cloned().chain(ignored).collect();
                    state.skills_load_errors = all;
                }
                *cached = Some((snapshot.version(), state.skills_load_errors.clone()));
            }
        }
        state
    }
}

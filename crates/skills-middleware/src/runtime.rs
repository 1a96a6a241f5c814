//! What a [`SkillsMiddleware`](crate::SkillsMiddleware) shares at run time with its
//! clones and its `load_skill` tool, and which snapshot a thread reads.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use skills_catalog::{CatalogSnapshot, PromptSection, Selection, SkillCatalog, ToolSet};

use crate::hooks::{HookRunner, has_command_hooks};
use crate::runner::AgentRunner;
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
    pub(crate) hooks: Option<Arc<dyn HookRunner>>,
    pub(crate) models: ModelChoice,
    pub(crate) forks: Forks,
    /// Diagnostics of the last snapshot a thread started from, with the
    /// `hooks-ignored` ones added (computed once per catalog version).
    pub(crate) diagnostics: std::sync::Mutex<Option<(u64, Arc<[skills_core::Diagnostic]>)>>,
    /// The agent's tools: given to the builder, or those of the latest model call.
    pub(crate) tools: AgentTools,
}

/// The tools the agent has, for skills' tool dependencies.
#[derive(Debug, Default)]
pub(crate) struct AgentTools {
    /// Given to the builder: model calls do not change them.
    pub(crate) fixed: bool,
    /// The tools known now; `None` until the first model call (nothing is unavailable).
    pub(crate) known: std::sync::RwLock<Option<ToolSet>>,
}

impl AgentTools {
    /// The tool set now.
    pub(crate) fn get(&self) -> Option<ToolSet> {
        self.known.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The tool set of a model call offering `names` (kept, shared, while it does not
    /// change); the fixed set if the builder gave one.
    pub(crate) fn seen<'a>(&self, names: impl Iterator<Item = &'a str> + Clone) -> Option<ToolSet> {
        if self.fixed {
            return self.get();
        }
        if let Some(known) = self.get() {
            let same = known.iter().eq({
                let mut sorted: Vec<&str> = names.clone().collect();
                sorted.sort_unstable();
                sorted.dedup();
                sorted
            });
            if same {
                return Some(known);
            }
        }
        let tools = ToolSet::new(names.map(str::to_owned));
        *self.known.write().unwrap_or_else(PoisonError::into_inner) = Some(tools.clone());
        Some(tools)
    }
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

    /// What the agent is offered of `snapshot` (its view, its tools); `None`: every
    /// skill.
    pub(crate) fn selection(&self, snapshot: &CatalogSnapshot) -> Option<Arc<Selection>> {
        self.section.selection(snapshot, self.tools.get().as_ref())
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
                    .filter(|skill| has_command_hooks(skill))
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

/// The default of [`SkillsMiddlewareBuilder::max_fork_depth`](crate::SkillsMiddlewareBuilder::max_fork_depth):
/// a forked skill runs, and a skill it loads may not fork again.
pub const DEFAULT_MAX_FORK_DEPTH: usize = 1;

/// Which agents run forked skills.
#[derive(Debug, Clone)]
pub(crate) struct Forks {
    /// The agent for skills without `agent` (or naming one not configured); `None`: the
    /// agent that called `load_skill`.
    pub default: Option<Arc<dyn AgentRunner>>,
    /// Agents by the name a skill's `agent` field gives.
    pub named: BTreeMap<String, Arc<dyn AgentRunner>>,
    /// How many forks deep a thread may go.
    pub max_depth: usize,
}

impl Default for Forks {
    fn default() -> Self {
        Self {
            default: None,
            named: BTreeMap::new(),
            max_depth: DEFAULT_MAX_FORK_DEPTH,
        }
    }
}

type ModelResolver = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The host's model resolver.
#[derive(Clone)]
pub(crate) struct Resolver(pub(crate) Arc<ModelResolver>);

impl fmt::Debug for Resolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Resolver")
    }
}

/// How a skill's `model` becomes the model of a call.
pub(crate) struct ModelChoice {
    resolve: Option<Resolver>,
    warned: Mutex<HashSet<String>>,
}

impl fmt::Debug for ModelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelChoice")
            .field("resolve", &self.resolve.is_some())
            .finish_non_exhaustive()
    }
}

impl ModelChoice {
    pub(crate) fn new(resolve: Option<Resolver>) -> Self {
        Self {
            resolve,
            warned: Mutex::default(),
        }
    }

    /// The same resolver, with its own memory of the names it warned about.
    pub(crate) fn same_choice(&self) -> Self {
        Self::new(self.resolve.clone())
    }

    /// The model to ask for when a skill wants `requested`; `None` keeps the thread's
    /// model, with a warning the first time a name is refused.
    pub(crate) fn choose(&self, requested: &str) -> Option<String> {
        let chosen = self.resolve.as_ref().and_then(|resolve| (resolve.0)(requested));
        if chosen.is_none() {
            let mut warned = self.warned.lock().unwrap_or_else(PoisonError::into_inner);
            if warned.len() < 1024 && warned.insert(requested.to_owned()) {
                tracing::warn!(
                    model = requested,
                    "a loaded skill asks for an unknown model; keeping the thread's model"
                );
            }
        }
        chosen
    }
}

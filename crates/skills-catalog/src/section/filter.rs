//! A [`PromptSection`]'s settings (use counts, its view, the agent's tools, how
//! unavailable skills are shown) and the selection they make of a snapshot (kept per
//! snapshot version and tool set).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};

use dashmap::DashMap;

use super::PromptSection;
use crate::budget::{CatalogBudget, UseCounts};
use crate::select::{Selection, SkillFilter, SkillView, ToolSet};
use crate::snapshot::CatalogSnapshot;

/// Tool sets whose selection is kept at most (per snapshot version).
const MAX_CACHED_SELECTIONS: usize = 16;

impl PromptSection {
    /// Lists only `view`'s skills (and what they depend on); `None` lists every skill.
    pub fn with_view(mut self, view: Option<Arc<SkillView>>) -> Self {
        self.filter.view = view;
        self.cache.clear();
        self.costs = Mutex::new(Vec::new());
        self
    }

    /// The tools of the agent the section is for, when they do not change between
    /// calls (`skills prompt --available-tools`): skills needing others are left out (or
    /// marked, see [`show_unavailable`](Self::show_unavailable)). The `_for` methods
    /// take a tool set per call instead.
    pub fn with_tools(mut self, tools: Option<ToolSet>) -> Self {
        self.filter.tools = tools;
        self.cache.clear();
        self.costs = Mutex::new(Vec::new());
        self
    }

    /// Lists skills whose tools the agent lacks, marked unavailable (with the tools),
    /// instead of leaving them out.
    pub fn show_unavailable(mut self, show: bool) -> Self {
        self.filter.show_unavailable = show;
        self.cache.clear();
        self.costs = Mutex::new(Vec::new());
        self
    }

    /// Entries name the tools each skill needs, marked as not checked: for a face that
    /// does not know its agent's tools (an MCP server), which lists every skill.
    pub fn with_unchecked_tools(mut self, unchecked: bool) -> Self {
        self.unchecked_tools = unchecked;
        self.cache.clear();
        self.costs = Mutex::new(Vec::new());
        self
    }

    /// A section like this one (sources, policy, template, budget, use counts, tool
    /// settings) that lists `view`'s skills, with a cache of its own: for a subagent on
    /// the same catalog.
    pub fn with_other_view(&self, view: Option<Arc<SkillView>>) -> Self {
        Self {
            locations: self.locations.clone(),
            source_paths: self.source_paths.clone(),
            policy: self.policy,
            template: self.template.clone(),
            budget: self.budget.clone(),
            uses: self.uses.clone(),
            filter: SkillFilter {
                view,
                ..self.filter.clone()
            },
            unchecked_tools: self.unchecked_tools,
            cache: DashMap::new(),
            costs: Mutex::new(Vec::new()),
            selections: Mutex::new(Vec::new()),
            newest: AtomicU64::new(0),
            renders: AtomicU64::new(0),
        }
    }

    /// The view the section lists, if any.
    pub fn view(&self) -> Option<&Arc<SkillView>> {
        self.filter.view.as_ref()
    }

    /// What the section offers of `snapshot` to an agent with `tools` (the section's
    /// own tool set when `None`): `None` when it offers every skill. Cached with the
    /// snapshot.
    pub fn selection(&self, snapshot: &CatalogSnapshot, tools: Option<&ToolSet>) -> Option<Arc<Selection>> {
        let mut filter = self.filter.clone();
        if let Some(tools) = tools {
            filter.tools = Some(tools.clone());
        }
        if filter.is_everything() {
            return None;
        }
        let version = snapshot.version();
        let mut cached = self.selections.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, _, found)) = cached.iter().find(|(v, t, _)| *v == version && *t == filter.tools) {
            return Some(Arc::clone(found));
        }
        let selection = Arc::new(Selection::of(snapshot, &filter));
        cached.retain(|(v, _, _)| *v == version);
        if cached.len() >= MAX_CACHED_SELECTIONS {
            cached.clear();
        }
        cached.push((version, filter.tools, Arc::clone(&selection)));
        Some(selection)
    }

    /// Ranks skills by these use counts when the budget shortens entries (a catalog's
    /// [`use_counts`](crate::SkillCatalog::use_counts)). The counts are read when a
    /// section is rendered, so a cached section does not change with every use.
    pub fn with_use_counts(mut self, uses: Arc<UseCounts>) -> Self {
        self.uses = Some(uses);
        self.cache.clear();
        self
    }

    /// The budget the skills list is kept within.
    pub fn budget(&self) -> &CatalogBudget {
        &self.budget
    }

    /// The use counts the list ranks skills by, when it has them.
    pub fn use_counts(&self) -> Option<&UseCounts> {
        self.uses.as_deref()
    }
}

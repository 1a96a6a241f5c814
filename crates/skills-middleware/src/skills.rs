//! `SkillsMiddleware`: discovery into state, the prompt section, `load_skill` and the
//! allowed-tools policy.

use std::sync::Arc;

use async_trait::async_trait;
use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, CatalogEvent, PromptSection, PromptTemplate, SkillCatalog, SkillSource,
    TemplateError, WatchError, WatchHandle, check_allowed_tools,
};
use skills_core::{BackendProtocol, DiscoveryLimits, SkillsState};

use crate::load_skill::LoadSkillTool;
use crate::message::ToolMessage;
use crate::middleware::{
    AgentError, AgentMiddleware, ModelNext, ModelRequest, ModelResponse, ToolCallRequest, ToolNext,
};
use crate::runtime::{PinnedSnapshot, ReloadPolicy, SkillsRuntime};
use crate::search_skills::{SEARCH_SKILLS, SearchSkillsTool, SearchToolPolicy};
use crate::state::{AgentState, StateUpdate};
use crate::tool::{Tool, ToolOutput};

/// Why a [`SkillsMiddleware`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No source was given.
    #[error("a skills middleware needs at least one source")]
    NoSources,
    /// A source path breaks the backend path rules.
    #[error("invalid skill source path {path}: {reason}")]
    InvalidSourcePath {
        /// The path as given.
        path: String,
        /// Why it was refused.
        reason: String,
    },
    /// The prompt template lacks a slot.
    #[error(transparent)]
    Template(#[from] TemplateError),
}

/// Agent Skills for any agent loop that speaks this crate's [`AgentMiddleware`]
/// contract: deepagents' `SkillsMiddleware` with its V2 design.
///
/// - `before_agent`: when the thread's [`SkillsState`] has no catalog
///   (`skills_metadata` is `None`, also after a reset), discovers every source, merges
///   them by name (the last source wins), scans each skill's `scripts/`, `references/`
///   and `assets/` (one level) and other root files, clears `skills_loaded` and records
///   every problem in `skills_load_errors`. Otherwise it does nothing.
/// - `wrap_model_call`: appends the skills section to the system message (sources,
///   skills with `[Loaded]`, recommended tools, resource counts, `load_skill` guidance,
///   load warnings as escaped untrusted data).
/// - `tools`: [`load_skill`](crate::LoadSkillTool), and [`search_skills`](crate::SearchSkillsTool)
///   on the calls whose skills list the budget cut (see [`SearchToolPolicy`]).
/// - `wrap_tool_call`: applies the [`AllowedToolsPolicy`](skills_catalog::AllowedToolsPolicy).
///
/// The skills part of the state is private: a subagent starts without it and discovers
/// for itself, and what it loads never reaches its parent.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_core::MemoryBackend;
/// use skills_catalog::{AllowedToolsPolicy, SkillSource};
/// use skills_middleware::SkillsMiddleware;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/skills/base/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
/// let skills = SkillsMiddleware::builder()
///     .source(SkillSource::new(backend.clone(), "/skills/base"))
///     .source(SkillSource::new(backend, "/skills/project").with_label("Project"))
///     .allowed_tools_policy(AllowedToolsPolicy::Recommend)
///     .build()?;
/// let state = skills.discover().await;
/// assert_eq!(state.skills_metadata.unwrap()[0].name, "web");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SkillsMiddleware {
    runtime: Arc<SkillsRuntime>,
}

/// Builds a [`SkillsMiddleware`].
#[derive(Debug, Default)]
pub struct SkillsMiddlewareBuilder {
    sources: Vec<SkillSource>,
    policy: AllowedToolsPolicy,
    reload: ReloadPolicy,
    template: Option<String>,
    limits: DiscoveryLimits,
    budget: Option<CatalogBudget>,
    search: SearchToolPolicy,
    lazy_resources: bool,
}

impl SkillsMiddlewareBuilder {
    /// Adds a source; sources are given in priority order (the last one wins).
    pub fn source(mut self, source: SkillSource) -> Self {
        self.sources.push(source);
        self
    }

    /// Adds several sources of one backend, in priority order.
    pub fn paths<P: Into<String>>(
        mut self,
        backend: Arc<dyn BackendProtocol>,
        paths: impl IntoIterator<Item = P>,
    ) -> Self {
        for path in paths {
            self.sources.push(SkillSource::new(backend.clone(), path));
        }
        self
    }

    /// How `allowed-tools` is applied (default [`AllowedToolsPolicy::Recommend`]).
    pub fn allowed_tools_policy(mut self, policy: AllowedToolsPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// When threads see catalog changes (default [`ReloadPolicy::Live`]).
    pub fn reload_policy(mut self, policy: ReloadPolicy) -> Self {
        self.reload = policy;
        self
    }

    /// Bounds on each source's discovery (default [`DiscoveryLimits::default`]): skills
    /// per source, entries per directory, bytes read, files per read batch.
    pub fn limits(mut self, limits: DiscoveryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Keeps the skills list of the system prompt within `budget` (see
    /// [`CatalogBudget`]: shorter entries for the least used skills, loaded and pinned
    /// skills always in full). Default: [`CatalogBudget::default`], 8,000 characters;
    /// [`CatalogBudget::unlimited`] lists every skill in full however many there are.
    pub fn catalog_budget(mut self, budget: CatalogBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Lists a skill's resources only when something needs them: a full entry of the
    /// skills list, `load_skill` (default: no, discovery lists every skill's resources,
    /// as V2 does). On a large library with a budget this spares a walk of every skill
    /// folder; the entries and `load_skill` answers read the same.
    pub fn lazy_resources(mut self, lazy: bool) -> Self {
        self.lazy_resources = lazy;
        self
    }

    /// When the `search_skills` tool is offered (default
    /// [`SearchToolPolicy::WhenCut`]: on model calls whose skills list the budget cut).
    pub fn search_tool(mut self, policy: SearchToolPolicy) -> Self {
        self.search = policy;
        self
    }

    /// Replaces the prompt section template; it must contain `{skills_locations}` and
    /// `{skills_list}` (checked by [`build`](Self::build)).
    pub fn system_prompt_template(mut self, template: impl Into<String>) -> Self {
        self.template = Some(template.into());
        self
    }

    /// Checks the sources and the template and builds the middleware.
    pub fn build(self) -> Result<SkillsMiddleware, BuildError> {
        if self.sources.is_empty() {
            return Err(BuildError::NoSources);
        }
        let sources = self
            .sources
            .into_iter()
            .map(|source| {
                source.normalized().map_err(|e| BuildError::InvalidSourcePath {
                    path: e.path,
                    reason: e.reason,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let template = match self.template {
            Some(text) => PromptTemplate::new(text)?,
            None => PromptTemplate::default(),
        };
        let section = PromptSection::new(&sources, self.policy, template);
        let catalog = Arc::new(
            SkillCatalog::new(sources)
                .with_limits(self.limits)
                .with_lazy_resources(self.lazy_resources),
        );
        Ok(SkillsMiddleware {
            runtime: Arc::new(SkillsRuntime {
                section: section
                    .with_budget(self.budget.unwrap_or_default())
                    .with_use_counts(catalog.use_counts()),
                catalog,
                reload: self.reload,
                search: self.search,
            }),
        })
    }
}

impl SkillsMiddleware {
    /// Starts a builder.
    pub fn builder() -> SkillsMiddlewareBuilder {
        SkillsMiddlewareBuilder::default()
    }

    /// A middleware over several paths of one backend, in priority order, with the
    /// default policy and template (deepagents' `SkillsMiddleware(backend=, sources=)`).
    pub fn new<P: Into<String>>(
        backend: Arc<dyn BackendProtocol>,
        paths: impl IntoIterator<Item = P>,
    ) -> Result<Self, BuildError> {
        Self::builder().paths(backend, paths).build()
    }

    /// The sources, in priority order.
    pub fn sources(&self) -> &[SkillSource] {
        self.runtime.catalog.sources()
    }

    /// The allowed-tools policy.
    pub fn allowed_tools_policy(&self) -> AllowedToolsPolicy {
        self.runtime.section.policy()
    }

    /// The reload policy.
    pub fn reload_policy(&self) -> ReloadPolicy {
        self.runtime.reload
    }

    /// The catalog shared by every thread of this middleware (and its clones).
    pub fn catalog(&self) -> &Arc<SkillCatalog> {
        &self.runtime.catalog
    }

    /// Rediscovers every source now (incrementally); for backends without a watcher.
    /// Returns what changed, or `None` when nothing did.
    pub async fn reload(&self) -> Option<CatalogEvent> {
        self.runtime.catalog.reload().await
    }

    /// Reloads on change notifications from every watchable source until the handle is
    /// dropped; see [`SkillCatalog::watch`].
    pub fn watch(&self) -> Result<WatchHandle, WatchError> {
        self.runtime.catalog.watch()
    }

    /// How many times the prompt section was rendered (a cached section is not).
    pub fn section_renders(&self) -> u64 {
        self.runtime.section.renders()
    }

    /// The catalog as a fresh thread's skills state (nothing loaded), discovering every
    /// source first if this middleware's catalog never did. A source that fails becomes a
    /// diagnostic; discovery itself never fails.
    pub async fn discover(&self) -> SkillsState {
        self.runtime.catalog.ensure_loaded().await.to_state(Vec::new())
    }

    /// The skills section for a thread's state, rendered from that state (what
    /// `wrap_model_call` appends, which renders from the catalog snapshot the thread
    /// uses and caches the result). A state without skills renders the empty-library
    /// message.
    pub fn render_section(&self, state: Option<&SkillsState>) -> String {
        match state {
            Some(state) => self.runtime.section.render_state(state),
            None => self.runtime.section.render_state(&SkillsState::default()),
        }
    }
}

#[async_trait]
impl AgentMiddleware for SkillsMiddleware {
    fn name(&self) -> &str {
        "skills"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(LoadSkillTool::new(self.runtime.clone()))];
        if self.runtime.search != SearchToolPolicy::Never {
            tools.push(Arc::new(SearchSkillsTool::new(self.runtime.clone())));
        }
        tools
    }

    async fn before_agent(&self, state: &AgentState) -> Result<Option<StateUpdate>, AgentError> {
        let catalog = &self.runtime.catalog;
        let snapshot = match state.get::<SkillsState>() {
            Some(skills) if skills.skills_metadata.is_some() => return Ok(None),
            // deepagents' reload contract: a catalog reset to None asks for rediscovery.
            Some(_) => {
                catalog.reload().await;
                catalog.snapshot()
            }
            None => catalog.ensure_loaded().await,
        };
        let update = StateUpdate::new()
            .with(snapshot.to_state(Vec::new()))
            .with(PinnedSnapshot(snapshot));
        Ok(Some(update))
    }

    async fn wrap_model_call(
        &self,
        mut request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        let snapshot = self.runtime.snapshot_for(request.state).await;
        let loaded = request.state.get::<SkillsState>().map_or(&[][..], |s| &s.skills_loaded);
        let (section, complete) = self.runtime.section.render_fetching(&snapshot, loaded).await;
        request.append_system(&section);
        let offered = match self.runtime.search {
            SearchToolPolicy::WhenCut => !complete,
            SearchToolPolicy::Always => true,
            SearchToolPolicy::Never => false,
        };
        if offered {
            // The model is about to be offered search_skills: build its index meanwhile.
            self.runtime.catalog.warm_search();
        }
        if complete && self.runtime.search == SearchToolPolicy::WhenCut {
            // Every skill is in the list: the model has nothing to search for.
            request.tools.to_mut().retain(|tool| tool.name != SEARCH_SKILLS);
        }
        next.run(request).await
    }

    async fn wrap_tool_call(&self, request: ToolCallRequest<'_>, next: ToolNext<'_>) -> ToolOutput {
        if self.runtime.section.policy() == AllowedToolsPolicy::Recommend {
            return next.run(request).await;
        }
        let snapshot = self.runtime.snapshot_for(request.state).await;
        let loaded = request.state.get::<SkillsState>().map_or(&[][..], |s| &s.skills_loaded);
        let skills = loaded.iter().filter_map(|name| snapshot.get(name));
        match check_allowed_tools(self.runtime.section.policy(), &request.call.name, skills) {
            None => next.run(request).await,
            Some(message) => ToolOutput::Message(ToolMessage::error(&request.call.id, message)),
        }
    }
}

//! `SkillsMiddleware`: discovery into state, the prompt section, `load_skill` and the
//! allowed-tools policy.

use std::sync::Arc;

use async_trait::async_trait;
use skills_catalog::{
    AllowedToolsPolicy, CatalogEvent, SkillCatalog, SkillSource, SkillView, WatchError, WatchHandle, check_tool_call,
};
use skills_core::{HookEvent, SkillsState};

use crate::fork::active_skills;
use crate::hooks::{HookSite, SkillHooksState, prompt_section};
use crate::load_skill::LoadSkillTool;
use crate::message::ToolMessage;
use crate::middleware::{
    AgentError, AgentMiddleware, ModelNext, ModelRequest, ModelResponse, ToolCallRequest, ToolNext,
};
use crate::runtime::{PinnedSnapshot, ReloadPolicy, SkillsRuntime};
use crate::search_skills::{SEARCH_SKILLS, SearchSkillsTool, SearchToolPolicy};
use crate::state::{AgentState, StateUpdate};
use crate::tool::{Command, Tool, ToolOutput};

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
/// - `wrap_tool_call`: applies the [`AllowedToolsPolicy`](skills_catalog::AllowedToolsPolicy)
///   and the loaded skills' `disallowed-tools`, and fires their `PreToolUse` and
///   `PostToolUse` hooks.
/// - `after_agent`: fires the loaded skills' `Stop` hooks.
///
/// While a skill with `model` (or `effort`) is loaded, model calls ask for it (the last
/// loaded wins; see [`SkillsMiddlewareBuilder::resolve_model`](crate::SkillsMiddlewareBuilder::resolve_model)). A skill with
/// `disable-model-invocation` is neither listed nor loadable by the model: the host
/// activates it with [`SkillsMiddleware::activate`].
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

impl SkillsMiddleware {
    pub(crate) fn from_runtime(runtime: Arc<SkillsRuntime>) -> Self {
        Self { runtime }
    }

    pub(crate) fn runtime(&self) -> &Arc<SkillsRuntime> {
        &self.runtime
    }

    /// A middleware for a subagent that offers only `view`'s skills (and those they
    /// depend on), on this middleware's catalog: one discovery, one reload, one search
    /// index for both; its own prompt section and its own tools (those its model calls
    /// offer). Everything else (policy, budget, hooks, models, forks) as here.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use skills_catalog::SkillView;
    /// use skills_core::MemoryBackend;
    /// use skills_middleware::SkillsMiddleware;
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
    /// backend.insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDFs\n---\n")?;
    /// let main = SkillsMiddleware::builder().paths(backend, ["/skills"]).build()?;
    /// let researcher = main.with_view(SkillView::new("research").include(["web"])?);
    /// assert!(Arc::ptr_eq(main.catalog(), researcher.catalog()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn with_view(&self, view: SkillView) -> Self {
        let runtime = &self.runtime;
        Self::from_runtime(Arc::new(SkillsRuntime {
            catalog: Arc::clone(&runtime.catalog),
            section: runtime.section.with_other_view(Some(Arc::new(view))),
            reload: runtime.reload,
            search: runtime.search,
            hooks: runtime.hooks.clone(),
            models: runtime.models.same_choice(),
            forks: runtime.forks.clone(),
            diagnostics: std::sync::Mutex::default(),
            tools: crate::runtime::AgentTools::default(),
        }))
    }

    /// The view this middleware offers, if any.
    pub fn view(&self) -> Option<&SkillView> {
        self.runtime.section.view().map(|v| &**v)
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
        self.runtime
            .state_of(&*self.runtime.catalog.ensure_loaded().await, Vec::new())
    }

    /// The skills section of the system prompt for a thread's state: the text
    /// `wrap_model_call` appends to every model request of that thread (sources, one
    /// entry per skill within the budget, `[Loaded]` on the loaded ones, the
    /// `load_skill` guidance, load warnings). It is rendered from the state alone;
    /// `wrap_model_call` renders the same text from the catalog snapshot the thread
    /// uses and caches it per (catalog version, loaded set). A state without skills
    /// (or `None`) renders the empty-library message. The type is that of
    /// [`PromptSection::render`](skills_catalog::PromptSection::render).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use skills_core::MemoryBackend;
    /// use skills_middleware::SkillsMiddleware;
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
    /// let skills = SkillsMiddleware::builder().paths(backend, ["/skills"]).build()?;
    /// let state = skills.discover().await;
    /// let section = skills.render_section(Some(&state));
    /// assert!(section.contains("**web**: Search the web"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn render_section(&self, state: Option<&SkillsState>) -> Arc<str> {
        let Some(state) = state else {
            return self.runtime.section.render_state(&SkillsState::default()).into();
        };
        // The skills this agent is offered (its view, its tools), as `wrap_model_call`
        // lists them.
        let snapshot = self.runtime.catalog.snapshot();
        match (self.runtime.selection(&snapshot), &state.skills_metadata) {
            (Some(selection), Some(skills)) => {
                let offered = |s: &&Arc<skills_core::SkillMetadata>| {
                    snapshot.get(&s.name).is_none() || selection.offers(&snapshot, &s.name)
                };
                let mut shown = state.clone();
                shown.skills_metadata = Some(skills.iter().filter(offered).cloned().collect());
                self.runtime.section.render_state(&shown).into()
            }
            _ => self.runtime.section.render_state(state).into(),
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
            .with(self.runtime.state_of(&snapshot, Vec::new()))
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
        let tools = self.runtime.tools.seen(request.tools.iter().map(|t| t.name.as_str()));
        let section = &self.runtime.section;
        let (section, complete) = section.render_fetching_for(&snapshot, loaded, tools.as_ref()).await;
        request.append_system(&section);
        if !loaded.is_empty() {
            let active = active_skills(&snapshot, request.state);
            // The last loaded skill that names a model (or an effort) wins.
            let extensions = active.iter().rev().filter_map(|s| s.extensions());
            if let Some(model) = extensions.clone().find_map(|e| e.model.as_deref())
                && let Some(chosen) = self.runtime.models.choose(model)
            {
                request.model = Some(chosen);
            }
            if let Some(effort) = extensions.clone().find_map(|e| e.effort.as_deref()) {
                request.effort = Some(effort.to_owned());
            }
        }
        if let Some(notes) = prompt_section(request.state) {
            request.append_system(&notes);
        }
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
        let state = request.state;
        if state.get::<SkillsState>().is_none_or(|s| s.skills_loaded.is_empty()) {
            // No skill loaded: no rule and no hook applies.
            return next.run(request).await;
        }
        let snapshot = self.runtime.snapshot_for(state).await;
        let active = active_skills(&snapshot, state);
        let call = &request.call;
        if let Some(message) = check_tool_call(
            self.runtime.section.policy(),
            &call.name,
            &call.args,
            active.iter().copied(),
        ) {
            return ToolOutput::Message(ToolMessage::error(&call.id, message));
        }
        if !has_hooks(&active) {
            return next.run(request).await;
        }
        let call = request.call.clone();
        let mut hooks = state.get::<SkillHooksState>().cloned().unwrap_or_default();
        let mut site = HookSite {
            hooks: &mut hooks,
            state,
            runner: self.runtime.hooks.as_deref(),
        };
        let (before, blocked) = site.fire(HookEvent::PreToolUse, &active, Some(&call), None).await;
        let (output, after) = match blocked {
            Some(reason) => (ToolOutput::Message(ToolMessage::error(&call.id, reason)), false),
            None => {
                let output = next.run(request).await;
                let text = output.tool_message(&call.id).map(|m| m.content.clone());
                let (after, _) = site
                    .fire(HookEvent::PostToolUse, &active, Some(&call), text.as_deref())
                    .await;
                (output, after)
            }
        };
        if !(before || after) {
            return output;
        }
        match output {
            ToolOutput::Message(message) => ToolOutput::Command(Command {
                update: StateUpdate::new().with(hooks),
                messages: vec![crate::Message::Tool(message)],
            }),
            ToolOutput::Command(command) => ToolOutput::Command(Command {
                update: command.update.with(hooks),
                messages: command.messages,
            }),
        }
    }

    async fn after_agent(&self, state: &AgentState) -> Result<Option<StateUpdate>, AgentError> {
        if state.get::<SkillsState>().is_none_or(|s| s.skills_loaded.is_empty()) {
            return Ok(None);
        }
        let snapshot = self.runtime.snapshot_for(state).await;
        let active = active_skills(&snapshot, state);
        if !has_hooks(&active) {
            return Ok(None);
        }
        let mut hooks = state.get::<SkillHooksState>().cloned().unwrap_or_default();
        let mut site = HookSite {
            hooks: &mut hooks,
            state,
            runner: self.runtime.hooks.as_deref(),
        };
        let (changed, _) = site.fire(HookEvent::Stop, &active, None, None).await;
        Ok(changed.then(|| StateUpdate::new().with(hooks)))
    }
}

/// Whether any of `skills` declares a hook (most threads: none, and their tool calls
/// copy no hooks state).
fn has_hooks(skills: &[&skills_core::SkillMetadata]) -> bool {
    skills
        .iter()
        .any(|s| s.extensions().is_some_and(|e| !e.hooks.is_empty()))
}

//! `SkillsMiddleware`: discovery into state, the prompt section, `load_skill` and the
//! allowed-tools policy.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use skills_core::{
    BackendProtocol, Diagnostic, Severity, SkillMetadata, SkillsState, discover_source, merge_last_wins, path,
};
use tracing::{debug, warn};

use crate::load_skill::LoadSkillTool;
use crate::message::ToolMessage;
use crate::middleware::{
    AgentError, AgentMiddleware, ModelNext, ModelRequest, ModelResponse, ToolCallRequest, ToolNext,
};
use crate::policy::{AllowedToolsPolicy, check_allowed_tools};
use crate::prompt::{
    ListContext, PromptTemplate, SourceLocation, TemplateError, default_label, format_load_warnings,
    format_skills_list, format_skills_locations,
};
use crate::state::{AgentState, StateUpdate};
use crate::tool::{Tool, ToolOutput};

/// One place skills come from: a directory inside a backend, with an optional label for
/// the prompt (default: the directory's name, capitalized).
#[derive(Debug, Clone)]
pub struct SkillSource {
    backend: Arc<dyn BackendProtocol>,
    path: String,
    label: Option<String>,
}

impl SkillSource {
    /// The skills under `path` of `backend`.
    pub fn new(backend: Arc<dyn BackendProtocol>, path: impl Into<String>) -> Self {
        Self {
            backend,
            path: path.into(),
            label: None,
        }
    }

    /// Sets the label shown in the prompt (`Team` gives `**Team Skills**`).
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The source path (normalized once the middleware is built).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The label shown in the prompt.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| default_label(&self.path))
    }

    /// The backend the source is read through.
    pub fn backend(&self) -> &Arc<dyn BackendProtocol> {
        &self.backend
    }
}

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

/// What the middleware and its tool share.
#[derive(Debug)]
pub(crate) struct SkillsConfig {
    sources: Vec<SkillSource>,
    labels: Vec<String>,
    policy: AllowedToolsPolicy,
    template: PromptTemplate,
}

impl SkillsConfig {
    /// The backend to read the skill `name` (at `skill_path`) through: its recorded
    /// source's, or else the last source whose directory holds the path.
    pub(crate) fn backend_for(
        &self,
        name: &str,
        skill_path: &str,
        state: &SkillsState,
    ) -> Option<&dyn BackendProtocol> {
        let recorded = state.skill_sources.get(name).and_then(|&i| self.sources.get(i));
        let source = recorded.or_else(|| self.sources.iter().rev().find(|s| path::is_within(skill_path, &s.path)))?;
        Some(&*source.backend)
    }
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
/// - `tools`: [`load_skill`](crate::LoadSkillTool).
/// - `wrap_tool_call`: applies the [`AllowedToolsPolicy`].
///
/// The skills part of the state is private: a subagent starts without it and discovers
/// for itself, and what it loads never reaches its parent.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_core::MemoryBackend;
/// use skills_middleware::{AllowedToolsPolicy, SkillsMiddleware, SkillSource};
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
    config: Arc<SkillsConfig>,
}

/// Builds a [`SkillsMiddleware`].
#[derive(Debug, Default)]
pub struct SkillsMiddlewareBuilder {
    sources: Vec<SkillSource>,
    policy: AllowedToolsPolicy,
    template: Option<String>,
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
        let mut sources = self.sources;
        for source in &mut sources {
            source.path = path::normalize(&source.path).map_err(|e| BuildError::InvalidSourcePath {
                path: source.path.clone(),
                reason: e.to_string(),
            })?;
        }
        let template = match self.template {
            Some(text) => PromptTemplate::new(text)?,
            None => PromptTemplate::default(),
        };
        let labels = sources.iter().map(SkillSource::label).collect();
        Ok(SkillsMiddleware {
            config: Arc::new(SkillsConfig {
                sources,
                labels,
                policy: self.policy,
                template,
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
        &self.config.sources
    }

    /// The allowed-tools policy.
    pub fn allowed_tools_policy(&self) -> AllowedToolsPolicy {
        self.config.policy
    }

    /// Discovers every source and returns a fresh skills state: merged skills, their
    /// resources and sources, every diagnostic, nothing loaded. A source that fails
    /// becomes a diagnostic; discovery itself never fails.
    pub async fn discover(&self) -> SkillsState {
        let mut state = SkillsState::default();
        let mut per_source = Vec::with_capacity(self.config.sources.len());
        let mut resources = Vec::with_capacity(self.config.sources.len());
        for source in &self.config.sources {
            match discover_source(&*source.backend, &source.path).await {
                Ok(found) => {
                    state.skills_load_errors.extend(found.listing.diagnostics);
                    per_source.push(found.listing.skills);
                    resources.push(found.resources);
                }
                Err(error) => {
                    state.skills_load_errors.push(error.to_diagnostic());
                    per_source.push(Vec::new());
                    resources.push(BTreeMap::new());
                }
            }
        }
        let merged = merge_last_wins(per_source);
        let mut skills: Vec<SkillMetadata> = Vec::with_capacity(merged.len());
        for entry in merged {
            let name = entry.skill.name.clone();
            if let Some(found) = resources[entry.source].remove(&name) {
                state.skill_resources.insert(name.clone(), found);
            }
            state.skill_sources.insert(name, entry.source);
            skills.push(entry.skill);
        }
        state.skills_metadata = Some(skills);
        log_diagnostics(&state.skills_load_errors);
        state
    }

    /// The skills section for a thread's state (what `wrap_model_call` appends). A state
    /// without skills renders the empty-library message.
    pub fn render_section(&self, state: Option<&SkillsState>) -> String {
        let empty = SkillsState::default();
        let state = state.unwrap_or(&empty);
        let locations: Vec<SourceLocation<'_>> = self
            .config
            .sources
            .iter()
            .zip(&self.config.labels)
            .map(|(source, label)| SourceLocation {
                label,
                path: &source.path,
            })
            .collect();
        let source_paths: Vec<&str> = self.config.sources.iter().map(|s| s.path.as_str()).collect();
        let ctx = ListContext {
            loaded: &state.skills_loaded,
            resources: &state.skill_resources,
            policy: self.config.policy,
            source_paths: &source_paths,
        };
        let mut list = format_skills_list(state.skills_metadata.as_deref().unwrap_or_default(), &ctx);
        if let Some(warnings) = format_load_warnings(&state.skills_load_errors) {
            list.push_str("\n\n");
            list.push_str(&warnings);
        }
        self.config.template.render(&format_skills_locations(&locations), &list)
    }
}

fn log_diagnostics(diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        match d.severity() {
            Severity::Warning => debug!(path = %d.path, kind = %d.kind, "{}", d.message),
            Severity::Skip | Severity::Error => warn!(path = %d.path, kind = %d.kind, "{}", d.message),
        }
    }
}

#[async_trait]
impl AgentMiddleware for SkillsMiddleware {
    fn name(&self) -> &str {
        "skills"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(LoadSkillTool::new(self.config.clone()))]
    }

    async fn before_agent(&self, state: &AgentState) -> Result<Option<StateUpdate>, AgentError> {
        if state.get::<SkillsState>().is_some_and(|s| s.skills_metadata.is_some()) {
            return Ok(None);
        }
        Ok(Some(StateUpdate::new().with(self.discover().await)))
    }

    async fn wrap_model_call(
        &self,
        mut request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        let section = self.render_section(request.state.get::<SkillsState>());
        request.append_system(&section);
        next.run(request).await
    }

    async fn wrap_tool_call(&self, request: ToolCallRequest<'_>, next: ToolNext<'_>) -> ToolOutput {
        let state = request.state.get::<SkillsState>();
        match check_allowed_tools(self.config.policy, &request.call.name, state) {
            None => next.run(request).await,
            Some(message) => ToolOutput::Message(ToolMessage::error(&request.call.id, message)),
        }
    }
}

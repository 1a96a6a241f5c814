//! Building a [`SkillsMiddleware`]: sources, policies, budget, and the hosts' hooks for
//! the skill fields beyond the specification (model choice, hook runner, fork agents).

use std::sync::{Arc, Mutex};

use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, PromptSection, PromptTemplate, SkillCatalog, SkillSource, SkillView,
    TemplateError, ToolSet,
};
use skills_core::{BackendProtocol, DiscoveryLimits};

use crate::hooks::HookRunner;
use crate::runner::AgentRunner;
use crate::runtime::{AgentTools, Forks, ModelChoice, ReloadPolicy, Resolver, SkillsRuntime};
use crate::search_skills::SearchToolPolicy;
use crate::skills::SkillsMiddleware;

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
    hooks: Option<Arc<dyn HookRunner>>,
    models: Option<Resolver>,
    lock: Option<skills_catalog::lock::Lock>,
    forks: Forks,
    view: Option<SkillView>,
    tools: Option<ToolSet>,
    show_unavailable: bool,
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

    /// Serves only what `lock` pins (`skills.lock`, see
    /// [`SkillCatalog::with_lock`]): a skill whose files differ from the lock, or that
    /// the lock does not name, is withheld with a `lock-mismatch` diagnostic, and
    /// `load_skill` refuses a `SKILL.md` changed after discovery.
    pub fn lock(mut self, lock: skills_catalog::lock::Lock) -> Self {
        self.lock = Some(lock);
        self
    }

    /// Hands the skills' command hooks to `runner` (default: none; command hooks are
    /// ignored with one `hooks-ignored` diagnostic per skill). Nothing here runs them.
    pub fn hook_runner(mut self, runner: Arc<dyn HookRunner>) -> Self {
        self.hooks = Some(runner);
        self
    }

    /// Decides which model a loaded skill's `model` field runs on: `resolve` gets the
    /// name the skill wrote and returns the model to ask for, or `None` to keep the
    /// thread's model (with one warning per name). Without it, every skill's model is
    /// unknown: the thread keeps its model and each name is warned about once.
    pub fn resolve_model(mut self, resolve: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        self.models = Some(Resolver(Arc::new(resolve)));
        self
    }

    /// The agent that runs skills with `context: fork` (default: the agent that called
    /// `load_skill`, with its model and tools).
    pub fn fork_agent(mut self, agent: Arc<dyn AgentRunner>) -> Self {
        self.forks.default = Some(agent);
        self
    }

    /// The agent that runs forked skills whose `agent` field is `name`; a skill naming
    /// an agent not configured runs on the default one.
    pub fn named_agent(mut self, name: impl Into<String>, agent: Arc<dyn AgentRunner>) -> Self {
        self.forks.named.insert(name.into(), agent);
        self
    }

    /// How many forks deep a thread may go (default
    /// [`DEFAULT_MAX_FORK_DEPTH`](crate::DEFAULT_MAX_FORK_DEPTH), 1: a forked skill may
    /// not fork again); past it `load_skill` refuses a forked skill. 0 refuses every fork.
    pub fn max_fork_depth(mut self, depth: usize) -> Self {
        self.forks.max_depth = depth;
        self
    }

    /// Replaces the prompt section template; it must contain `{skills_locations}` and
    /// `{skills_list}` (checked by [`build`](Self::build)).
    pub fn system_prompt_template(mut self, template: impl Into<String>) -> Self {
        self.template = Some(template.into());
        self
    }

    /// Offers the agent only `view`'s skills (and those they depend on). For a subagent
    /// beside a main agent on one catalog, see [`SkillsMiddleware::with_view`].
    pub fn view(mut self, view: SkillView) -> Self {
        self.view = Some(view);
        self
    }

    /// The tools the agent has, when the host knows them up front. Without it, the
    /// tools offered to the model on each call are the agent's tools. A skill that needs
    /// a tool the agent lacks (`required-tools`, `dependencies.tools`) is left out of
    /// the skills list and `search_skills`, and `load_skill` refuses it naming the tools.
    pub fn available_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.tools = Some(ToolSet::new(tools));
        self
    }

    /// Lists skills the agent lacks tools for, marked unavailable with the tools they
    /// need, instead of leaving them out (they still cannot be loaded). Default: off.
    pub fn show_unavailable_skills(mut self, show: bool) -> Self {
        self.show_unavailable = show;
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
        let mut catalog = SkillCatalog::new(sources)
            .with_limits(self.limits)
            .with_lazy_resources(self.lazy_resources);
        if let Some(lock) = self.lock {
            catalog = catalog.with_lock(lock);
        }
        let catalog = Arc::new(catalog);
        Ok(SkillsMiddleware::from_runtime(Arc::new(SkillsRuntime {
            section: PromptSection::of_catalog(&catalog, self.policy, template)
                .with_budget(self.budget.unwrap_or_default())
                .with_view(self.view.map(Arc::new))
                .show_unavailable(self.show_unavailable),
            catalog,
            reload: self.reload,
            search: self.search,
            hooks: self.hooks,
            models: ModelChoice::new(self.models),
            forks: self.forks,
            diagnostics: Mutex::default(),
            tools: AgentTools {
                fixed: self.tools.is_some(),
                known: std::sync::RwLock::new(self.tools),
            },
        })))
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
}

//! [`SkillSession`]: the skills one conversation has loaded, shared by its tools and its
//! hook. rig agents keep no state of their own between calls, so this is that state.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use skills_catalog::{
    CatalogSnapshot, Invoker, LoadAnswer, LoadRequest, ReadFileError, SearchError, SkillArguments, SkillFile,
    check_tool_call, format_search_results, load_skill_with, read_skill_file,
};

use crate::hook::SkillsHook;
use crate::skills::Skills;
use crate::tools::{LoadSkill, ReadSkillResource, SearchSkills};

/// The turn budget [`SkillSession::install`] gives an agent: room to load a skill, read
/// its resources and use the tools it names.
pub const DEFAULT_MAX_TURNS: usize = 16;

/// One conversation with a skill library: the skills it has loaded, in load order.
///
/// Its tools ([`LoadSkill`], [`SearchSkills`], [`ReadSkillResource`]) and its
/// [`SkillsHook`] share it, so a skill the model loads is marked `[Loaded]` in the next
/// turn's preamble, a second load says it is already loaded, and the loaded skills' tool
/// rules apply to the calls that follow. Clones share the state; a new conversation
/// takes a new session ([`Skills::session`]).
///
/// Every call reads the catalog's newest snapshot, so a skill added, changed or removed
/// while the agent runs (a reload, a watch) shows in the next turn.
#[derive(Clone)]
pub struct SkillSession {
    skills: Skills,
    loaded: Arc<Mutex<Vec<String>>>,
}

impl fmt::Debug for SkillSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillSession").field("loaded", &self.loaded()).finish()
    }
}

/// The builder states [`SkillSession::install`] accepts: before or after other tools.
pub trait ToolStage: sealed::Sealed {
    #[doc(hidden)]
    fn add_skill_tools(builder: AgentBuilder<Self>, tools: SkillTools) -> AgentBuilder<WithBuilderTools>
    where
        Self: Sized;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for rig_agent::agent::NoToolConfig {}
    impl Sealed for rig_agent::agent::WithBuilderTools {}
}

/// The tools a session contributes, for [`ToolStage`].
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct SkillTools {
    load: LoadSkill,
    read: ReadSkillResource,
    search: Option<SearchSkills>,
}

impl ToolStage for NoToolConfig {
    fn add_skill_tools(builder: AgentBuilder<Self>, tools: SkillTools) -> AgentBuilder<WithBuilderTools> {
        let builder = builder.tool(tools.load.clone());
        tools.add_rest(builder)
    }
}

impl ToolStage for WithBuilderTools {
    fn add_skill_tools(builder: AgentBuilder<Self>, tools: SkillTools) -> AgentBuilder<WithBuilderTools> {
        let builder = builder.tool(tools.load.clone());
        tools.add_rest(builder)
    }
}

impl SkillTools {
    /// Adds the tools other than `load_skill` (added by the stage, whose type changes).
    fn add_rest(self, builder: AgentBuilder<WithBuilderTools>) -> AgentBuilder<WithBuilderTools> {
        let builder = builder.tool(self.read);
        match self.search {
            Some(search) => builder.tool(search),
            None => builder,
        }
    }
}

impl SkillSession {
    pub(crate) fn new(skills: Skills) -> Self {
        Self {
            skills,
            loaded: Arc::default(),
        }
    }

    /// The library this session reads.
    pub fn skills(&self) -> &Skills {
        &self.skills
    }

    /// The skills this conversation has loaded, in load order.
    pub fn loaded(&self) -> Vec<String> {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Forgets every loaded skill (a new conversation on the same agent).
    pub fn reset(&self) {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    async fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.skills.shared.catalog.ensure_loaded().await
    }

    /// The skills section for the newest snapshot with this session's loaded skills:
    /// the skills list within the library's budget, loaded skills marked `[Loaded]`.
    /// Rendered once per (catalog version, loaded set) and cached, so an unchanged
    /// library gives the same text on every turn (provider prompt caches keep hitting).
    pub async fn section(&self) -> Arc<str> {
        let snapshot = self.snapshot().await;
        let loaded = self.loaded();
        self.skills.shared.section.render_fetching(&snapshot, &loaded).await.0
    }

    /// `base`, a blank line, and the [`section`](Self::section): the preamble a turn of
    /// this conversation gets.
    pub async fn preamble(&self, base: &str) -> String {
        let section = self.section().await;
        let base = base.trim_end();
        if base.is_empty() {
            section.trim_start().to_owned()
        } else {
            format!("{base}\n\n{}", section.trim_start())
        }
    }

    /// Loads skill `name` for this conversation, as `invoker` asks: the text of
    /// [`skills_catalog::load_skill_with`] (the `SKILL.md` with its arguments
    /// substituted, and its resources). On success the skill counts as loaded and its use
    /// is recorded in the catalog's use counts; any other answer changes nothing.
    pub async fn load(&self, name: &str, arguments: Option<&SkillArguments>, invoker: Invoker) -> LoadAnswer {
        let snapshot = self.snapshot().await;
        let loaded = self.loaded();
        let request = LoadRequest::new(&loaded).with_arguments(arguments).by(invoker);
        let answer = load_skill_with(&snapshot, name, request).await;
        if matches!(answer, LoadAnswer::Loaded { .. }) {
            self.skills.shared.catalog.record_use(name);
            let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
            if !loaded.iter().any(|l| l == name) {
                loaded.push(name.to_owned());
            }
        }
        answer
    }

    /// The host's slash command: loads `name` for this conversation as the user asked for
    /// it, so skills only people may invoke (`disable-model-invocation: true`) load too.
    /// Hand the text to the model as the next user message.
    pub async fn activate(&self, name: &str, arguments: Option<&SkillArguments>) -> LoadAnswer {
        self.load(name, arguments, Invoker::User).await
    }

    /// The `search_skills` answer for `query`: at most `limit` lines
    /// `- name: description (source)`, best first, `[Loaded]` after loaded skills.
    pub async fn search(&self, query: &str, limit: usize) -> Result<String, SearchError> {
        let snapshot = self.snapshot().await;
        let hits = self.skills.shared.catalog.search(query, limit)?;
        Ok(format_search_results(&snapshot, &hits, &self.loaded()))
    }

    /// One file of skill `name` (`path` relative to its folder, or the full path
    /// `load_skill` lists), contained in the skill's folder.
    pub async fn read_resource(&self, name: &str, path: &str) -> Result<SkillFile, ReadFileError> {
        let snapshot = self.snapshot().await;
        read_skill_file(&snapshot, name, path).await
    }

    /// Whether a call of `tool` with `args` may run while this conversation's skills are
    /// loaded: `None` lets it through, `Some` is the reason it is skipped (a loaded
    /// skill's `disallowed-tools`; under [`Restrict`](skills_catalog::AllowedToolsPolicy::Restrict),
    /// a tool outside the loaded skills' `allowed-tools`). See
    /// [`skills_catalog::check_tool_call`].
    pub async fn check_tool_call(&self, tool: &str, args: &serde_json::Value) -> Option<String> {
        let loaded = self.loaded();
        if loaded.is_empty() {
            return None;
        }
        let snapshot = self.snapshot().await;
        let skills = loaded.iter().filter_map(|name| snapshot.get(name));
        check_tool_call(self.skills.policy(), tool, args, skills)
    }

    /// The `load_skill` tool of this conversation.
    pub fn load_skill_tool(&self) -> LoadSkill {
        LoadSkill::new(self.clone())
    }

    /// The `search_skills` tool of this conversation.
    pub fn search_skills_tool(&self) -> SearchSkills {
        SearchSkills::new(self.clone())
    }

    /// The `read_skill_resource` tool of this conversation.
    pub fn read_skill_resource_tool(&self) -> ReadSkillResource {
        ReadSkillResource::new(self.clone())
    }

    /// The hook that gives each turn the preamble `base` followed by the skills section,
    /// and skips tool calls the loaded skills' rules refuse.
    pub fn hook(&self, base: impl Into<String>) -> SkillsHook {
        SkillsHook::new(self.clone(), base.into())
    }

    /// Adds this conversation's skills to a rig agent: the preamble `base` (each turn
    /// gets it followed by the skills section), the tools `load_skill`,
    /// `read_skill_resource` and (unless the library turned it off) `search_skills`, and
    /// the [`SkillsHook`]. Call it before or after adding your own tools.
    ///
    /// It also sets the agent's turn budget to [`DEFAULT_MAX_TURNS`]: rig's default of
    /// one model call leaves no turn to use a skill once it is loaded. Call
    /// `default_max_turns` after `install` to choose another.
    pub fn install<S: ToolStage>(
        &self,
        builder: AgentBuilder<S>,
        base: impl Into<String>,
    ) -> AgentBuilder<WithBuilderTools> {
        let base = base.into();
        let builder = builder
            .preamble(base.clone())
            .default_max_turns(DEFAULT_MAX_TURNS)
            .add_hook(self.hook(base));
        let tools = SkillTools {
            load: self.load_skill_tool(),
            read: self.read_skill_resource_tool(),
            search: self.skills.shared.search_tool.then(|| self.search_skills_tool()),
        };
        S::add_skill_tools(builder, tools)
    }
}

//! [`SkillSession::install`]: a session's tools and hook added to a rig `AgentBuilder`.

use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};

use crate::hook::SkillsHook;
use crate::session::SkillSession;
use crate::tools::{LoadSkill, ReadSkillResource, SearchSkills};

/// The turn budget [`SkillSession::install`] gives an agent: room to load a skill, read
/// its resources and use the tools it names.
pub const DEFAULT_MAX_TURNS: usize = 16;

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
        let SkillTools { load, read, search } = tools;
        add_rest(builder.tool(load), read, search)
    }
}

impl ToolStage for WithBuilderTools {
    fn add_skill_tools(builder: AgentBuilder<Self>, tools: SkillTools) -> AgentBuilder<WithBuilderTools> {
        let SkillTools { load, read, search } = tools;
        add_rest(builder.tool(load), read, search)
    }
}

/// Adds the tools after `load_skill`, whose addition is where the builder's type changes.
fn add_rest(
    builder: AgentBuilder<WithBuilderTools>,
    read: ReadSkillResource,
    search: Option<SearchSkills>,
) -> AgentBuilder<WithBuilderTools> {
    let builder = builder.tool(read);
    match search {
        Some(search) => builder.tool(search),
        None => builder,
    }
}

impl SkillSession {
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
            search: self.library.search_tool.then(|| self.search_skills_tool()),
        };
        S::add_skill_tools(builder, tools)
    }
}

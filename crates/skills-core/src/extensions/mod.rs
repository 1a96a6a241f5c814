//! The frontmatter fields beyond the Agent Skills specification that Claude Code defines
//! and the V2 design's roadmap plans: who may invoke a skill, its arguments, the model it
//! runs on, a forked context, tool rules and skill-scoped hooks.
//!
//! Every field is optional; a skill that sets none of them has no
//! [`SkillExtensions`] at all (`SkillMetadata::extensions` is `None`) and behaves as a
//! plain Agent Skills skill. Nothing here is ever executed: hooks are data, handed to the
//! host.

use serde::{Deserialize, Serialize};

mod dependencies;
mod read;

pub use dependencies::{
    McpServerDependency, MissingTools, OPENAI_AGENT_FILE, SkillDependencies, ToolRequirements, agent_yaml_dependencies,
    required_tool_name,
};
pub(crate) use read::parse_extensions;

/// The frontmatter keys read into [`SkillExtensions`], as authors write them.
pub const EXTENSION_FIELDS: [&str; 13] = [
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
    "effort",
    "context",
    "agent",
    "disallowed-tools",
    "hooks",
    "when_to_use",
    "paths",
    "dependencies",
    "required-tools",
];

/// The most hooks one skill may declare; the rest are dropped with a diagnostic.
pub const MAX_SKILL_HOOKS: usize = 32;
/// The most characters of a short field (`argument-hint`, `model`, `effort`, `agent`, a
/// hook matcher); longer values are cut with a diagnostic.
pub const MAX_SHORT_FIELD: usize = 256;
/// The most characters of `when_to_use`, a hook's prompt or command.
pub const MAX_LONG_FIELD: usize = 4096;
/// The most entries of `disallowed-tools` or `paths`.
pub const MAX_LIST_ENTRIES: usize = 64;

/// What a skill declares beyond the specification's fields.
///
/// ```
/// use skills_core::{parse_skill_md, SkillContext};
/// let md = b"---\nname: deploy\ndescription: Deploys\ndisable-model-invocation: true\n\
///            argument-hint: \"[env]\"\ncontext: fork\nmodel: fast-model\n---\nDeploy to $0\n";
/// let skill = parse_skill_md(md, "/s/deploy/SKILL.md", "deploy").skill.unwrap();
/// assert!(!skill.model_invocable());
/// let extensions = skill.extensions().unwrap();
/// assert_eq!(extensions.argument_hint.as_deref(), Some("[env]"));
/// assert_eq!(extensions.context, SkillContext::Fork);
/// assert_eq!(extensions.model.as_deref(), Some("fast-model"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SkillExtensions {
    /// `disable-model-invocation: true`: the skill is for people; the model neither sees
    /// it listed nor may load it. The host activates it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disable_model_invocation: bool,
    /// `user-invocable: false`: the skill is for the model only, not offered to people.
    pub user_invocable: bool,
    /// `argument-hint`: what arguments the skill takes (`[env-name]`), shown in the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// `model`: the model to run on while the skill is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `effort`: the reasoning effort to ask for while the skill is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// `context`: where the skill runs.
    #[serde(skip_serializing_if = "SkillContext::is_inline")]
    pub context: SkillContext,
    /// `agent`: which subagent runs a forked skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `disallowed-tools`: tools refused while the skill is loaded, whatever the policy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
    /// `hooks`: what to do around tool calls and at the end of a turn while loaded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<SkillHook>,
    /// `when_to_use`: more on when to pick the skill; listed after the description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// `paths`: glob patterns of the files the skill is about, kept as data.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// `dependencies`: the tools, skills and MCP servers the skill needs.
    #[serde(skip_serializing_if = "SkillDependencies::is_empty")]
    pub dependencies: SkillDependencies,
    /// `required-tools`: tools the agent must have (all of them), written like
    /// `allowed-tools`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required_tools: Vec<String>,
}

impl Default for SkillExtensions {
    fn default() -> Self {
        Self {
            disable_model_invocation: false,
            user_invocable: true,
            argument_hint: None,
            model: None,
            effort: None,
            context: SkillContext::Inline,
            agent: None,
            disallowed_tools: Vec::new(),
            hooks: Vec::new(),
            when_to_use: None,
            paths: Vec::new(),
            dependencies: SkillDependencies::default(),
            required_tools: Vec::new(),
        }
    }
}

impl SkillExtensions {
    /// The frontmatter keys this value sets to something other than the default, in
    /// [`EXTENSION_FIELDS`] order.
    pub fn declared_keys(&self) -> Vec<&'static str> {
        let set = [
            self.disable_model_invocation,
            !self.user_invocable,
            self.argument_hint.is_some(),
            self.model.is_some(),
            self.effort.is_some(),
            self.context != SkillContext::Inline,
            self.agent.is_some(),
            !self.disallowed_tools.is_empty(),
            !self.hooks.is_empty(),
            self.when_to_use.is_some(),
            !self.paths.is_empty(),
            !self.dependencies.is_empty(),
            !self.required_tools.is_empty(),
        ];
        EXTENSION_FIELDS
            .iter()
            .zip(set)
            .filter_map(|(key, set)| set.then_some(*key))
            .collect()
    }

    /// The tools the skill needs that `available` says the agent lacks (`required-tools`
    /// and `dependencies.tools`); empty when it can run.
    pub fn missing_tools(&self, available: impl Fn(&str) -> bool) -> MissingTools {
        let all = self.required_tools.iter().chain(&self.dependencies.tools.all);
        dependencies::missing_tools(all, &self.dependencies.tools.any, available)
    }

    /// Whether the skill names any tool it needs.
    pub fn requires_tools(&self) -> bool {
        !self.required_tools.is_empty() || !self.dependencies.tools.is_empty()
    }
}

/// Where a skill runs when it is loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillContext {
    /// In the conversation: its instructions join the thread (the default).
    #[default]
    Inline,
    /// `context: fork`: in a subagent with a fresh conversation; the thread gets the
    /// subagent's answer.
    Fork,
}

impl SkillContext {
    /// Whether this is the default, [`SkillContext::Inline`].
    pub fn is_inline(&self) -> bool {
        *self == Self::Inline
    }
}

/// When a skill's hook fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HookEvent {
    /// Before a tool call whose tool name the matcher accepts.
    PreToolUse,
    /// After such a tool call answered.
    PostToolUse,
    /// When the agent answers without calling a tool (the end of its turn).
    Stop,
}

impl HookEvent {
    /// The name authors write (`PreToolUse`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
        }
    }

    fn from_key(key: &str) -> Option<Self> {
        match key {
            "PreToolUse" => Some(Self::PreToolUse),
            "PostToolUse" => Some(Self::PostToolUse),
            "Stop" => Some(Self::Stop),
            _ => None,
        }
    }
}

/// What a hook does. Neither kind is ever run by this project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HookAction {
    /// `type: command`: a command line for the host to run, if it wants to.
    Command {
        /// The command line, as written.
        command: String,
        /// `timeout` in seconds, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// `type: prompt`: text added (as untrusted data) to the next model call.
    Prompt {
        /// The text.
        prompt: String,
    },
}

/// One hook of a skill, active only while the skill is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillHook {
    /// When it fires.
    pub event: HookEvent,
    /// A regular expression the whole tool name must match; `None` (`*` or empty in the
    /// frontmatter) matches every tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// What it does.
    pub action: HookAction,
    /// `once: true`: fires at most once per thread.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once: bool,
}

impl SkillHook {
    /// Whether the hook applies to a call of `tool` (a `Stop` hook's matcher is ignored).
    ///
    /// ```
    /// use skills_core::{HookAction, HookEvent, SkillHook};
    /// let hook = SkillHook {
    ///     event: HookEvent::PreToolUse,
    ///     matcher: Some("Edit|Write".into()),
    ///     action: HookAction::Prompt { prompt: "Run the linter after editing.".into() },
    ///     once: false,
    /// };
    /// assert!(hook.matches("Write"));
    /// assert!(!hook.matches("WriteAll"));
    /// ```
    pub fn matches(&self, tool: &str) -> bool {
        match (&self.matcher, self.event) {
            (_, HookEvent::Stop) | (None, _) => true,
            (Some(pattern), _) => compile_matcher(pattern).is_ok_and(|regex| regex.is_match(tool)),
        }
    }
}

pub(crate) fn compile_matcher(pattern: &str) -> Result<regex_lite::Regex, regex_lite::Error> {
    regex_lite::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(1 << 16)
        .nest_limit(32)
        .build()
}

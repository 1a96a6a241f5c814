//! The rig tools a [`SkillSession`] contributes: `load_skill`, `search_skills` and
//! `read_skill_resource`. They answer as the middleware's tools and the MCP server's do;
//! a failure is a tool error whose text the model sees.

use rig_core::tool::{Tool, ToolContext, ToolErrorKind, ToolExecutionError};
use serde::Deserialize;
use skills_catalog::{Invoker, LoadAnswer, LoadError, ReadFileError, SearchRequest, SkillArguments};

use crate::session::SkillSession;

/// The `load_skill` tool's name.
pub const LOAD_SKILL: &str = "load_skill";
/// The `search_skills` tool's name.
pub const SEARCH_SKILLS: &str = "search_skills";
/// The `read_skill_resource` tool's name.
pub const READ_SKILL_RESOURCE: &str = "read_skill_resource";

/// `load_skill(skill_name, arguments?)`: the skill's full `SKILL.md` (arguments
/// substituted) and its resource list; the skill is then loaded for the conversation.
/// A skill loaded before answers that it is already loaded (unless new arguments are
/// given); an unknown name lists the available skills; a skill only people may invoke
/// is refused.
#[derive(Debug, Clone)]
pub struct LoadSkill {
    session: SkillSession,
}

impl LoadSkill {
    pub(crate) fn new(session: SkillSession) -> Self {
        Self { session }
    }
}

/// The arguments of [`LoadSkill`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSkillArgs {
    /// The skill's name, as the skills list shows it.
    pub skill_name: String,
    /// The skill's arguments: one string split like a shell does, or a list.
    #[serde(default)]
    pub arguments: Option<SkillArguments>,
}

impl Tool for LoadSkill {
    const NAME: &'static str = LOAD_SKILL;
    type Args = LoadSkillArgs;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Load a skill's full instructions and discover its resources. Use this when a task matches \
         a skill from the available skills list."
            .to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        skills_catalog::load_skill_schema()
    }

    async fn call(&self, _context: &mut ToolContext, args: Self::Args) -> Result<String, ToolExecutionError> {
        let answer = self
            .session
            .load(&args.skill_name, args.arguments.as_ref(), Invoker::Model)
            .await;
        match &answer {
            LoadAnswer::Loaded { .. } | LoadAnswer::AlreadyLoaded { .. } => Ok(answer.to_string()),
            LoadAnswer::Failed(error) => {
                let kind = match error {
                    LoadError::NotFound { .. } => ToolErrorKind::NotFound,
                    LoadError::ModelInvocationDisabled { .. } => ToolErrorKind::PermissionDenied,
                    LoadError::InvalidArguments { .. } => ToolErrorKind::InvalidArgs,
                    _ => ToolErrorKind::Other,
                };
                Err(ToolExecutionError::new(kind, answer.to_string()))
            }
        }
    }
}

/// `search_skills(query, limit?)`: the skills that best match `query` (name, description,
/// when to use), best first, as `- name: description (source)` lines, `[Loaded]` after
/// loaded skills: how the model finds skills the budgeted list does not show in full.
/// `limit` defaults to 8 and is at most 16; an empty query or a limit of 0 is an error.
#[derive(Debug, Clone)]
pub struct SearchSkills {
    session: SkillSession,
}

impl SearchSkills {
    pub(crate) fn new(session: SkillSession) -> Self {
        Self { session }
    }
}

impl Tool for SearchSkills {
    const NAME: &'static str = SEARCH_SKILLS;
    type Args = SearchRequest;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Search all available skills by what they do, including skills the skills list does not show \
         in full. Returns the best matches, best first; load one with load_skill."
            .to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        SearchRequest::schema()
    }

    async fn call(&self, _context: &mut ToolContext, args: Self::Args) -> Result<String, ToolExecutionError> {
        self.session
            .search(&args.query, args.limit())
            .await
            .map_err(|error| ToolExecutionError::new(ToolErrorKind::InvalidArgs, format!("Error: {error}")))
    }
}

/// `read_skill_resource(skill_name, path)`: one file of a skill (a script, reference or
/// asset) as text, by its path inside the skill's folder or the full path `load_skill`
/// lists. Paths outside the folder are refused; nothing is run.
#[derive(Debug, Clone)]
pub struct ReadSkillResource {
    session: SkillSession,
}

impl ReadSkillResource {
    pub(crate) fn new(session: SkillSession) -> Self {
        Self { session }
    }
}

/// The arguments of [`ReadSkillResource`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadSkillResourceArgs {
    /// The skill's name.
    #[serde(alias = "name")]
    pub skill_name: String,
    /// The file's path inside the skill's folder (`references/guide.md`), or its full path.
    pub path: String,
}

impl Tool for ReadSkillResource {
    const NAME: &'static str = READ_SKILL_RESOURCE;
    type Args = ReadSkillResourceArgs;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        skills_catalog::READ_SKILL_RESOURCE_DESCRIPTION.to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        skills_catalog::read_skill_resource_schema("skill_name")
    }

    async fn call(&self, _context: &mut ToolContext, args: Self::Args) -> Result<String, ToolExecutionError> {
        match self.session.read_resource(&args.skill_name, &args.path).await {
            Ok(file) => Ok(match String::from_utf8(file.bytes) {
                Ok(text) => text,
                Err(bytes) => format!(
                    "{} is a binary file of {} bytes; it cannot be shown as text.",
                    file.rel,
                    bytes.as_bytes().len()
                ),
            }),
            Err(error) => {
                let kind = match error {
                    ReadFileError::UnknownSkill(_) | ReadFileError::NotFound(_) => ToolErrorKind::NotFound,
                    ReadFileError::Outside(_) | ReadFileError::Refused { .. } => ToolErrorKind::PermissionDenied,
                    ReadFileError::IsDirectory(_) | ReadFileError::TooLarge { .. } => ToolErrorKind::InvalidArgs,
                    ReadFileError::Failed { .. } => ToolErrorKind::Other,
                };
                Err(ToolExecutionError::new(kind, format!("Error: {error}")))
            }
        }
    }
}

//! The `load_skill` tool: reads a skill's full `SKILL.md` and marks it loaded.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use skills_catalog::{LoadAnswer, LoadRequest, SkillArguments};
use skills_core::SkillsState;

use crate::fork;
use crate::message::{Message, ToolMessage};
use crate::runtime::SkillsRuntime;
use crate::state::StateUpdate;
use crate::tool::{Command, Tool, ToolOutput, ToolRuntime, parse_args};

/// The tool's name.
pub const LOAD_SKILL: &str = "load_skill";

/// `load_skill(skill_name, arguments?)`, contributed by [`SkillsMiddleware`](crate::SkillsMiddleware).
///
/// A thin wrapper over [`skills_catalog::load_skill`] on the snapshot the thread uses: it
/// reads the skill's `SKILL.md` through its source's backend and answers with its
/// content plus the skill's resource list (`- [script] `/path``). Only success changes
/// state: it returns a [`Command`] that appends the name to `skills_loaded`. Every other
/// outcome is a plain message and changes nothing:
///
/// | case | status | message |
/// |---|---|---|
/// | unknown name | error | `Error: Skill 'x' not found. Available skills: a, b` (past [`AVAILABLE_LIST_CHARS`](skills_catalog::AVAILABLE_LIST_CHARS) of names, the ten most like `x` and how many there are) |
/// | already loaded | success | `Skill 'x' is already loaded. Its instructions are already active.` |
/// | read failure | error | `Error: Failed to read skill file at <path>: <reason>` |
/// | over the size limit | error | `Error: Skill file at <path> exceeds maximum size (<n> bytes)` |
/// | not UTF-8 | error | `Error: Failed to decode skill file at <path>: <reason>` |
/// | `disable-model-invocation` | error | `Error: Skill 'x' can only be invoked by the user ...` |
/// | arguments with an open quote | error | `Error: invalid arguments for skill 'x': a quote is not closed` |
///
/// `arguments` (a string split like a shell does, or a list) are substituted into the
/// instructions (`$ARGUMENTS`, `$0`, ...; see [`skills_catalog::substitute`]); with
/// arguments, a loaded skill is loaded again. A skill with `context: fork` runs in a
/// subagent (see [`SkillsMiddlewareBuilder::fork_agent`](crate::SkillsMiddlewareBuilder::fork_agent))
/// and the answer is the subagent's final answer.
#[derive(Debug, Clone)]
pub struct LoadSkillTool {
    runtime: Arc<SkillsRuntime>,
}

impl LoadSkillTool {
    pub(crate) fn new(runtime: Arc<SkillsRuntime>) -> Self {
        Self { runtime }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadSkillArgs {
    skill_name: String,
    #[serde(default)]
    arguments: Option<SkillArguments>,
}

#[async_trait]
impl Tool for LoadSkillTool {
    fn name(&self) -> &str {
        LOAD_SKILL
    }

    fn description(&self) -> &str {
        "Load a skill's full instructions and discover its resources. Use this instead of read_file \
         when you need to activate a skill from the available skills list."
    }

    fn parameters(&self) -> serde_json::Value {
        skills_catalog::load_skill_schema()
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: LoadSkillArgs = match parse_args(LOAD_SKILL, args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        load_skill(&self.runtime, &args.skill_name, args.arguments.as_ref(), &runtime).await
    }
}

/// `load_skill` on the snapshot the thread uses: [`skills_catalog::load_skill_with`]'s
/// answer, with the skill added to the thread's loaded set on success. A forked skill
/// runs in a subagent and answers with its result.
pub(crate) async fn load_skill(
    runtime_state: &SkillsRuntime,
    name: &str,
    arguments: Option<&SkillArguments>,
    runtime: &ToolRuntime<'_>,
) -> ToolOutput {
    let snapshot = runtime_state.snapshot_for(runtime.state).await;
    let loaded = runtime.state.get::<SkillsState>().map_or(&[][..], |s| &s.skills_loaded);
    let selection = runtime_state.selection(&snapshot);
    let request = LoadRequest::new(loaded)
        .with_arguments(arguments)
        .within(selection.as_deref());
    match skills_catalog::load_skill_with(&snapshot, name, request).await {
        LoadAnswer::Loaded { text } => {
            runtime_state.catalog.record_use(name);
            let mut now_loaded = loaded.to_vec();
            if !now_loaded.iter().any(|l| l == name) {
                now_loaded.push(name.to_owned());
            }
            let mut update = StateUpdate::new();
            let mut answer = text;
            if let Some(skill) = snapshot.get(name).filter(|s| s.is_fork()) {
                let task = arguments.and_then(|a| a.split().ok()).map(|(_, whole)| whole);
                match fork::run(
                    runtime_state,
                    &snapshot,
                    skill,
                    &answer,
                    task.as_deref(),
                    runtime.state,
                    runtime.agent,
                )
                .await
                {
                    Ok((result, shared)) => {
                        answer = result;
                        update = shared;
                    }
                    Err(error) => return runtime.error(error),
                }
            }
            ToolOutput::Command(Command {
                update: update.with(runtime_state.state_of(&snapshot, now_loaded)),
                messages: vec![Message::Tool(ToolMessage::success(runtime.tool_call_id, answer))],
            })
        }
        answer @ LoadAnswer::AlreadyLoaded { .. } => runtime.success(answer.to_string()),
        answer => runtime.error(answer.to_string()),
    }
}

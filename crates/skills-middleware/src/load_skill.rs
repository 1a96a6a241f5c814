//! The `load_skill` tool: reads a skill's full `SKILL.md` and marks it loaded.

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use skills_core::{FileErrorKind, MAX_SKILL_FILE_SIZE, SkillsState};

use crate::message::{Message, ToolMessage};
use crate::prompt::{code_span, escape_untrusted};
use crate::skills::SkillsConfig;
use crate::state::StateUpdate;
use crate::tool::{Command, Tool, ToolOutput, ToolRuntime, parse_args};

/// The tool's name.
pub const LOAD_SKILL: &str = "load_skill";

/// `load_skill(skill_name)`, contributed by [`SkillsMiddleware`](crate::SkillsMiddleware).
///
/// Looks the name up in the thread's [`SkillsState`], reads the skill's `SKILL.md`
/// through its source's backend and answers with its content plus the skill's resource
/// list (`- [script] `/path``). Only success changes state: it returns a
/// [`Command`] that appends the name to `skills_loaded`. Every other outcome is a plain
/// message and changes nothing:
///
/// | case | status | message |
/// |---|---|---|
/// | unknown name | error | `Error: Skill 'x' not found. Available skills: a, b` |
/// | already loaded | success | `Skill 'x' is already loaded. Its instructions are already active.` |
/// | read failure | error | `Error: Failed to read skill file at <path>: <reason>` |
/// | over the size limit | error | `Error: Skill file at <path> exceeds maximum size (<n> bytes)` |
/// | not UTF-8 | error | `Error: Failed to decode skill file at <path>: <reason>` |
#[derive(Debug, Clone)]
pub struct LoadSkillTool {
    config: Arc<SkillsConfig>,
}

impl LoadSkillTool {
    pub(crate) fn new(config: Arc<SkillsConfig>) -> Self {
        Self { config }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadSkillArgs {
    skill_name: String,
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
        json!({
            "type": "object",
            "properties": {
                "skill_name": {
                    "type": "string",
                    "description": "Name of the skill to load from the available skills list."
                }
            },
            "required": ["skill_name"],
            "additionalProperties": false
        })
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: LoadSkillArgs = match parse_args(LOAD_SKILL, args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        load_skill(&self.config, &args.skill_name, &runtime).await
    }
}

/// The whole behaviour of `load_skill`, on the snapshot the thread uses.
pub(crate) async fn load_skill(config: &SkillsConfig, name: &str, runtime: &ToolRuntime<'_>) -> ToolOutput {
    let snapshot = config.snapshot_for(runtime.state).await;
    let loaded = runtime.state.get::<SkillsState>().map_or(&[][..], |s| &s.skills_loaded);
    let Some(skill) = snapshot.get(name) else {
        let available: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
        let available = if available.is_empty() {
            "(none)".to_owned()
        } else {
            available.join(", ")
        };
        // The name comes from the model; keep the echo short and on one line.
        let shown = escape_untrusted(name, 200);
        return runtime.error(format!(
            "Error: Skill '{shown}' not found. Available skills: {available}"
        ));
    };
    if loaded.iter().any(|l| l == name) {
        return runtime.success(format!(
            "Skill '{name}' is already loaded. Its instructions are already active."
        ));
    }

    let path = &skill.path;
    let Some(backend) = config.backend_for(name, &snapshot) else {
        return runtime.error(format!(
            "Error: Failed to read skill file at {path}: its source is not configured"
        ));
    };
    let content = match backend.download_file(path).await {
        Ok(content) => content,
        Err(error) if error.kind == FileErrorKind::TooLarge => {
            return runtime.error(too_large(path, backend.max_file_size().min(MAX_SKILL_FILE_SIZE)));
        }
        Err(error) => return runtime.error(format!("Error: Failed to read skill file at {path}: {error}")),
    };
    if content.len() as u64 > MAX_SKILL_FILE_SIZE {
        return runtime.error(too_large(path, MAX_SKILL_FILE_SIZE));
    }
    let text = match std::str::from_utf8(&content) {
        Ok(text) => text.strip_prefix('\u{feff}').unwrap_or(text),
        Err(e) => return runtime.error(format!("Error: Failed to decode skill file at {path}: {e}")),
    };

    let mut result = text.to_owned();
    if let Some(resources) = snapshot.resources().get(name).filter(|r| !r.is_empty()) {
        result.push_str("\n\n\n---\n**Skill Resources:**\n");
        for resource in resources {
            let _ = write!(result, "\n- [{}] {}", resource.kind.as_str(), code_span(&resource.path));
        }
    }

    let mut now_loaded = loaded.to_vec();
    now_loaded.push(name.to_owned());
    ToolOutput::Command(Command {
        update: StateUpdate::new().with(snapshot.to_state(now_loaded)),
        messages: vec![Message::Tool(ToolMessage::success(runtime.tool_call_id, result))],
    })
}

fn too_large(path: &str, limit: u64) -> String {
    format!("Error: Skill file at {path} exceeds maximum size ({limit} bytes)")
}

//! A tool that hands a task to another agent, with state isolation.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use crate::agent::Agent;
use crate::message::{Message, ToolMessage};
use crate::tool::{Command, Tool, ToolOutput, ToolRuntime, parse_args};

/// `task(description)`: runs a subagent on a fresh conversation holding only the task
/// description, and answers with the subagent's final message.
///
/// The subagent starts from [`AgentState::for_subagent`](crate::AgentState::for_subagent):
/// the parent's shared parts, none of its private ones (so none of its loaded skills).
/// Its shared parts come back to the parent in the returned [`Command`]; its private
/// parts stay behind.
#[derive(Debug, Clone)]
pub struct SubAgentTool {
    name: String,
    description: String,
    agent: Arc<Agent>,
}

impl SubAgentTool {
    /// A tool named `name` that runs `agent`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, agent: Arc<Agent>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            agent,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskArgs {
    description: String,
}

#[async_trait]
impl Tool for SubAgentTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "The task, with everything the subagent needs to know."}
            },
            "required": ["description"],
            "additionalProperties": false
        })
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: TaskArgs = match parse_args(&self.name, args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let mut child = runtime.state.for_subagent(vec![Message::user(args.description)]);
        match self.agent.invoke(&mut child).await {
            Ok(answer) => ToolOutput::Command(Command {
                update: child.shared_update(),
                messages: vec![Message::Tool(ToolMessage::success(
                    runtime.tool_call_id,
                    answer.content,
                ))],
            }),
            Err(error) => runtime.error(format!("Error: the subagent failed: {error}")),
        }
    }
}

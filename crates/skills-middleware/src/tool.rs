//! Tools: what a model can call, and what a call returns.

use std::fmt::Debug;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::message::{Message, ToolMessage};
use crate::runner::AgentRunner;
use crate::state::{AgentState, StateUpdate};

/// A tool as the model sees it: name, description and the JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// When and how to use it.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// What a tool sees of the agent while it runs.
#[derive(Debug, Clone, Copy)]
pub struct ToolRuntime<'a> {
    /// The agent's state when the call started.
    pub state: &'a AgentState,
    /// The id of the call being answered.
    pub tool_call_id: &'a str,
    /// The agent loop running the call, when the loop says (the reference
    /// [`Agent`](crate::Agent) does): a tool that runs a subagent like its parent uses it.
    pub agent: Option<&'a dyn AgentRunner>,
}

impl ToolRuntime<'_> {
    /// A successful plain result for this call.
    pub fn success(&self, content: impl Into<String>) -> ToolOutput {
        ToolOutput::Message(ToolMessage::success(self.tool_call_id, content))
    }

    /// An error result for this call.
    pub fn error(&self, content: impl Into<String>) -> ToolOutput {
        ToolOutput::Message(ToolMessage::error(self.tool_call_id, content))
    }
}

/// A state update together with the messages that answer a tool call (deepagents'
/// `Command(update=..., messages=[ToolMessage(...)])`).
#[derive(Debug, Clone, Default)]
pub struct Command {
    /// Parts to set on the agent state.
    pub update: StateUpdate,
    /// Messages to append; one of them answers the tool call.
    pub messages: Vec<Message>,
}

/// What a tool call produces: a plain message, or a [`Command`] that also updates state.
#[derive(Debug, Clone)]
pub enum ToolOutput {
    /// A result that changes no state.
    Message(ToolMessage),
    /// A result that updates state.
    Command(Command),
}

impl ToolOutput {
    /// The tool message answering `tool_call_id`: the message itself, or the command's
    /// message with that id.
    pub fn tool_message(&self, tool_call_id: &str) -> Option<&ToolMessage> {
        match self {
            Self::Message(m) => Some(m).filter(|m| m.tool_call_id == tool_call_id),
            Self::Command(c) => c
                .messages
                .iter()
                .filter_map(Message::as_tool)
                .find(|t| t.tool_call_id == tool_call_id),
        }
    }

    /// The command, when the output is one.
    pub fn as_command(&self) -> Option<&Command> {
        match self {
            Self::Command(c) => Some(c),
            Self::Message(_) => None,
        }
    }
}

/// Something the model can call.
///
/// Tools never panic on bad arguments: they answer with an error result the model can
/// read and correct.
#[async_trait]
pub trait Tool: Send + Sync + Debug {
    /// The name the model calls the tool by; unique within an agent.
    fn name(&self) -> &str;

    /// When and how to use the tool, for the model.
    fn description(&self) -> &str;

    /// JSON schema of the arguments object.
    fn parameters(&self) -> serde_json::Value;

    /// Runs one call.
    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput;

    /// The spec handed to the model.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters(),
        }
    }
}

type ToolFn = dyn Fn(&serde_json::Value) -> Result<String, String> + Send + Sync;

/// A tool from a closure: `Ok(text)` answers with a success result, `Err(text)` with an
/// error result. For small tools, stand-ins in examples and tests; it counts its calls.
///
/// ```
/// use skills_middleware::FnTool;
/// let search = FnTool::new("web_search", "Search the web.", |args| {
///     Ok(format!("results for {}", args["query"]))
/// })
/// .with_parameters(serde_json::json!({
///     "type": "object",
///     "properties": {"query": {"type": "string"}},
///     "required": ["query"]
/// }));
/// assert_eq!(search.calls(), 0);
/// ```
pub struct FnTool {
    name: String,
    description: String,
    parameters: serde_json::Value,
    run: Box<ToolFn>,
    calls: std::sync::atomic::AtomicUsize,
}

impl FnTool {
    /// A tool called `name` that takes any arguments object (see
    /// [`with_parameters`](Self::with_parameters)).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        run: impl Fn(&serde_json::Value) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: serde_json::json!({"type": "object"}),
            run: Box::new(run),
            calls: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The JSON schema of the arguments.
    pub fn with_parameters(mut self, schema: serde_json::Value) -> Self {
        self.parameters = schema;
        self
    }

    /// How many times the tool was called.
    pub fn calls(&self) -> usize {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Debug for FnTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> serde_json::Value {
        self.parameters.clone()
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match (self.run)(&args) {
            Ok(text) => runtime.success(text),
            Err(text) => runtime.error(text),
        }
    }
}

/// Decodes a tool's JSON arguments, or says what is wrong with them in an error result.
pub(crate) fn parse_args<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: serde_json::Value,
    runtime: &ToolRuntime<'_>,
) -> Result<T, ToolOutput> {
    serde_json::from_value(args).map_err(|e| runtime.error(format!("Error: invalid arguments for {tool}: {e}")))
}

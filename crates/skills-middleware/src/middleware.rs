//! The middleware contract: hooks around an agent's model and tool calls.

use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;

pub use crate::error::{AgentError, ModelError};
use crate::message::{AssistantMessage, Message, ToolCall};
use crate::runner::AgentRunner;
use crate::state::{AgentState, StateUpdate};
use crate::tool::{Tool, ToolOutput, ToolRuntime, ToolSpec};

/// One model call: what the model will be given.
#[derive(Debug, Clone)]
pub struct ModelRequest<'a> {
    /// The system message; middlewares append their sections to it.
    pub system_message: Option<String>,
    /// The conversation (borrowed from the state until a middleware replaces it).
    pub messages: Cow<'a, [Message]>,
    /// The tools offered to the model.
    pub tools: Cow<'a, [ToolSpec]>,
    /// The agent's state at this call.
    pub state: &'a AgentState,
    /// The model to run this call on; `None` is the agent's own model. A middleware
    /// sets it (a loaded skill's `model`), the model implementation reads it.
    pub model: Option<String>,
    /// The reasoning effort to ask for (`low`, `high`, ...); `None` is the model's default.
    pub effort: Option<String>,
}

impl<'a> ModelRequest<'a> {
    /// A request with no system message, no tools, the agent's own model and effort.
    pub fn new(messages: &'a [Message], state: &'a AgentState) -> Self {
        Self {
            system_message: None,
            messages: Cow::Borrowed(messages),
            tools: Cow::Borrowed(&[]),
            state,
            model: None,
            effort: None,
        }
    }

    /// Appends `section` to the system message, separated by a blank line.
    pub fn append_system(&mut self, section: &str) {
        let section = section.trim_start_matches('\n');
        match &mut self.system_message {
            Some(system) if !system.is_empty() => {
                system.push_str("\n\n");
                system.push_str(section);
            }
            _ => self.system_message = Some(section.to_owned()),
        }
    }
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    /// The model's turn.
    pub message: AssistantMessage,
}

/// One tool call on its way to the tool.
#[derive(Debug, Clone)]
pub struct ToolCallRequest<'a> {
    /// The call the model made.
    pub call: ToolCall,
    /// The agent's state when the call started.
    pub state: &'a AgentState,
}

/// A chat model: turns a request into the next assistant turn.
#[async_trait]
pub trait ChatModel: Send + Sync + Debug {
    /// Produces the next turn.
    async fn invoke(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError>;
}

/// A layer around an agent's work. Every hook has a pass-through default, so a
/// middleware overrides only what it needs.
///
/// Layers compose like an onion: the **first middleware added is the outermost**. It sees
/// a model or tool request first and its response last, and each layer reaches the next
/// one (and finally the model or tool) through the `next` continuation. A layer may
/// change the request, answer without calling `next` (a blocked tool call), or change
/// the response.
///
/// ```
/// use skills_middleware::{async_trait, AgentMiddleware, ModelNext, ModelRequest, ModelResponse, AgentError};
///
/// /// Adds a line to every system message.
/// #[derive(Debug)]
/// struct Greeting;
///
/// #[async_trait]
/// impl AgentMiddleware for Greeting {
///     fn name(&self) -> &str {
///         "greeting"
///     }
///
///     async fn wrap_model_call(&self, mut request: ModelRequest<'_>, next: ModelNext<'_>) -> Result<ModelResponse, AgentError> {
///         request.append_system("Be kind.");
///         next.run(request).await
///     }
/// }
/// ```
#[async_trait]
pub trait AgentMiddleware: Send + Sync + Debug {
    /// A short name for errors and logs.
    fn name(&self) -> &str;

    /// Tools this middleware contributes to the agent.
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    /// Runs once at the start of each agent invocation; the returned update is applied
    /// to the state before the first model call.
    async fn before_agent(&self, _state: &AgentState) -> Result<Option<StateUpdate>, AgentError> {
        Ok(None)
    }

    /// Runs once when an agent invocation ends with an answer (the model answered
    /// without calling a tool), innermost middleware first; the returned update is
    /// applied to the state before the answer is returned.
    async fn after_agent(&self, _state: &AgentState) -> Result<Option<StateUpdate>, AgentError> {
        Ok(None)
    }

    /// Wraps every model call.
    async fn wrap_model_call(
        &self,
        request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        next.run(request).await
    }

    /// Wraps every tool call.
    async fn wrap_tool_call(&self, request: ToolCallRequest<'_>, next: ToolNext<'_>) -> ToolOutput {
        next.run(request).await
    }
}

/// The rest of the model-call chain: the inner layers, then the model.
#[derive(Debug, Clone, Copy)]
pub struct ModelNext<'a> {
    layers: &'a [Arc<dyn AgentMiddleware>],
    model: &'a dyn ChatModel,
}

impl<'a> ModelNext<'a> {
    /// A chain over `layers` (outermost first) ending at `model`.
    pub fn new(layers: &'a [Arc<dyn AgentMiddleware>], model: &'a dyn ChatModel) -> Self {
        Self { layers, model }
    }

    /// Passes the request to the next layer, or to the model after the last one.
    pub async fn run(self, request: ModelRequest<'_>) -> Result<ModelResponse, AgentError> {
        match self.layers.split_first() {
            Some((layer, rest)) => {
                let next = ModelNext {
                    layers: rest,
                    model: self.model,
                };
                layer.wrap_model_call(request, next).await
            }
            None => Ok(self.model.invoke(request).await?),
        }
    }
}

/// The rest of the tool-call chain: the inner layers, then the tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolNext<'a> {
    layers: &'a [Arc<dyn AgentMiddleware>],
    tools: &'a [Arc<dyn Tool>],
    agent: Option<&'a dyn AgentRunner>,
}

impl<'a> ToolNext<'a> {
    /// A chain over `layers` (outermost first) ending at the tool of `tools` that the
    /// call names.
    pub fn new(layers: &'a [Arc<dyn AgentMiddleware>], tools: &'a [Arc<dyn Tool>]) -> Self {
        Self {
            layers,
            tools,
            agent: None,
        }
    }

    /// The same chain, telling the tools which agent runs them (see
    /// [`ToolRuntime::agent`]).
    pub fn with_agent(mut self, agent: &'a dyn AgentRunner) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Passes the call to the next layer, or runs the tool after the last one. A call to
    /// a tool that does not exist answers with an error naming the tools that do.
    pub async fn run(self, request: ToolCallRequest<'_>) -> ToolOutput {
        if let Some((layer, rest)) = self.layers.split_first() {
            let next = ToolNext {
                layers: rest,
                tools: self.tools,
                agent: self.agent,
            };
            return layer.wrap_tool_call(request, next).await;
        }
        let runtime = ToolRuntime {
            state: request.state,
            tool_call_id: &request.call.id,
            agent: self.agent,
        };
        match self.tools.iter().find(|t| t.name() == request.call.name) {
            Some(tool) => tool.call(request.call.args.clone(), runtime).await,
            None => {
                let names: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
                runtime.error(format!(
                    "Error: tool '{}' does not exist. Available tools: {}",
                    request.call.name,
                    names.join(", ")
                ))
            }
        }
    }
}

//! A small reference agent loop: enough to run middlewares end to end in tests and
//! examples, and a model of what a real framework's loop does with them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use crate::error::AgentError;
use crate::message::{AssistantMessage, Message, ToolMessage};
use crate::middleware::{AgentMiddleware, ChatModel, ModelNext, ModelRequest, ToolCallRequest, ToolNext};
use crate::runner::AgentRunner;
use crate::tool::{Tool, ToolOutput, ToolSpec};

/// The default limit of model calls in one invocation.
pub const DEFAULT_MAX_STEPS: usize = 25;

/// Why an [`Agent`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentBuildError {
    /// Two tools (the agent's own or a middleware's) have the same name.
    #[error("two tools are named '{0}'")]
    DuplicateTool(String),
    /// `max_steps` was zero.
    #[error("max_steps must be at least 1")]
    NoSteps,
}

/// A tool-calling agent loop over a [`ChatModel`] and a stack of [`AgentMiddleware`]s.
///
/// One [`invoke`](Agent::invoke):
/// 1. runs every middleware's `before_agent` (in order) and applies its update;
/// 2. calls the model through the middleware layers (first added = outermost);
/// 3. appends the model's turn; if it has no tool calls, runs every middleware's
///    `after_agent` (innermost first), applies their updates and returns the turn;
/// 4. otherwise runs each tool call in order through the layers, applying each result
///    (a message, or a [`Command`](crate::Command)'s update and messages) before the
///    next call runs, and goes back to 2.
///
/// The state is borrowed mutably, so on error it holds everything done up to that point.
#[derive(Debug)]
pub struct Agent {
    model: Arc<dyn ChatModel>,
    system_prompt: Option<String>,
    middlewares: Vec<Arc<dyn AgentMiddleware>>,
    tools: Vec<Arc<dyn Tool>>,
    specs: Vec<ToolSpec>,
    max_steps: usize,
}

impl Agent {
    /// Starts building an agent around `model`.
    pub fn builder(model: Arc<dyn ChatModel>) -> AgentBuilder {
        AgentBuilder {
            model,
            system_prompt: None,
            middlewares: Vec::new(),
            tools: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
        }
    }

    /// The tools offered to the model: the agent's own, then each middleware's.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// Runs the agent on `state` until the model answers without tool calls, and returns
    /// that answer.
    pub async fn invoke(&self, state: &mut crate::AgentState) -> Result<AssistantMessage, AgentError> {
        self.run(state, self.system_prompt.as_deref()).await
    }

    /// [`invoke`](Self::invoke) with `instructions` as the base system prompt instead of
    /// the agent's own (a forked skill runs its body this way).
    pub async fn invoke_with_instructions(
        &self,
        state: &mut crate::AgentState,
        instructions: &str,
    ) -> Result<AssistantMessage, AgentError> {
        self.run(state, Some(instructions)).await
    }

    async fn run(
        &self,
        state: &mut crate::AgentState,
        system_prompt: Option<&str>,
    ) -> Result<AssistantMessage, AgentError> {
        for middleware in &self.middlewares {
            if let Some(update) = middleware.before_agent(state).await? {
                state.apply(update);
            }
        }
        for _ in 0..self.max_steps {
            let request = ModelRequest {
                system_message: system_prompt.map(str::to_owned),
                messages: Cow::Borrowed(&state.messages),
                tools: Cow::Borrowed(&self.specs),
                state,
                model: None,
                effort: None,
            };
            let response = ModelNext::new(&self.middlewares, &*self.model).run(request).await?;
            let turn = response.message;
            state.messages.push(Message::Assistant(turn.clone()));
            if turn.tool_calls.is_empty() {
                for middleware in self.middlewares.iter().rev() {
                    if let Some(update) = middleware.after_agent(state).await? {
                        state.apply(update);
                    }
                }
                return Ok(turn);
            }
            for call in &turn.tool_calls {
                let request = ToolCallRequest {
                    call: call.clone(),
                    state,
                };
                let output = ToolNext::new(&self.middlewares, &self.tools)
                    .with_agent(self)
                    .run(request)
                    .await;
                apply_tool_output(state, &call.id, output);
            }
        }
        Err(AgentError::StepLimit(self.max_steps))
    }
}

#[async_trait::async_trait]
impl AgentRunner for Agent {
    async fn run_with_instructions(
        &self,
        state: &mut crate::AgentState,
        instructions: &str,
    ) -> Result<AssistantMessage, AgentError> {
        self.invoke_with_instructions(state, instructions).await
    }
}

/// Applies a tool's output to the state. Every call gets an answer in the history: a
/// command without a message for the call gets an empty success message, so that the
/// transcript stays valid for chat APIs that require one answer per call.
fn apply_tool_output(state: &mut crate::AgentState, call_id: &str, output: ToolOutput) {
    let answered = output.tool_message(call_id).is_some();
    match output {
        ToolOutput::Message(message) if answered => state.messages.push(Message::Tool(message)),
        ToolOutput::Message(message) => {
            // A tool answered with another call's id: keep its text, fix the id.
            state.messages.push(Message::Tool(ToolMessage {
                tool_call_id: call_id.to_owned(),
                ..message
            }));
        }
        ToolOutput::Command(command) => {
            state.apply(command.update);
            state.messages.extend(command.messages);
            if !answered {
                state.messages.push(Message::Tool(ToolMessage::success(call_id, "")));
            }
        }
    }
}

/// Builds an [`Agent`].
#[derive(Debug)]
pub struct AgentBuilder {
    model: Arc<dyn ChatModel>,
    system_prompt: Option<String>,
    middlewares: Vec<Arc<dyn AgentMiddleware>>,
    tools: Vec<Arc<dyn Tool>>,
    max_steps: usize,
}

impl AgentBuilder {
    /// The base system prompt; middlewares append to it on each model call.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Adds a middleware. The first added is the outermost layer.
    pub fn middleware(mut self, middleware: Arc<dyn AgentMiddleware>) -> Self {
        self.middlewares.push(middleware);
        self
    }

    /// Adds a tool of the agent's own.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds several tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// The most model calls one invocation may make (default [`DEFAULT_MAX_STEPS`]).
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps;
        self
    }

    /// Builds the agent; tool names must be unique.
    pub fn build(self) -> Result<Agent, AgentBuildError> {
        if self.max_steps == 0 {
            return Err(AgentBuildError::NoSteps);
        }
        let mut tools = self.tools;
        for middleware in &self.middlewares {
            tools.extend(middleware.tools());
        }
        let mut seen = HashSet::new();
        for tool in &tools {
            if !seen.insert(tool.name().to_owned()) {
                return Err(AgentBuildError::DuplicateTool(tool.name().to_owned()));
            }
        }
        let specs = tools.iter().map(|t| t.spec()).collect();
        Ok(Agent {
            model: self.model,
            system_prompt: self.system_prompt,
            middlewares: self.middlewares,
            tools,
            specs,
            max_steps: self.max_steps,
        })
    }
}

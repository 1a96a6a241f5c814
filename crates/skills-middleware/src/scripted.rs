//! A chat model that follows a script: for tests and examples that run without an LLM.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;

use crate::message::{AssistantMessage, Message, ToolCall};
use crate::middleware::{ChatModel, ModelError, ModelRequest, ModelResponse};

type Responder = Box<dyn Fn(&ModelRequest<'_>) -> AssistantMessage + Send + Sync>;

enum Step {
    Fixed(AssistantMessage),
    Computed(Responder),
}

/// What a [`ScriptedModel`] was given on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenRequest {
    /// The system message, with every middleware's sections.
    pub system_message: Option<String>,
    /// The conversation as the model saw it.
    pub messages: Vec<Message>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
    /// The model the call asked for (`None`: the agent's own).
    pub model: Option<String>,
    /// The effort the call asked for.
    pub effort: Option<String>,
}

impl SeenRequest {
    /// What the tools answered in the conversation the model saw, oldest first.
    ///
    /// ```
    /// use skills_middleware::{Message, SeenRequest, ToolMessage};
    /// let seen = SeenRequest {
    ///     system_message: None,
    ///     messages: vec![Message::user("hi"), Message::Tool(ToolMessage::success("call-1", "the answer"))],
    ///     tools: Vec::new(),
    ///     model: None,
    ///     effort: None,
    /// };
    /// assert_eq!(seen.tool_results(), ["the answer"]);
    /// ```
    pub fn tool_results(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(t) => Some(t.content.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A [`ChatModel`] that answers each call with the next step of its script and records
/// every request, so tests can check what the model was shown.
///
/// ```
/// use serde_json::json;
/// use skills_middleware::ScriptedModel;
///
/// let model = ScriptedModel::new()
///     .tool_call("load_skill", json!({"skill_name": "web-research"}))
///     .reply("Done.");
/// assert_eq!(model.remaining(), 2);
/// ```
#[derive(Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Step>>,
    seen: Mutex<Vec<SeenRequest>>,
    calls: Mutex<usize>,
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("remaining", &self.remaining())
            .field("seen", &lock(&self.seen).len())
            .finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not turn every later call into a second panic.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ScriptedModel {
    /// An empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// Next, answer with `message`.
    pub fn then(self, message: AssistantMessage) -> Self {
        lock(&self.script).push_back(Step::Fixed(message));
        self
    }

    /// Next, answer with a final text.
    pub fn reply(self, text: impl Into<String>) -> Self {
        self.then(AssistantMessage::text(text))
    }

    /// Next, call one tool; the call id is `call_<n>` (n counts tool calls from 1).
    pub fn tool_call(self, name: impl Into<String>, args: serde_json::Value) -> Self {
        let id = {
            let mut calls = lock(&self.calls);
            *calls += 1;
            format!("call_{calls}")
        };
        self.then(AssistantMessage::tool_calls([ToolCall::new(id, name, args)]))
    }

    /// Next, answer with whatever `respond` computes from the request (for answers that
    /// depend on earlier tool results).
    pub fn respond_with(self, respond: impl Fn(&ModelRequest<'_>) -> AssistantMessage + Send + Sync + 'static) -> Self {
        lock(&self.script).push_back(Step::Computed(Box::new(respond)));
        self
    }

    /// How many steps are left.
    pub fn remaining(&self) -> usize {
        lock(&self.script).len()
    }

    /// Every request seen so far, oldest first.
    pub fn seen(&self) -> Vec<SeenRequest> {
        lock(&self.seen).clone()
    }
}

#[async_trait]
impl ChatModel for ScriptedModel {
    async fn invoke(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        lock(&self.seen).push(SeenRequest {
            system_message: request.system_message.clone(),
            messages: request.messages.to_vec(),
            tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            model: request.model.clone(),
            effort: request.effort.clone(),
        });
        let step = lock(&self.script).pop_front();
        let message = match step {
            Some(Step::Fixed(message)) => message,
            Some(Step::Computed(respond)) => respond(&request),
            None => return Err(ModelError::new("the scripted model has no more responses")),
        };
        Ok(ModelResponse { message })
    }
}

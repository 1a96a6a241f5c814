//! Conversation messages: what the model reads and writes.

use serde::{Deserialize, Serialize};

/// One message of a conversation. The system message is not part of the history: it is
/// built for each model call ([`ModelRequest::system_message`](crate::ModelRequest)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// A message from the user.
    User {
        /// The text.
        content: String,
    },
    /// A model turn: text and/or tool calls.
    Assistant(AssistantMessage),
    /// The result of one tool call.
    Tool(ToolMessage),
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// The tool result, if this is one.
    pub fn as_tool(&self) -> Option<&ToolMessage> {
        match self {
            Self::Tool(m) => Some(m),
            _ => None,
        }
    }

    /// The message's text.
    pub fn content(&self) -> &str {
        match self {
            Self::User { content } => content,
            Self::Assistant(m) => &m.content,
            Self::Tool(m) => &m.content,
        }
    }
}

/// A model turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The text the model wrote (may be empty when it only calls tools).
    pub content: String,
    /// The tools the model asks to run, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
}

impl AssistantMessage {
    /// A final answer: text, no tool calls.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            tool_calls: Vec::new(),
        }
    }

    /// A turn that only calls tools.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Self {
            content: String::new(),
            tool_calls: calls.into_iter().collect(),
        }
    }
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The model's id for this call; the answering [`ToolMessage`] carries it back.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, a JSON object matching the tool's schema (unchecked: models err).
    pub args: serde_json::Value,
}

impl ToolCall {
    /// A tool call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, args: serde_json::Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            args,
        }
    }
}

/// Whether a tool call did what was asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool ran and its content is the result.
    #[default]
    Success,
    /// The call was refused or failed; the content says why.
    Error,
}

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolMessage {
    /// The [`ToolCall::id`] this answers.
    pub tool_call_id: String,
    /// The result, or what went wrong.
    pub content: String,
    /// Success or error.
    #[serde(default)]
    pub status: ToolStatus,
}

impl ToolMessage {
    /// A successful result.
    pub fn success(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            status: ToolStatus::Success,
        }
    }

    /// An error result.
    pub fn error(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            status: ToolStatus::Error,
        }
    }

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        self.status == ToolStatus::Error
    }
}

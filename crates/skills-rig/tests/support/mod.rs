//! A scripted rig completion model that answers each request by looking at it, and a
//! skill library on disk.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rig_core::completion::{AssistantContent, CompletionRequest, CompletionResponse, Usage};
use rig_core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_core::error::ProviderError;
use rig_core::message::{Message, Origin, ToolResultContent, UserContent};
use rig_core::test_utils::{MOCK_API, MockFrame, MockScript};

type Reply = Box<dyn FnOnce(&CompletionRequest) -> Vec<AssistantContent> + Send>;

/// The transport of rig's scripted wire: each request is recorded, then answered by the
/// next reply of the script, which sees the request (its preamble, its tool results).
#[derive(Clone, Default)]
pub struct Scripted {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<CompletionRequest>>>,
}

impl Scripted {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a reply computed from the request it answers.
    pub fn then(self, reply: impl FnOnce(&CompletionRequest) -> Vec<AssistantContent> + Send + 'static) -> Self {
        self.replies.lock().unwrap().push_back(Box::new(reply));
        self
    }

    /// Appends a tool call.
    pub fn call(self, id: &str, tool: &str, args: serde_json::Value) -> Self {
        let (id, tool) = (id.to_owned(), tool.to_owned());
        self.then(move |_| {
            let name = rig_core::message::ToolName::new(tool).unwrap();
            vec![AssistantContent::tool_call(id, name, args)]
        })
    }

    /// Appends a final text answer.
    pub fn text(self, text: &str) -> Self {
        let text = text.to_owned();
        self.then(move |_| vec![AssistantContent::text(text)])
    }

    /// The model over this script.
    pub fn model(&self) -> Model<MockScript, Scripted> {
        Model::new(MockScript::default(), self.clone())
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// The replies not used yet.
    pub fn pending(&self) -> usize {
        self.replies.lock().unwrap().len()
    }
}

impl Transport<MockScript> for Scripted {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        self.requests.lock().unwrap().push(request.clone());
        let Some(reply) = self.replies.lock().unwrap().pop_front() else {
            return Opening::failed(ProviderError::Provider("the script has no more replies".into()));
        };
        let raw = serde_json::json!({ "scripted": true });
        let origin = Origin::new(MOCK_API, "scripted", "scripted-model");
        let response = CompletionResponse::new(reply(&request), Usage::default(), origin, raw.clone());
        let frames = futures_util::stream::iter([Ok(MockFrame::Response(Box::new(response)))]);
        Opening::ready(Opened::new(frames).with_document(raw))
    }
}

/// The request's preamble (its first system message).
pub fn preamble(request: &CompletionRequest) -> String {
    request
        .chat_history
        .iter()
        .find_map(|message| match message {
            Message::System { content } => Some(content.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The text of every tool result in the request's history, with whether it is an error.
pub fn tool_results(request: &CompletionRequest) -> Vec<(String, bool)> {
    let mut results = Vec::new();
    for message in &request.chat_history {
        let Message::User { content } = message else { continue };
        for part in content {
            if let UserContent::ToolResult(result) = part {
                let text: String = result
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        ToolResultContent::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect();
                results.push((text, result.is_error));
            }
        }
    }
    results
}

/// Writes `skills/<name>/SKILL.md` with `frontmatter` (after name and description) and
/// `body`, under `root`.
pub fn write_skill(root: &Path, name: &str, description: &str, frontmatter: &str, body: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let md = format!("---\nname: {name}\ndescription: {description}\n{frontmatter}---\n{body}\n");
    std::fs::write(dir.join("SKILL.md"), md).unwrap();
}

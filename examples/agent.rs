//! A whole skills flow, step by step, on the example skills that ship in
//! `examples/skills`: no LLM needed, a scripted model plays the agent's part.
//!
//! ```sh
//! cargo run --example agent
//! ```
//!
//! The agent runs with `AllowedToolsPolicy::Restrict`. The model (1) sees the skill list,
//! (2) loads `web-research`, (3) reads a reference the skill offers, (4) tries `bash`,
//! which the loaded skill does not allow, (5) uses `web_search`, which it does, and
//! (6) answers.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;

use serde_json::json;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::middleware::*;
use skills_runtime::{AllowedToolsPolicy, SkillSource};

/// Prints what passes through the agent: the skills list the model is shown, its tool
/// calls and their results. Added first, so it is the outermost layer and sees the
/// system message after the skills middleware has appended its section.
#[derive(Debug, Default)]
struct Narrator;

#[async_trait]
impl AgentMiddleware for Narrator {
    fn name(&self) -> &str {
        "narrator"
    }

    async fn wrap_model_call(
        &self,
        request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        let response = next.run(request).await?;
        let turn = &response.message;
        for call in &turn.tool_calls {
            println!("\nmodel  -> {}({})", call.name, call.args);
        }
        if turn.tool_calls.is_empty() {
            println!("\nmodel  -> answer: {}", turn.content);
        }
        Ok(response)
    }

    async fn wrap_tool_call(&self, request: ToolCallRequest<'_>, next: ToolNext<'_>) -> ToolOutput {
        let id = request.call.id.clone();
        let output = next.run(request).await;
        if let Some(message) = output.tool_message(&id) {
            let status = if message.is_error() { "REFUSED/ERROR" } else { "ok" };
            let state_change = if output.as_command().is_some() {
                " (updates state)"
            } else {
                ""
            };
            println!("tool   <- {status}{state_change}");
            for line in message.content.lines().take(4) {
                let short: String = line.chars().take(110).collect();
                println!("         | {short}");
            }
        }
        output
    }
}

/// Sits inside the skills middleware and shows what the model is told about skills: the
/// whole list on the first call, then which skills are marked `[Loaded]`.
#[derive(Debug, Default)]
struct ShowSkillList {
    calls: std::sync::atomic::AtomicUsize,
}

#[async_trait]
impl AgentMiddleware for ShowSkillList {
    fn name(&self) -> &str {
        "show-skill-list"
    }

    async fn wrap_model_call(
        &self,
        request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let system = request.system_message.as_deref().unwrap_or_default();
        if call == 1 {
            println!("\n--- model call 1; the system prompt lists these skills:");
            for line in system
                .lines()
                .filter(|l| l.starts_with("- **") || l.starts_with("  -> "))
            {
                let short: String = line.chars().take(110).collect();
                println!("  {short}");
            }
        } else {
            let loaded: Vec<&str> = system
                .lines()
                .filter(|l| l.contains("** [Loaded]"))
                .filter_map(|l| l.strip_prefix("- **")?.split("**").next())
                .collect();
            println!("\n--- model call {call}; skills marked [Loaded]: {}", loaded.join(", "));
        }
        next.run(request).await
    }
}

/// A stand-in for a real web search tool.
fn web_search() -> FnTool {
    FnTool::new(
        "web_search",
        "Search the web (stand-in: returns a fixed result).",
        |args| {
            let query = args["query"].as_str().unwrap_or_default();
            Ok(format!("3 results for '{query}': doc.rust-lang.org/edition-guide, ..."))
        },
    )
    .with_parameters(json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}))
}

/// A shell tool that the example never really runs: Restrict mode refuses it.
fn bash() -> FnTool {
    FnTool::new("bash", "Run a shell command (stand-in).", |_| {
        Err("this example never runs shell commands".into())
    })
    .with_parameters(json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}))
}

/// The path of the first `[reference]` resource in the latest tool result.
fn first_reference(request: &ModelRequest<'_>) -> Option<String> {
    let content = request.messages.last()?.content();
    let start = content.find("- [reference] `")? + "- [reference] `".len();
    let len = content[start..].find('`')?;
    Some(content[start..start + len].to_owned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
    let backend = Arc::new(FilesystemBackend::new(examples)?); // `/` is examples/skills
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(backend.clone(), "/").with_label("Example"))
        .allowed_tools_policy(AllowedToolsPolicy::Restrict)
        .build()?;

    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "web-research"}))
            .respond_with(|request| {
                let path = first_reference(request).unwrap_or_default();
                AssistantMessage::tool_calls([ToolCall::new("call_read", "read_file", json!({"file_path": path}))])
            })
            .tool_call("bash", json!({"command": "curl https://example.org"}))
            .tool_call("web_search", json!({"query": "Rust 2024 edition changes"}))
            .reply("The Rust 2024 edition changes ... (cited summary)."),
    );
    let agent = Agent::builder(model)
        .system_prompt("You are a research assistant.")
        .middleware(Arc::new(Narrator))
        .middleware(Arc::new(skills))
        .middleware(Arc::new(ShowSkillList::default()))
        .tools(filesystem_tools(backend))
        .tool(Arc::new(web_search()))
        .tool(Arc::new(bash()))
        .build()?;

    let mut state = AgentState::new(vec![Message::user("What changed in the Rust 2024 edition?")]);
    println!("user   : What changed in the Rust 2024 edition?");
    agent.invoke(&mut state).await?;
    let loaded = &state
        .get::<skills_runtime::SkillsState>()
        .map(|s| s.skills_loaded.clone());
    println!("\nloaded skills at the end: {loaded:?}");
    Ok(())
}

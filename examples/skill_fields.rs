//! The skill fields beyond the specification, step by step, on the skills that ship in
//! `examples/skill-fields`: no LLM needed, a scripted model plays the agent's part.
//!
//! ```sh
//! cargo run --example skill_fields
//! ```
//!
//! 1. `release` has `disable-model-invocation: true`: the model is not shown it and its
//!    `load_skill` is refused; the host activates it with arguments, as a person's
//!    `/release 2.1 stable` would.
//! 2. `deep-research` has `context: fork`: `load_skill` runs it in a subagent that sees
//!    no history, on the skill's `model` and `effort`, and answers with its result.
//! 3. `careful-shell` has `allowed-tools` patterns, `disallowed-tools` and hooks: a
//!    prompt hook's note reaches the next model call, the command hook goes to the
//!    host's runner (which only prints it: nothing here runs skill content), `bash(git
//!    log:*)` passes, `web_fetch` and `bash rm` are refused. (The runner prints as the
//!    hook fires, before the transcript of that turn is shown.)

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;

use serde_json::json;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::middleware::*;
use skills_runtime::{AllowedToolsPolicy, SkillArguments, SkillSource};

/// A hook runner that shows what it was handed and lets the call go on.
#[derive(Debug)]
struct PrintingRunner;

#[async_trait]
impl HookRunner for PrintingRunner {
    async fn run(&self, hook: HookInvocation<'_>) -> HookDecision {
        println!(
            "   [host] {} hook of '{}' asks to run `{}` (not run)",
            hook.event.as_str(),
            hook.skill.name,
            hook.command
        );
        HookDecision::Continue
    }
}

fn tool(name: &'static str) -> Arc<FnTool> {
    Arc::new(FnTool::new(name, "a stand-in tool", move |args| {
        Ok(format!("{name} ran with {args}"))
    }))
}

fn show_new_messages(state: &AgentState, from: usize) {
    for message in &state.messages[from..] {
        let text = message.content().lines().next().unwrap_or_default();
        match message {
            Message::User { .. } => println!("   user: {text}"),
            Message::Assistant(turn) if turn.tool_calls.is_empty() => println!("   model: {text}"),
            Message::Assistant(turn) => {
                for call in &turn.tool_calls {
                    println!("   model calls {}({})", call.name, call.args);
                }
            }
            Message::Tool(_) => println!("   -> {text}"),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let library = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skill-fields");
    let backend = Arc::new(FilesystemBackend::new(library)?); // `/` is examples/skill-fields
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(backend, "/").with_label("Examples"))
        .allowed_tools_policy(AllowedToolsPolicy::Restrict)
        // The models this host has: a skill's `model` names one of them, or is ignored.
        .resolve_model(|name| (name == "large-reasoning-model").then(|| "provider/large-v3".to_owned()))
        .hook_runner(Arc::new(PrintingRunner))
        .build()?;

    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "release"}))
            .reply("Releasing is yours to start; I cannot load that skill.")
            .tool_call(
                "load_skill",
                json!({"skill_name": "deep-research", "arguments": "what changed since 2.0?"}),
            )
            .reply("Since 2.0: faster discovery (release notes), a search tool (docs).")
            .tool_call("load_skill", json!({"skill_name": "careful-shell"}))
            .tool_call("bash", json!({"command": "git log --oneline -5"}))
            .tool_call("web_fetch", json!({"url": "https://example.org"}))
            .tool_call("bash", json!({"command": "rm -rf target"}))
            .reply("Release 2.1 is tagged; the changes are summarized above."),
    );
    let agent = Agent::builder(model.clone())
        .system_prompt("You are a release assistant.")
        .middleware(Arc::new(skills.clone()))
        .tools([tool("bash"), tool("web_fetch")].map(|t| t as Arc<dyn Tool>))
        .build()?;

    println!("1. The model asks for a skill that is for people only:");
    let mut state = AgentState::new(vec![Message::user("Release version 2.1 to stable.")]);
    agent.invoke(&mut state).await?;
    show_new_messages(&state, 0);

    println!("\n2. The host activates it, with arguments:");
    let from = state.messages.len();
    let args = SkillArguments::Text("2.1 stable".into());
    skills.activate(&mut state, "release", Some(args)).await?;
    for line in state.messages[from].content().lines().filter(|l| l.contains("2.1")) {
        println!("   {line}");
    }

    println!("\n3. The agent goes on: a forked skill, then a guarded one:");
    let from = state.messages.len();
    agent.invoke(&mut state).await?;
    show_new_messages(&state, from);

    println!("\nWhat each model call was asked for:");
    for (i, seen) in model.seen().iter().enumerate() {
        let system = seen.system_message.as_deref().unwrap_or_default();
        let notes = system.contains("## Skill Hooks");
        println!(
            "   call {}: model {:?}, effort {:?}, {} message(s){}",
            i + 1,
            seen.model.as_deref().unwrap_or("(the agent's own)"),
            seen.effort.as_deref().unwrap_or("(default)"),
            seen.messages.len(),
            if notes { ", with notes from skill hooks" } else { "" }
        );
    }
    Ok(())
}

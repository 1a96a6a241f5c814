//! Helpers of the V2 design tests (`v2_design.rs`, `v2_prompt.rs`).

use std::sync::Arc;

use serde_json::json;
use skills_catalog::AllowedToolsPolicy;
use skills_core::{MemoryBackend, SkillsState};
use skills_middleware::*;

use super::run_before_agent;

pub fn middleware(backend: Arc<MemoryBackend>, policy: AllowedToolsPolicy) -> SkillsMiddleware {
    SkillsMiddleware::builder()
        .paths(backend, ["/skills/user"])
        .allowed_tools_policy(policy)
        .build()
        .unwrap()
}

pub async fn discovered(mw: &SkillsMiddleware) -> AgentState {
    let mut state = AgentState::default();
    run_before_agent(mw, &mut state).await;
    state
}

pub fn skills(state: &AgentState) -> &SkillsState {
    state.get::<SkillsState>().unwrap()
}

pub async fn call_load_skill(mw: &SkillsMiddleware, state: &AgentState, name: &str) -> ToolOutput {
    let tool = mw.tools().into_iter().find(|t| t.name() == LOAD_SKILL).unwrap();
    let runtime = ToolRuntime {
        state,
        tool_call_id: "call_1",
        agent: None,
    };
    tool.call(json!({ "skill_name": name }), runtime).await
}

/// Runs `load_skill` and applies its output to the state, as the agent loop does.
pub async fn load(mw: &SkillsMiddleware, state: &mut AgentState, name: &str) {
    let output = call_load_skill(mw, state, name).await;
    let command = output
        .as_command()
        .cloned()
        .unwrap_or_else(|| panic!("{name} did not load: {output:?}"));
    state.apply(command.update);
}

pub fn message(output: &ToolOutput) -> &ToolMessage {
    output.tool_message("call_1").unwrap()
}

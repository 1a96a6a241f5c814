//! [`AgentRunner`]: what a tool needs of the agent loop running it to start a
//! subagent like it (a forked skill does).

use std::fmt::Debug;

use async_trait::async_trait;

use crate::error::AgentError;
use crate::message::AssistantMessage;
use crate::state::AgentState;

/// An agent loop a tool can run again on a fresh state, with other instructions: how a
/// skill with `context: fork` runs "with the same model and tools as the parent". The
/// reference [`Agent`](crate::Agent) implements it and hands itself to the tools it runs
/// ([`ToolRuntime::agent`](crate::ToolRuntime::agent)); another framework's loop can
/// too.
#[async_trait]
pub trait AgentRunner: Send + Sync + Debug {
    /// Runs on `state` with `instructions` as the base system prompt until the model
    /// answers without tool calls, and returns that answer.
    async fn run_with_instructions(
        &self,
        state: &mut AgentState,
        instructions: &str,
    ) -> Result<AssistantMessage, AgentError>;
}

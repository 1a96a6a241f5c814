//! The agent side of agent-skills: a framework-agnostic middleware contract, a small
//! reference agent loop, and [`SkillsMiddleware`], which gives any agent skills with
//! progressive disclosure (deepagents' `SkillsMiddleware`, V2 design).
//!
//! - The contract: [`AgentMiddleware`] (`before_agent`, `wrap_model_call`,
//!   `wrap_tool_call`, `tools`) with [`ModelNext`] / [`ToolNext`] continuations; the first
//!   middleware added is the outermost layer. Tools ([`Tool`]) answer with a
//!   [`ToolMessage`] or a [`Command`] (state update + messages). Each middleware keeps its
//!   own typed, optionally private part of the [`AgentState`].
//! - The reference loop: [`Agent`] over any [`ChatModel`]; [`ScriptedModel`] plays a
//!   script so everything runs without an LLM; [`ReadFileTool`] / [`LsTool`] read skill
//!   resources through a backend; [`SubAgentTool`] runs a subagent with state isolation.
//! - [`SkillsMiddleware`]: glue between that contract and the catalog layer
//!   (`skills-catalog`): the catalog's snapshot into the thread's state, its prompt
//!   section into every system message, its `load_skill` as [`LoadSkillTool`], and its
//!   [`AllowedToolsPolicy`](skills_catalog::AllowedToolsPolicy) on every tool call.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use serde_json::json;
//! use skills_core::{MemoryBackend, SkillsState};
//! use skills_middleware::{Agent, AgentState, Message, ScriptedModel, SkillsMiddleware};
//!
//! let backend = Arc::new(MemoryBackend::new());
//! backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\nSteps...")?;
//!
//! let model = Arc::new(
//!     ScriptedModel::new()
//!         .tool_call("load_skill", json!({"skill_name": "web"}))
//!         .reply("Done."),
//! );
//! let agent = Agent::builder(model.clone())
//!     .system_prompt("You are helpful.")
//!     .middleware(Arc::new(SkillsMiddleware::new(backend, ["/skills"])?))
//!     .build()?;
//!
//! let mut state = AgentState::new(vec![Message::user("Research Rust 2024")]);
//! let answer = agent.invoke(&mut state).await?;
//! assert_eq!(answer.content, "Done.");
//! assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["web"]);
//!
//! let seen = model.seen();
//! assert!(seen[0].system_message.as_ref().unwrap().contains("load_skill(\"web\")"));
//! assert!(seen[1].system_message.as_ref().unwrap().contains("**web** [Loaded]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The choice a newcomer would not guess: state parts are keyed by **type**, not by
//! string keys. A middleware reads its part with `state.get::<SkillsState>()`, a tool
//! returns a [`Command`] whose [`StateUpdate`] replaces whole parts, and privacy (the
//! deepagents `PrivateStateAttr`) is a property of the part's type ([`StatePart`]).

#![warn(missing_docs)]

mod activate;
mod agent;
mod builder;
mod error;
mod fork;
mod fs_tools;
mod hooks;
mod load_skill;
mod message;
mod middleware;
mod runner;
mod runtime;
mod scripted;
mod search_skills;
mod skills;
mod state;
mod subagent;
mod tool;

pub use activate::{Activation, ActivationError};
pub use agent::{Agent, AgentBuildError, AgentBuilder, DEFAULT_MAX_STEPS};
pub use async_trait::async_trait;
pub use builder::{BuildError, SkillsMiddlewareBuilder};
pub use fork::DEFAULT_FORK_TASK;
pub use fs_tools::{DEFAULT_READ_LIMIT, LsTool, MAX_LINE_CHARS, ReadFileTool, filesystem_tools};
pub use hooks::{HookDecision, HookInvocation, HookRunner, PendingPrompt, SkillHooksState};
pub use load_skill::{LOAD_SKILL, LoadSkillTool};
pub use message::{AssistantMessage, Message, ToolCall, ToolMessage, ToolStatus};
pub use middleware::{
    AgentError, AgentMiddleware, ChatModel, ModelError, ModelNext, ModelRequest, ModelResponse, ToolCallRequest,
    ToolNext,
};
pub use runner::AgentRunner;
pub use runtime::DEFAULT_MAX_FORK_DEPTH;
pub use runtime::ReloadPolicy;
pub use scripted::{ScriptedModel, SeenRequest};
pub use search_skills::{SEARCH_SKILLS, SearchSkillsTool, SearchToolPolicy};
pub use skills::SkillsMiddleware;
pub use state::{AgentState, StatePart, StateUpdate};
pub use subagent::SubAgentTool;
pub use tool::{Command, FnTool, Tool, ToolOutput, ToolRuntime, ToolSpec};

//! skills-rig: Agent Skills for [rig](https://docs.rs/rig-agent) agents.
//!
//! rig agents have tools, a preamble and hooks, but no skills. This crate gives a rig
//! agent the skills a `SkillsMiddleware` agent has, from the same live
//! [`SkillCatalog`](skills_catalog::SkillCatalog) (disk, S3, git, an HTTP registry; hot
//! reload included):
//!
//! - [`Skills`]: the library (the catalog, the budget of the skills list, the
//!   allowed-tools policy), shared by every conversation;
//! - [`SkillSession`]: one conversation's loaded skills, shared by its tools and hook;
//! - the tools [`LoadSkill`] (`load_skill`, with arguments), [`SearchSkills`]
//!   (`search_skills`) and [`ReadSkillResource`] (`read_skill_resource`);
//! - [`SkillsHook`]: each turn's preamble is the agent's own followed by the budgeted
//!   skills list (`[Loaded]` marks included), and tool calls the loaded skills' rules
//!   refuse are skipped with the policy's message.
//!
//! [`SkillSession::install`] adds all of it to a rig `AgentBuilder` in one call:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use rig_agent::AgentBuilder;
//! use rig_core::test_utils::{MockCompletionModel, MockTurn};
//! use skills_backend_fs::FilesystemBackend;
//! use skills_catalog::{SkillCatalog, SkillSource};
//! use skills_rig::Skills;
//!
//! let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
//! let backend = Arc::new(FilesystemBackend::new(examples)?);
//! let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(backend, "/")]));
//! let skills = Skills::new(catalog);
//!
//! // Any rig completion model; this one answers from a script.
//! let model = MockCompletionModel::from_turns([
//!     MockTurn::tool_call("call-1", "load_skill", serde_json::json!({"skill_name": "web-research"})),
//!     MockTurn::text("Done."),
//! ]);
//! let session = skills.session();
//! let agent = session.install(AgentBuilder::new(model), "You are a careful assistant.").build();
//! let answer = agent.prompt("Research Rust 2024 editions").await?;
//! assert_eq!(answer.output(), "Done.");
//! assert_eq!(session.loaded(), ["web-research"]);
//! assert!(session.section().await.contains("**web-research** [Loaded]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! What the middleware does that rig cannot host is left out: a skill with
//! `context: fork` loads like any other (its instructions, not a subagent's answer), and
//! a skill's `model`, `effort` and `hooks` are not applied. Nothing a skill holds is
//! ever run.

#![warn(missing_docs)]

mod hook;
mod install;
mod library;
mod session;
mod skills;
mod tools;

pub use hook::SkillsHook;
pub use install::{DEFAULT_MAX_TURNS, SkillTools, ToolStage};
pub use session::SkillSession;
pub use skills::{Skills, SkillsBuilder};
pub use tools::{
    LOAD_SKILL, LoadSkill, LoadSkillArgs, READ_SKILL_RESOURCE, ReadSkillResource, ReadSkillResourceArgs, SEARCH_SKILLS,
    SearchSkills,
};

/// The rig crates this one is built on, so an agent uses the same versions.
pub use rig_agent;
/// See [`rig_agent`].
pub use rig_core;

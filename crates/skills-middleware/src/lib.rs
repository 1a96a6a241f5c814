//! The agent middleware of agent-skills: `SkillsMiddleware`, which puts the skill catalog
//! into the system prompt and gives the model a `load_skill` tool.
//!
//! **Status: not implemented yet.** It re-exports the core types a middleware user needs
//! today; the middleware itself lands with its own issue. Until then, discover and merge
//! skills with [`list_skills`] and [`merge_last_wins`].

#![warn(missing_docs)]

pub use skills_core::{SkillMetadata, SkillsState, list_skills, merge_last_wins};

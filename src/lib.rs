//! agent-skills: an Agent Skills runtime for Rust agents.
//!
//! Skills are folders with a `SKILL.md` (YAML frontmatter + instructions) plus scripts,
//! references and assets. An agent sees every skill's name and description, and reads a
//! skill's full instructions only when a task needs them (progressive disclosure).
//!
//! This facade re-exports [`skills_core`] (types, the storage contract, parsing,
//! one-source discovery) and [`skills_catalog`] (the live catalog, the one source type,
//! `load_skill`, the prompt section, the policy) at its root, [`sources`] (the source
//! syntax and `skills.toml`), and by cargo feature the backends and the middleware:
//!
//! | feature | module | what |
//! |---|---|---|
//! | `fs` (default) | [`fs`] | local disk |
//! | `middleware` (default) | [`middleware`] | the agent middleware |
//! | `s3` | `s3` | S3, S3-compatible servers and any `object_store` store |
//! | `git` | `git` | a git ref's tree, local or remote, followed as it moves |
//! | `http` | `http` | an HTTP registry (`.well-known/agent-skills` index, digests verified) |
//! | `rig` | `rig` | skills for rig agents (tools, preamble, policy hook; rustc 1.95) |
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use skills_runtime::{fs::FilesystemBackend, list_skills, load_skill, SkillCatalog, SkillSource};
//!
//! let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
//! let backend = FilesystemBackend::new(examples)?;
//! let listing = list_skills(&backend, "/").await?;
//! assert!(listing.skills.iter().any(|s| s.name == "web-research"));
//!
//! // The same skills as a live catalog, as the middleware, the MCP server and the CLI
//! // use them.
//! let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/").with_label("examples")]);
//! let snapshot = catalog.ensure_loaded().await;
//! let answer = load_skill(&snapshot, "web-research", &[]).await;
//! assert!(answer.to_string().starts_with("---\nname: web-research"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

#![warn(missing_docs)]

pub use skills_catalog::*;
pub use skills_core::*;

/// The local-disk backend.
#[cfg(feature = "fs")]
pub use skills_backend_fs as fs;

/// The object-storage backend (S3 and S3-compatible servers).
#[cfg(feature = "s3")]
pub use skills_backend_s3 as s3;

/// The git backend.
#[cfg(feature = "git")]
pub use skills_backend_git as git;

/// The HTTP registry backend (`.well-known/agent-skills`).
#[cfg(feature = "http")]
pub use skills_backend_http as http;

/// The MCP client backend: the skills an MCP server publishes (SEP-2640).
#[cfg(feature = "mcp")]
pub use skills_backend_mcp as mcp;

/// The agent middleware.
#[cfg(feature = "middleware")]
pub use skills_middleware as middleware;

/// Skills for rig agents: tools, the skills list in the preamble, the policy hook.
#[cfg(feature = "rig")]
pub use skills_rig as rig;

mod cache_config;
mod install_config;
mod limits_config;
mod lock_config;
mod open_backends;
mod open_options;
mod prompt_config;
mod search_config;
mod serve_config;
pub mod sources;
mod view_config;

/// The README's and the guide's Rust snippets, compiled and run as doctests so that a
/// snippet cannot rot (the guide is `docs/src`, built with mdBook).
#[cfg(all(
    doctest,
    feature = "fs",
    feature = "middleware",
    feature = "s3",
    feature = "git",
    feature = "http",
    feature = "rig"
))]
mod guide {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/src/sources.md")]
    struct Sources;
    #[doc = include_str!("../docs/src/library.md")]
    struct Library;
    #[doc = include_str!("../docs/src/middleware.md")]
    struct Middleware;
    #[doc = include_str!("../docs/src/skill-fields.md")]
    struct SkillFields;
    #[doc = include_str!("../docs/src/dependencies.md")]
    struct Dependencies;
    #[doc = include_str!("../docs/src/backends.md")]
    struct Backends;
    #[doc = include_str!("../docs/src/hot-reload.md")]
    struct HotReload;
    #[doc = include_str!("../docs/src/security.md")]
    struct Security;
    #[doc = include_str!("../docs/src/search.md")]
    struct Search;
    #[doc = include_str!("../docs/src/locks.md")]
    struct Locks;
    #[doc = include_str!("../docs/src/mcp.md")]
    struct Mcp;
    #[doc = include_str!("../docs/src/cli.md")]
    struct Cli;
    #[doc = include_str!("../docs/src/install.md")]
    struct Install;
}

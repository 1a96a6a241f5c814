//! The core of agent-skills: the types, the storage contract and the pure logic every
//! other crate builds on.
//!
//! - [`SkillMetadata`], [`ResourceMetadata`], [`SkillsState`], [`FileInfo`] and
//!   [`FileDownloadResponse`] mirror deepagents' types.
//! - [`BackendProtocol`] is the one trait storage backends implement; [`MemoryBackend`]
//!   is an implementation for tests and examples.
//! - [`parse_skill_md`] and [`validate_skill_name`] apply the Agent Skills rules and
//!   return typed [`Diagnostic`]s; [`list_skills`] discovers one source and
//!   [`merge_last_wins`] merges several; [`Discovery`] is the same with limits, a
//!   parse cache and each skill's resources ([`resources::resources_from_entries`]).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use skills_core::{list_skills, merge_last_wins, MemoryBackend};
//!
//! let backend = MemoryBackend::new();
//! backend.insert("/base/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
//! backend.insert("/project/web/SKILL.md", "---\nname: web\ndescription: Our way\n---\n")?;
//!
//! let base = list_skills(&backend, "/base").await?;
//! let project = list_skills(&backend, "/project").await?;
//! let merged = merge_last_wins([base.skills, project.skills]);
//! assert_eq!(merged[0].skill.description, "Our way");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The crate root holds the main API; plumbing stays in its module: [`parse`] (the
//! frontmatter split, the verbatim frontmatter, the field limits), [`name`] (the name
//! rules and what may enter a prompt), [`resources`], [`path`] (backend path rules),
//! [`url`] (password redaction), [`blocking`] (blocking work from async backends).
//!
//! The choice a newcomer would not guess: this crate does no I/O of its own and depends
//! on no storage crate. Everything that touches disk, S3 or git lives in a backend crate
//! behind [`BackendProtocol`], so the logic here is tested on [`MemoryBackend`] and runs
//! unchanged on every backend.

#![warn(missing_docs)]

mod backend;
pub mod blocking;
mod cache_base;
mod cache_bytes;
mod cache_codec;
mod cache_spill;
mod cache_window;
mod diagnostic;
pub mod digest;
mod discover;
mod error;
pub mod extensions;
mod fields;
mod file;
mod forgive;
mod frontmatter;
pub mod index;
mod limits;
mod memory;
mod merge;
pub mod name;
mod name_index;
mod one_skill;
pub mod pages;
pub mod parse;
mod parse_cache;
pub mod path;
pub mod poll;
mod probe;
mod profile;
mod read;
mod read_budget;
mod recover;
pub mod resources;
mod skill;
mod skill_files;
mod skill_size;
mod split;
pub mod url;
pub mod utf8;
mod watch;
pub mod window;
mod yaml;
mod yaml_flow;
mod yaml_lines;
mod yaml_simple;

pub use async_trait::async_trait;
pub use backend::{BackendExt, BackendProtocol, Walk};
pub use cache_window::SharedListing;
pub use diagnostic::{Diagnostic, DiagnosticKind, Limit, LimitCut, Severity};
pub use discover::{Discovery, SourceError, Walked, list_skills};
pub use error::{BackendError, with_cause};
pub use extensions::{
    HookAction, HookEvent, McpServerDependency, MissingTools, SkillContext, SkillDependencies, SkillExtensions,
    SkillHook, ToolRequirements,
};
pub use fields::FieldMap;
pub use file::{DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileError, FileErrorKind, FileInfo};
pub use limits::DiscoveryLimits;
pub use memory::MemoryBackend;
pub use merge::{MergedSkill, ShadowedSkill, merge_last_wins, merge_last_wins_indexed};
pub use name::{NameError, validate_skill_name};
pub use name_index::NameIndex;
pub use one_skill::OneSkill;
pub use parse::{ParseOutcome, parse_skill_md};
pub use parse_cache::{DEFAULT_RACY_WINDOW, ParseCache, SpillSink};
pub use profile::{SPEC_FIELDS, ValidationProfile};
pub use skill::{
    FrontmatterValue, LOWERCASE_SKILL_FILE, ResourceKind, ResourceMetadata, SKILL_FILE, SkillListing, SkillMetadata,
    SkillsState, file_name_matches, is_skill_file_name, lowercase_skill_file,
};
pub use skill_files::{ReadAhead, ReadAheadFile, SkillFileRead, parse_download, parse_skill_file};
pub use skill_size::{MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_TREE_DEPTH, SkillSize, size_diagnostics};
pub use watch::{ChangeEvent, ChangeSink, Watch, WatchGuard};

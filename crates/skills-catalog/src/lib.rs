//! The library layer of agent-skills: one live catalog of skills, and everything that
//! answers from it, for every face (the agent middleware, the MCP server, the CLI) to
//! wrap in its own terms.
//!
//! - [`SkillSource`]: a directory of skills inside a backend, with a label and a location
//!   for people. `skills_runtime::sources` opens the source syntax (`s3://...`,
//!   `git+https://...`, `skills.toml`) straight into it.
//! - [`SkillCatalog`]: the merged skills of a list of sources as versioned, immutable
//!   [`CatalogSnapshot`]s, reloaded incrementally (by hand or by [watching](SkillCatalog::watch)
//!   the backends), keeping the last good version of a broken skill, with change
//!   [events](CatalogEvent). A snapshot knows which source serves each skill.
//! - [`load_skill`]: what activating a skill answers ([`LoadAnswer`], the V2 error table).
//! - [`PromptSection`] and [`prompt`]: the skills section of a system prompt, escaped,
//!   cached per (snapshot version, loaded set).
//! - [`SkillIndex`] and [`SkillCatalog::search_prepared`]: what `search_skills` answers,
//!   for libraries too large to list in a prompt, from each skill's name, description
//!   and the opening of its instructions.
//! - [`policy`]: the allowed-tools policy.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use skills_catalog::{LoadAnswer, SkillCatalog, SkillSource, load_skill};
//! use skills_core::MemoryBackend;
//!
//! let backend = Arc::new(MemoryBackend::new());
//! backend.insert("/base/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\nBase steps")?;
//! backend.insert("/team/web/SKILL.md", "---\nname: web\ndescription: Our way\n---\nTeam steps")?;
//! let catalog = SkillCatalog::new(vec![
//!     SkillSource::new(backend.clone(), "/base"),
//!     SkillSource::new(backend, "/team").with_label("Team"),
//! ]);
//! let snapshot = catalog.ensure_loaded().await;
//! assert_eq!(snapshot.get("web").unwrap().description, "Our way");   // the last source wins
//! assert_eq!(snapshot.source_for("web").unwrap().label(), "Team");
//! let answer = load_skill(&snapshot, "web", &[]).await;
//! assert!(matches!(answer, LoadAnswer::Loaded { text } if text.ends_with("Team steps")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The choice a newcomer would not guess: nothing here knows about agents. The catalog
//! answers plain questions (which skills, which source serves one, what loading it says,
//! what the prompt section is) and each face turns the answers into its own shapes: a
//! state update and tool message for an agent, a tool result for MCP, lines of text for
//! the CLI. So the MCP server and the CLI never build an agent to answer a request.

#![warn(missing_docs)]

mod answer;
mod arguments;
mod budget;
mod cache_file;
mod catalog;
mod compact;
mod depends;
mod escape;
mod first_look;
mod frozen;
mod kept_header;
mod kept_listing;
mod listing;
mod load;
pub mod lock;
pub mod manifest;
mod narrow;
mod parse_file;
mod persist;
mod pin;
pub mod policy;
pub mod prompt;
mod rank;
mod read;
mod search;
mod section;
mod select;
mod snapshot;
mod source;
mod spill;
mod spread;
mod watch;

#[cfg(test)]
mod test_random;

pub use answer::{AnswerWriter, FirstLoad};
pub use arguments::{ArgumentsError, MAX_ARGUMENTS, MAX_ARGUMENTS_CHARS, SkillArguments, Substitution, substitute};
pub use budget::{
    BudgetReport, CatalogBudget, DEFAULT_BUDGET_CHARS, EntryCosts, EntryForm, Ranking, UseCounts, format_budgeted_list,
};
pub use cache_file::{
    CacheFileError, MAX_CACHE_FILE_BYTES, Producer, read_cache_file, write_cache_file, write_cache_file_with,
};
pub use catalog::SkillCatalog;
pub use compact::{COMPACT_CHARS, short_entry};
pub use depends::{dependency_diagnostics, dependency_problems, mcp_server_dependencies, with_dependencies};
pub use listing::SharedResources;
pub use load::{
    AVAILABLE_LIST_CHARS, Invoker, LoadAnswer, LoadError, LoadRequest, available_names, load_skill, load_skill_schema,
    load_skill_with,
};
pub use persist::PersistentCache;
pub use policy::{ALWAYS_ALLOWED_TOOLS, AllowedToolsPolicy, check_allowed_tools, check_tool_call};
pub use prompt::{PromptTemplate, SKILLS_SYSTEM_PROMPT, TemplateError};
pub use read::{
    READ_SKILL_RESOURCE_DESCRIPTION, ReadFileError, SkillFile, contained_path, read_skill_file,
    read_skill_resource_schema,
};
pub use search::{
    DEFAULT_SEARCH_RESULTS, Explanation, INSTRUCTIONS_CHARS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS, Match, SearchError,
    SearchHit, SearchRequest, SkillIndex, check_search, format_search_results,
};
pub use section::PromptSection;
pub use select::{NotOffered, Selection, Selector, SkillFilter, SkillView, ToolSet, ViewError};
pub use snapshot::{CatalogChange, CatalogEvent, CatalogSnapshot, CatalogStats};
pub use source::{SkillSource, SourcePathError, free_label};
pub use watch::{WatchError, WatchHandle};

//! The `search_skills` tool: finds skills by what they do, for libraries whose skills do
//! not all fit in the prompt's list.

use std::sync::Arc;

use async_trait::async_trait;
use skills_catalog::{SearchRequest, format_search_results};
use skills_core::SkillsState;

use crate::runtime::SkillsRuntime;
use crate::tool::{Tool, ToolOutput, ToolRuntime, parse_args};

/// The tool's name.
pub const SEARCH_SKILLS: &str = "search_skills";

/// When a [`SkillsMiddleware`](crate::SkillsMiddleware) offers `search_skills`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SearchToolPolicy {
    /// On the model calls whose skills list left some skill without its full entry (the
    /// catalog budget cut it): the model needs the tool to find those.
    #[default]
    WhenCut,
    /// On every model call.
    Always,
    /// Never.
    Never,
}

/// `search_skills(query, limit?)`, contributed by [`SkillsMiddleware`](crate::SkillsMiddleware).
///
/// Answers from [`SkillCatalog::search`](skills_catalog::SkillCatalog::search) with one
/// line per skill, best first: `- name: description (source)`, `[Loaded]` after the name
/// of a loaded skill. `limit` defaults to 8 and is at most 16; an empty query or a limit
/// of 0 is an error message. Searching changes no state.
#[derive(Debug, Clone)]
pub struct SearchSkillsTool {
    runtime: Arc<SkillsRuntime>,
}

impl SearchSkillsTool {
    pub(crate) fn new(runtime: Arc<SkillsRuntime>) -> Self {
        Self { runtime }
    }
}

#[async_trait]
impl Tool for SearchSkillsTool {
    fn name(&self) -> &str {
        SEARCH_SKILLS
    }

    fn description(&self) -> &str {
        "Search all available skills by what they do, including skills the skills list does not show \
         in full. Returns the best matches, best first; load one with load_skill."
    }

    fn parameters(&self) -> serde_json::Value {
        SearchRequest::schema()
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: SearchRequest = match parse_args(SEARCH_SKILLS, args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let catalog = &self.runtime.catalog;
        // The index follows the catalog; the thread's own snapshot decides what is shown.
        catalog.ensure_loaded().await;
        // Answered by the complete index (instructions read): the same request always
        // gets the same answer, even while the background reader is still at work.
        let snapshot = self.runtime.snapshot_for(runtime.state).await;
        let selection = self.runtime.selection(&snapshot);
        let hits = catalog.search_selected_prepared(&args.query, args.limit(), &snapshot, selection.as_deref());
        let hits = match hits.await {
            Ok(hits) => hits,
            Err(error) => return runtime.error(format!("Error: {error}")),
        };
        let loaded = runtime.state.get::<SkillsState>().map_or(&[][..], |s| &s.skills_loaded);
        runtime.success(format_search_results(&snapshot, &hits, loaded))
    }
}

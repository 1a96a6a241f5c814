//! [`SkillSession`]: the skills one conversation has loaded, shared by its tools and its
//! hook. rig agents keep no state of their own between calls, so this is that state.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use skills_catalog::{
    CatalogSnapshot, Invoker, LoadAnswer, LoadRequest, ReadFileError, SearchError, SkillArguments, SkillFile,
    check_tool_call, format_search_results, load_skill_with, read_skill_file,
};

use crate::library::Library;

/// One conversation with a skill library: the skills it has loaded, in load order.
///
/// Its tools ([`LoadSkill`](crate::LoadSkill), [`SearchSkills`](crate::SearchSkills),
/// [`ReadSkillResource`](crate::ReadSkillResource)) and its
/// [`SkillsHook`](crate::SkillsHook) share it, so a skill the model loads is marked
/// `[Loaded]` in the next turn's preamble, a second load says it is already loaded, and the loaded skills' tool
/// rules apply to the calls that follow. Clones share the state; a new conversation
/// takes a new session ([`Skills::session`](crate::Skills::session)).
///
/// Every call reads the catalog's newest snapshot, so a skill added, changed or removed
/// while the agent runs (a reload, a watch) shows in the next turn.
#[derive(Clone)]
pub struct SkillSession {
    pub(crate) library: Arc<Library>,
    loaded: Arc<Mutex<Vec<String>>>,
}

impl fmt::Debug for SkillSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillSession").field("loaded", &self.loaded()).finish()
    }
}

impl SkillSession {
    pub(crate) fn new(library: Arc<Library>) -> Self {
        Self {
            library,
            loaded: Arc::default(),
        }
    }

    /// The catalog this session reads.
    pub fn catalog(&self) -> &Arc<skills_catalog::SkillCatalog> {
        &self.library.catalog
    }

    /// The skills this conversation has loaded, in load order.
    pub fn loaded(&self) -> Vec<String> {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Whether this conversation has loaded any skill (no clone of the list).
    pub(crate) fn has_loaded(&self) -> bool {
        !self.loaded.lock().unwrap_or_else(PoisonError::into_inner).is_empty()
    }

    /// Forgets every loaded skill (a new conversation on the same agent).
    pub fn reset(&self) {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    async fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.library.catalog.ensure_loaded().await
    }

    /// The skills section for the newest snapshot with this session's loaded skills:
    /// the skills list within the library's budget, loaded skills marked `[Loaded]`.
    /// Rendered once per (catalog version, loaded set) and cached, so an unchanged
    /// library gives the same text on every turn (provider prompt caches keep hitting).
    pub async fn section(&self) -> Arc<str> {
        let snapshot = self.snapshot().await;
        let loaded = self.loaded();
        self.library.section.render_fetching(&snapshot, &loaded).await.0
    }

    /// `base`, a blank line, and the [`section`](Self::section): the preamble a turn of
    /// this conversation gets.
    pub async fn preamble(&self, base: &str) -> String {
        let section = self.section().await;
        let base = base.trim_end();
        if base.is_empty() {
            section.trim_start().to_owned()
        } else {
            format!("{base}\n\n{}", section.trim_start())
        }
    }

    /// Loads skill `name` for this conversation, as `invoker` asks: the text of
    /// [`skills_catalog::load_skill_with`] (the `SKILL.md` with its arguments
    /// substituted, and its resources). On success the skill counts as loaded and its use
    /// is recorded in the catalog's use counts; any other answer changes nothing.
    pub async fn load(&self, name: &str, arguments: Option<&SkillArguments>, invoker: Invoker) -> LoadAnswer {
        let snapshot = self.snapshot().await;
        let loaded = self.loaded();
        let selection = self.library.section.selection(&snapshot, None);
        let request = LoadRequest::new(&loaded)
            .with_arguments(arguments)
            .by(invoker)
            .within(selection.as_deref());
        let answer = load_skill_with(&snapshot, name, request).await;
        if matches!(answer, LoadAnswer::Loaded { .. }) {
            self.library.catalog.record_use(name);
            let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
            if !loaded.iter().any(|l| l == name) {
                loaded.push(name.to_owned());
            }
        }
        answer
    }

    /// The host's slash command: loads `name` for this conversation as the user asked for
    /// it, so skills only people may invoke (`disable-model-invocation: true`) load too.
    /// Hand the text to the model as the next user message.
    pub async fn activate(&self, name: &str, arguments: Option<&SkillArguments>) -> LoadAnswer {
        self.load(name, arguments, Invoker::User).await
    }

    /// The `search_skills` answer for `query`: at most `limit` lines
    /// `- name: description (source)`, best first, `[Loaded]` after loaded skills.
    pub async fn search(&self, query: &str, limit: usize) -> Result<String, SearchError> {
        let snapshot = self.snapshot().await;
        let selection = self.library.section.selection(&snapshot, None);
        let catalog = &self.library.catalog;
        let hits = catalog
            .search_selected_prepared(query, limit, &snapshot, selection.as_deref())
            .await?;
        Ok(format_search_results(&snapshot, &hits, &self.loaded()))
    }

    /// One file of skill `name` (`path` relative to its folder, or the full path
    /// `load_skill` lists), contained in the skill's folder.
    pub async fn read_resource(&self, name: &str, path: &str) -> Result<SkillFile, ReadFileError> {
        let snapshot = self.snapshot().await;
        read_skill_file(&snapshot, name, path).await
    }

    /// Whether a call of `tool` with `args` may run while this conversation's skills are
    /// loaded: `None` lets it through, `Some` is the reason it is skipped (a loaded
    /// skill's `disallowed-tools`; under [`Restrict`](skills_catalog::AllowedToolsPolicy::Restrict),
    /// a tool outside the loaded skills' `allowed-tools`). See
    /// [`skills_catalog::check_tool_call`].
    pub async fn check_tool_call(&self, tool: &str, args: &serde_json::Value) -> Option<String> {
        if !self.has_loaded() {
            return None;
        }
        let loaded = self.loaded();
        let snapshot = self.snapshot().await;
        let skills = loaded.iter().filter_map(|name| snapshot.get(name));
        check_tool_call(self.library.section.policy(), tool, args, skills)
    }
}

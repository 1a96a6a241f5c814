//! [`SkillsServer`]: the MCP handler. Every request reads the catalog snapshot current
//! when it arrives; nothing here runs a skill's scripts.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscriptionFilter, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use skills_runtime::name::check_skill_name;
use skills_runtime::{
    AllowedToolsPolicy, BackendProtocol, CatalogBudget, CatalogSnapshot, PromptSection, PromptTemplate, ReadFileError,
    Selection, SkillCatalog, SkillMetadata, SkillView, read_skill_file,
};

use super::files::{self, DigestCache};

/// The MCP server of a skills library: the SEP-2640 skills extension, plain
/// `skill://` resources, and the `list_skills`, `load_skill` and `read_skill_resource`
/// tools, over one [`SkillCatalog`] that may be watched. The surfaces live in their own
/// modules (`skills_ext`, `resources`, `tools`, `notify`); this one holds what they share
/// and the [`ServerHandler`] that hands each request to them.
#[derive(Debug, Clone)]
pub struct SkillsServer {
    pub(super) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) catalog: Arc<SkillCatalog>,
    pub(super) digests: DigestCache,
    /// Skills `skills/list` leaves out, by `SKILL.md` path, with the reason last said.
    pub(super) left_out: dashmap::DashMap<String, String>,
    /// The skills list the `list_skills` tool answers and `instructions` carry, within
    /// the server's budget.
    pub(super) section: PromptSection,
    /// The instructions for the newest snapshot.
    instructions: PerVersion<Arc<str>>,
    /// The most characters of the instructions.
    pub(super) instructions_budget: usize,
    /// The skills of the newest snapshot whose names no `skill://` URI can hold (by
    /// index).
    unnamed: PerVersion<Arc<[usize]>>,
}

/// A value made for one catalog version, kept until another version asks.
#[derive(Debug, Default)]
struct PerVersion<T>(std::sync::Mutex<Option<(u64, T)>>);

impl<T: Clone> PerVersion<T> {
    /// The value for `version`, made by `make` unless it is the one kept.
    fn get(&self, version: u64, make: impl FnOnce() -> T) -> T {
        let mut kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match kept.as_ref() {
            Some((at, value)) if *at == version => value.clone(),
            _ => kept.insert((version, make())).1.clone(),
        }
    }
}

/// Why a file of a skill cannot be served.
pub(super) enum ReadError {
    UnknownSkill(String),
    Refused(String),
    NotFound(String),
    Failed(String),
}

impl ReadError {
    /// The JSON-RPC error for a read of `uri`; a not-found error carries the URI in
    /// `data`, as MCP asks.
    pub(super) fn into_error_data(self, uri: &str) -> ErrorData {
        match self {
            Self::UnknownSkill(message) | Self::NotFound(message) => {
                ErrorData::resource_not_found(message, Some(uri_data(uri)))
            }
            Self::Refused(message) => ErrorData::invalid_params(message, None),
            Self::Failed(message) => ErrorData::internal_error(message, None),
        }
    }

    pub(super) fn message(&self) -> &str {
        match self {
            Self::UnknownSkill(m) | Self::Refused(m) | Self::NotFound(m) | Self::Failed(m) => m,
        }
    }
}

impl SkillsServer {
    /// A server over `catalog` (loaded on the first request if it was not), whose skills
    /// list (`list_skills`) stays within `budget` and whose `instructions` within
    /// `instructions_budget` characters; with a `view`, only its skills (and those they
    /// depend on) on every face: the skills extension, resources, prompts, tools and
    /// instructions.
    pub fn new(
        catalog: Arc<SkillCatalog>,
        budget: CatalogBudget,
        instructions_budget: usize,
        view: Option<Arc<SkillView>>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                // A server does not know its client's tools: every skill is listed, and
                // those that need tools name them.
                section: PromptSection::of_catalog(&catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default())
                    .with_budget(budget)
                    .with_view(view)
                    .with_unchecked_tools(true),
                catalog,
                digests: DigestCache::default(),
                left_out: dashmap::DashMap::new(),
                instructions: PerVersion::default(),
                instructions_budget,
                unnamed: PerVersion::default(),
            }),
        }
    }

    /// Lists the resources the `list_skills` list's full entries summarize, now and
    /// after every catalog change, so that the tool answers without listing them first
    /// (the catalog lists resources lazily; the instructions carry short entries only).
    pub async fn keep_list_fresh(&self) {
        let snapshot = self.snapshot().await;
        self.inner.section.fetch_full_resources(&snapshot, &[]).await;
        let server = self.clone();
        let mut events = self.inner.catalog.subscribe();
        tokio::spawn(async move {
            // A lagged receiver takes the newest snapshot as well; only a closed
            // catalog ends the task.
            while !matches!(
                events.recv().await,
                Err(tokio::sync::broadcast::error::RecvError::Closed)
            ) {
                let snapshot = server.snapshot().await;
                server.inner.section.fetch_full_resources(&snapshot, &[]).await;
            }
        });
    }

    /// The server's instructions for the current snapshot (rendered once per catalog
    /// version): see [`instructions::render`](super::instructions::render).
    pub(super) fn instructions(&self) -> Arc<str> {
        let snapshot = self.inner.catalog.snapshot();
        self.inner.instructions.get(snapshot.version(), || {
            let skills = snapshot.skills();
            let tools_only = self
                .unnamed(&snapshot)
                .iter()
                .filter(|&&i| self.offers(&snapshot, &skills[i].name))
                .count();
            let budget = self.inner.instructions_budget;
            Arc::from(super::instructions::render(
                &snapshot,
                &self.inner.section,
                tools_only,
                budget,
            ))
        })
    }

    /// The skills of `snapshot` whose names no `skill://` URI can hold, by index: found
    /// once per catalog version (a pass over a large library's skills takes milliseconds).
    pub(super) fn unnamed(&self, snapshot: &CatalogSnapshot) -> Arc<[usize]> {
        self.inner.unnamed.get(snapshot.version(), || {
            let unnamed = snapshot.skills().iter().enumerate().filter(|(_, s)| !servable(s));
            unnamed.map(|(i, _)| i).collect()
        })
    }

    pub(super) async fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.inner.catalog.ensure_loaded().await
    }

    /// What the server offers of `snapshot`: `None` for every skill, or its view's.
    pub(super) fn selection(&self, snapshot: &CatalogSnapshot) -> Option<Arc<Selection>> {
        self.inner.section.selection(snapshot, None)
    }

    /// Whether the server offers skill `name` of `snapshot` (its view has it).
    pub(super) fn offers(&self, snapshot: &CatalogSnapshot, name: &str) -> bool {
        self.selection(snapshot).is_none_or(|s| s.offers(snapshot, name))
    }

    /// The skills offered that have `skill://` URIs.
    pub(super) fn servable<'a>(&self, snapshot: &'a CatalogSnapshot) -> Vec<&'a SkillMetadata> {
        let selection = self.selection(snapshot);
        snapshot
            .skills()
            .iter()
            .map(|s| &**s)
            .filter(|s| servable(s) && selection.as_ref().is_none_or(|v| v.offers(snapshot, &s.name)))
            .collect()
    }

    /// The skill `name`, if it is offered and has `skill://` URIs.
    pub(super) fn servable_skill<'a>(&self, snapshot: &'a CatalogSnapshot, name: &str) -> Option<&'a SkillMetadata> {
        snapshot
            .get(name)
            .filter(|s| servable(s) && self.offers(snapshot, name))
    }

    /// The source serving skill `name` (its index and backend).
    pub(super) fn backend_of(snapshot: &CatalogSnapshot, name: &str) -> Option<(usize, Arc<dyn BackendProtocol>)> {
        Some((snapshot.source_of(name)?, snapshot.source_for(name)?.backend().clone()))
    }

    /// Reads `asked` (relative to the skill's folder) of skill `name`.
    pub(super) async fn read_file(&self, name: &str, asked: &str) -> Result<(String, Vec<u8>), ReadError> {
        let snapshot = self.snapshot().await;
        let Some(skill) = self.servable_skill(&snapshot, name) else {
            return Err(ReadError::UnknownSkill(format!("no skill named {:?}", shorten(name))));
        };
        // The skill file is served as SKILL.md whatever its name on disk (`skill.md`).
        let asked = if asked == skills_runtime::SKILL_FILE {
            files::skill_file_name(skill)
        } else {
            asked
        };
        let uri = |rel: &str| files::file_uri(name, rel);
        match read_skill_file(&snapshot, name, asked).await {
            Ok(file) => Ok((uri(&file.rel), file.bytes)),
            Err(error) => Err(match error {
                ReadFileError::UnknownSkill(_) => ReadError::UnknownSkill(error.to_string()),
                ReadFileError::Outside(message) => ReadError::Refused(message),
                ReadFileError::NotFound(rel) => ReadError::NotFound(format!("{} does not exist", uri(&rel))),
                ReadFileError::IsDirectory(rel) => ReadError::Refused(format!(
                    "{} is a directory (list it with resources/directory/read)",
                    uri(&rel)
                )),
                ReadFileError::Refused { rel, reason } => {
                    ReadError::Refused(format!("{} cannot be served: {reason}", uri(&rel)))
                }
                ReadFileError::TooLarge { rel, limit } => {
                    ReadError::Refused(format!("{} exceeds the maximum file size ({limit} bytes)", uri(&rel)))
                }
                ReadFileError::Failed { rel, reason } => {
                    ReadError::Failed(format!("{} could not be read: {reason}", uri(&rel)))
                }
            }),
        }
    }
}

/// Whether a skill can be named by a `skill://` URI: every valid name. A lenient catalog
/// may hold others (uppercase ones, which URI authorities fold); those are left out of
/// the URIs rather than mangled, and stay reachable through the tools.
pub(super) fn servable(skill: &SkillMetadata) -> bool {
    check_skill_name(&skill.name).is_ok()
}

/// At most 200 characters of a name a client sent, for messages.
pub(super) fn shorten(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The page of `items` a cursor (a decimal offset) asks for, and the next cursor.
pub(super) fn page<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= items.len())
            .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor {:?}", shorten(text)), None))?,
    };
    let end = items.len().min(start + size);
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}

pub(super) fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|r| r.cursor.as_deref())
}

/// `{"uri": uri}`, the `data` of an error about one resource.
pub(super) fn uri_data(uri: &str) -> serde_json::Value {
    serde_json::json!({ "uri": uri })
}

/// Each request goes to the surface that answers it: the skills extension
/// (`skills_ext`), plain resources (`resources`), tools (`tools`), change notifications
/// (`notify`).
impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_skills_with_directory_read()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("agent-skills", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions().to_string())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.forward_changes(context.peer);
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_for_changes(context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.resources_list(request).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.resource_templates(request).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.resource_read(request).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.directory_read(request).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.skills_list(request).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.skills_get(request).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(Self::tool_specs()))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.prompts_list(request).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.prompt_get(request).await.map(GetPromptResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        Self::tool_specs().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tool_call(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_the_cursor_to_the_end() {
        let items: Vec<u32> = (0..25).collect();
        let (first, next) = page(&items, None, 10).unwrap();
        assert_eq!((first.len(), next.as_deref()), (10, Some("10")));
        let (second, next) = page(&items, next.as_deref(), 10).unwrap();
        assert_eq!((second[0], next.as_deref()), (10, Some("20")));
        let (last, next) = page(&items, next.as_deref(), 10).unwrap();
        assert_eq!((last, next), ((20..25).collect::<Vec<_>>(), None));
        assert_eq!(page(&items, Some("25"), 10).unwrap(), (Vec::new(), None));
        for bad in ["26", "-1", "x"] {
            assert!(page(&items, Some(bad), 10).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_value_per_version_is_made_once_for_each_version_asked() {
        let kept = super::PerVersion::default();
        let made = std::cell::Cell::new(0);
        let make = |v: u64| {
            made.set(made.get() + 1);
            v * 10
        };
        assert_eq!([1, 1, 2, 2, 1].map(|v| kept.get(v, || make(v))), [10, 10, 20, 20, 10]);
        assert_eq!(made.get(), 3, "made again only when the version changed");
    }
}

//! [`SkillsServer`]: the MCP handler. Every request reads the catalog snapshot current
//! when it arrives; nothing here runs a skill's scripts.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DIRECTORY_MIME_TYPE, ErrorData,
    GetSkillRequestParams, GetSkillResult, Implementation, JsonObject, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Skill, SkillFrontmatter, SubscriptionFilter,
    Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{Peer, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{Value, json};
use skills_core::{BackendProtocol, FileErrorKind, SKILL_FILE, SkillMetadata, check_skill_name, path};
use skills_middleware::prompt::{ListContext, format_skills_list};
use skills_middleware::{
    AllowedToolsPolicy, CatalogChange, CatalogEvent, CatalogSnapshot, LOAD_SKILL, SkillsMiddleware, ToolStatus,
};
use tokio::sync::broadcast::{self, error::RecvError};

use super::files::{self, DigestCache, INDEX_URI, SkillUri};

/// Skills per `skills/list` page (each costs a listing of the skill's folder).
const SKILLS_PAGE: usize = 100;
/// Resources per `resources/list` page.
const RESOURCES_PAGE: usize = 1_000;

/// The `list_skills` tool.
pub const LIST_SKILLS: &str = "list_skills";
/// The `read_skill_resource` tool.
pub const READ_SKILL_RESOURCE: &str = "read_skill_resource";

const INSTRUCTIONS: &str = "This server serves Agent Skills: folders of instructions (SKILL.md) with \
scripts, references and assets. Call list_skills to see what is available, load_skill(name) to read a \
skill's full instructions before following it, and read_skill_resource(name, path) for one of its files. \
Skill files are data from the library's authors: this server never runs them.";

/// The MCP server of a skills library: the SEP-2640 skills extension, plain
/// `skill://` resources, and the `list_skills`, `load_skill` and `read_skill_resource`
/// tools, over one [`SkillsMiddleware`] whose catalog may be watched.
#[derive(Debug, Clone)]
pub struct SkillsServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    skills: SkillsMiddleware,
    digests: DigestCache,
}

/// Why a file of a skill cannot be served.
enum ReadError {
    UnknownSkill(String),
    Refused(String),
    NotFound(String),
    Failed(String),
}

impl ReadError {
    fn into_error_data(self) -> ErrorData {
        match self {
            Self::UnknownSkill(message) | Self::NotFound(message) => ErrorData::resource_not_found(message, None),
            Self::Refused(message) => ErrorData::invalid_params(message, None),
            Self::Failed(message) => ErrorData::internal_error(message, None),
        }
    }

    fn message(&self) -> &str {
        match self {
            Self::UnknownSkill(m) | Self::Refused(m) | Self::NotFound(m) | Self::Failed(m) => m,
        }
    }
}

impl SkillsServer {
    /// A server over `skills` (its catalog is loaded on the first request).
    pub fn new(skills: SkillsMiddleware) -> Self {
        Self {
            inner: Arc::new(Inner {
                skills,
                digests: DigestCache::default(),
            }),
        }
    }

    async fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.inner.skills.catalog().ensure_loaded().await
    }

    /// The skills that have `skill://` URIs.
    fn servable(snapshot: &CatalogSnapshot) -> impl Iterator<Item = &SkillMetadata> {
        snapshot.skills().iter().filter(|s| servable(s))
    }

    /// The skill `name`, if it has `skill://` URIs.
    fn servable_skill<'a>(snapshot: &'a CatalogSnapshot, name: &str) -> Option<&'a SkillMetadata> {
        snapshot.get(name).filter(|s| servable(s))
    }

    fn backend_of(&self, snapshot: &CatalogSnapshot, name: &str) -> Option<(usize, Arc<dyn BackendProtocol>)> {
        let index = snapshot.source_of(name)?;
        let source = self.inner.skills.catalog().sources().get(index)?;
        Some((index, source.backend().clone()))
    }

    async fn skill_entry(&self, snapshot: &CatalogSnapshot, skill: &SkillMetadata) -> Skill {
        let manifest = match self.backend_of(snapshot, &skill.name) {
            Some((index, backend)) => self.inner.digests.manifest(backend.as_ref(), index, skill).await,
            None => None,
        };
        let frontmatter = match manifest.as_ref().and_then(|m| m.frontmatter.as_deref()) {
            Some(written) => verbatim_frontmatter(skill, written),
            None => frontmatter(skill),
        };
        Skill::new(
            files::skill_md_uri(&skill.name),
            frontmatter,
            files::skill_resources(&skill.name, manifest.as_ref().map(|m| m.files.as_slice())),
        )
    }

    /// Reads `asked` (relative to the skill's folder) of skill `name`.
    async fn read_file(&self, name: &str, asked: &str) -> Result<(String, Vec<u8>), ReadError> {
        let snapshot = self.snapshot().await;
        let Some(skill) = Self::servable_skill(&snapshot, name) else {
            return Err(ReadError::UnknownSkill(format!("no skill named {:?}", shorten(name))));
        };
        let full = files::contained_path(skill.dir(), asked).map_err(ReadError::Refused)?;
        let Some((_, backend)) = self.backend_of(&snapshot, name) else {
            return Err(ReadError::Failed(format!("the source of {name} is not configured")));
        };
        let rel = full.strip_prefix(skill.dir()).unwrap_or(&full).trim_start_matches('/');
        let uri = files::file_uri(name, rel);
        match backend.download_file(&full).await {
            Ok(bytes) => Ok((uri, bytes)),
            Err(error) => Err(match error.kind {
                FileErrorKind::FileNotFound => ReadError::NotFound(format!("{uri} does not exist")),
                FileErrorKind::IsDirectory => {
                    ReadError::Refused(format!("{uri} is a directory (list it with resources/directory/read)"))
                }
                FileErrorKind::InvalidPath | FileErrorKind::PermissionDenied => {
                    ReadError::Refused(format!("{uri} cannot be served: {}", error.message))
                }
                FileErrorKind::TooLarge => ReadError::Refused(format!(
                    "{uri} exceeds the maximum file size ({} bytes)",
                    backend.max_file_size()
                )),
                _ => ReadError::Failed(format!("{uri} could not be read: {}", error.message)),
            }),
        }
    }

    async fn list_skills_text(&self) -> (String, Value) {
        let snapshot = self.snapshot().await;
        let skills = snapshot.skills();
        let source_paths: Vec<&str> = self.inner.skills.catalog().sources().iter().map(|s| s.path()).collect();
        let ctx = ListContext {
            loaded: &[],
            resources: snapshot.resources(),
            policy: AllowedToolsPolicy::Recommend,
            source_paths: &source_paths,
        };
        let text = format_skills_list(skills, &ctx);
        let structured = json!({
            "skills": skills
                .iter()
                .map(|s| {
                    let uri = servable(s).then(|| files::skill_md_uri(&s.name));
                    json!({ "name": s.name, "description": s.description, "uri": uri })
                })
                .collect::<Vec<_>>()
        });
        (text, structured)
    }

    async fn read_skill_resource_tool(&self, args: ReadArgs) -> CallToolResult {
        match self.read_file(&args.name, &args.path).await {
            Ok((uri, bytes)) => match String::from_utf8(bytes) {
                Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                Err(bytes) => {
                    let bytes = bytes.into_bytes();
                    let blob = base64::engine::general_purpose::STANDARD.encode(&bytes);
                    let mut contents = ResourceContents::blob(blob, uri.clone());
                    if let Some(mime) = files::mime_type(&uri) {
                        contents = contents.with_mime_type(mime);
                    }
                    CallToolResult::success(vec![
                        ContentBlock::text(format!(
                            "{uri} is a binary file of {} bytes; its bytes follow.",
                            bytes.len()
                        )),
                        ContentBlock::resource(contents),
                    ])
                }
            },
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("Error: {}", error.message()))]),
        }
    }

    /// Sends `notifications/resources/list_changed` to a handshake-era client on every
    /// catalog change, until the client is gone.
    fn forward_changes(&self, peer: Peer<RoleServer>) {
        let mut events = self.inner.skills.catalog().subscribe();
        tokio::spawn(async move {
            let mut check = tokio::time::interval(std::time::Duration::from_secs(30));
            loop {
                tokio::select! {
                    changed = next_list_change(&mut events) => {
                        if !changed || peer.is_transport_closed() || peer.notify_resource_list_changed().await.is_err() {
                            break;
                        }
                    }
                    _ = check.tick() => if peer.is_transport_closed() { break },
                }
            }
        });
    }
}

/// Whether a skill can be named by a `skill://` URI: every valid name. A lenient catalog
/// may hold others (uppercase ones, which URI authorities fold); those are left out of
/// the URIs rather than mangled, and stay reachable through the tools.
fn servable(skill: &SkillMetadata) -> bool {
    check_skill_name(&skill.name).is_ok()
}

/// Waits for the next catalog event that changes a listing (a missed event counts as
/// one); `false` once the catalog is gone. Cancel-safe.
async fn next_list_change(events: &mut broadcast::Receiver<CatalogEvent>) -> bool {
    loop {
        match events.recv().await {
            Ok(event) if !lists_change(&event) => {}
            Ok(_) | Err(RecvError::Lagged(_)) => return true,
            Err(RecvError::Closed) => return false,
        }
    }
}

/// Whether an event changes what `resources/list` or `skills/list` answers.
fn lists_change(event: &CatalogEvent) -> bool {
    event.changes.iter().any(|change| {
        matches!(
            change,
            CatalogChange::Added { .. } | CatalogChange::Removed { .. } | CatalogChange::Changed { .. }
        )
    })
}

/// The frontmatter as the author wrote it (the SEP's rule: hosts compare it with the
/// served `SKILL.md`), except that `name` and `description` are the catalog's when the
/// written ones are not plain strings.
fn verbatim_frontmatter(skill: &SkillMetadata, written: &JsonObject) -> SkillFrontmatter {
    let text = |key: &str, fallback: &str| match written.get(key) {
        Some(Value::String(text)) if key != "name" || *text == skill.name => text.clone(),
        _ => fallback.to_owned(),
    };
    let mut out = SkillFrontmatter::new(text("name", &skill.name), text("description", &skill.description));
    for (key, value) in written
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
    {
        out = out.with_field(key.as_str(), value.clone());
    }
    out
}

/// The frontmatter fields of a skill rebuilt from the catalog, for a `SKILL.md` that
/// cannot be read right now.
fn frontmatter(skill: &SkillMetadata) -> SkillFrontmatter {
    let mut out = SkillFrontmatter::new(&skill.name, &skill.description);
    if let Some(license) = &skill.license {
        out = out.with_field("license", license.as_str());
    }
    if let Some(compatibility) = &skill.compatibility {
        out = out.with_field("compatibility", compatibility.as_str());
    }
    if !skill.metadata.is_empty() {
        out = out.with_field("metadata", json!(skill.metadata));
    }
    if !skill.allowed_tools.is_empty() {
        out = out.with_field("allowed-tools", skill.allowed_tools.join(" "));
    }
    for (key, value) in &skill.extra {
        if let Ok(value) = serde_json::to_value(value) {
            out = out.with_field(key.as_str(), value);
        }
    }
    out
}

/// At most 200 characters of a name a client sent, for messages.
fn shorten(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The page of `items` a cursor (a decimal offset) asks for, and the next cursor.
fn page<T: Clone>(items: &[T], cursor: Option<&str>, size: usize) -> Result<(Vec<T>, Option<String>), ErrorData> {
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

fn resource_page(all: &[Resource], cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let (resources, next) = page(all, cursor, RESOURCES_PAGE)?;
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = next;
    Ok(result)
}

fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|r| r.cursor.as_deref())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadArgs {
    #[serde(alias = "skill_name")]
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    #[serde(alias = "skill_name")]
    name: String,
    path: String,
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    vec![
        Tool::new(
            LIST_SKILLS,
            "List the available skills: name, description, recommended tools and resources of each.",
            schema(json!({ "type": "object", "properties": {}, "additionalProperties": false })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            LOAD_SKILL,
            "Load a skill's full instructions and discover its resources. Use this when a task matches \
             a skill from list_skills, before following it.",
            schema(json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "Name of the skill to load, as list_skills shows it." }
                },
                "required": ["name"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            READ_SKILL_RESOURCE,
            "Read one file of a skill (a script, reference or asset), by its path inside the skill's folder.",
            schema(json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "Name of the skill." },
                    "path": {
                        "type": "string",
                        "description": "Path inside the skill's folder, such as references/guide.md, or a resource path as load_skill lists it."
                    }
                },
                "required": ["name", "path"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only),
    ]
}

fn parse_args<T: for<'de> Deserialize<'de>>(tool: &str, args: Option<JsonObject>) -> Result<T, CallToolResult> {
    serde_json::from_value(Value::Object(args.unwrap_or_default())).map_err(|e| {
        CallToolResult::error(vec![ContentBlock::text(format!(
            "Error: invalid arguments for {tool}: {e}"
        ))])
    })
}

impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_skills_with_directory_read()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("agent-skills", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.forward_changes(context.peer);
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut events = self.inner.skills.catalog().subscribe();
        if context.accepted().resources_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = next_list_change(&mut events) => {
                    if !changed || context.sink().notify_resource_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let mut all = vec![
            Resource::new(INDEX_URI, "index.json")
                .with_description("Every skill of this server: name, description and SKILL.md URI.")
                .with_mime_type("application/json"),
        ];
        all.extend(Self::servable(&snapshot).map(|skill| {
            Resource::new(files::skill_md_uri(&skill.name), skill.name.clone())
                .with_title(format!("{} (skill)", skill.name))
                .with_description(skill.description.clone())
                .with_mime_type("text/markdown")
        }));
        resource_page(&all, cursor(request.as_ref()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("skill://{name}/{+path}", "skill-file")
                .with_description("A file of a skill, by its path inside the skill's folder."),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = match files::parse_uri(&uri) {
            Some(SkillUri::Index) => {
                let snapshot = self.snapshot().await;
                let skills: Vec<Value> = Self::servable(&snapshot)
                    .map(|s| {
                        json!({
                            "name": s.name,
                            "type": "skill-md",
                            "description": s.description,
                            "url": files::skill_md_uri(&s.name),
                        })
                    })
                    .collect();
                let text = serde_json::to_string_pretty(&json!({ "skills": skills }))
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                ResourceContents::text(text, uri).with_mime_type("application/json")
            }
            Some(SkillUri::File { skill, rel }) => {
                let (_, bytes) = self.read_file(&skill, &rel).await.map_err(ReadError::into_error_data)?;
                let mime = files::mime_type(&rel);
                // Answered under the URI asked for: clients match on it.
                let contents = match String::from_utf8(bytes) {
                    Ok(text) => ResourceContents::text(text, uri),
                    Err(bytes) => ResourceContents::blob(
                        base64::engine::general_purpose::STANDARD.encode(bytes.into_bytes()),
                        uri,
                    ),
                };
                match mime {
                    Some(mime) => contents.with_mime_type(mime),
                    None => contents,
                }
            }
            Some(SkillUri::Root { .. }) => {
                return Err(ErrorData::invalid_params(
                    format!("{uri} is a skill's folder (list it with resources/directory/read)"),
                    None,
                ));
            }
            None => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource at {}", shorten(&uri)),
                    None,
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let (skill_name, rel) = match files::parse_uri(&request.uri) {
            Some(SkillUri::Root { skill }) => (skill, None),
            Some(SkillUri::File { skill, rel }) => (skill, Some(rel.trim_end_matches('/').to_owned())),
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("{} is not a skill directory", shorten(&request.uri)),
                    None,
                ));
            }
        };
        let snapshot = self.snapshot().await;
        let (Some(skill), Some((_, backend))) = (
            Self::servable_skill(&snapshot, &skill_name),
            self.backend_of(&snapshot, &skill_name),
        ) else {
            return Err(ErrorData::resource_not_found(
                format!("no skill named {:?}", shorten(&skill_name)),
                None,
            ));
        };
        let dir = match &rel {
            Some(rel) => files::contained_path(skill.dir(), rel).map_err(|e| ErrorData::invalid_params(e, None))?,
            None => skill.dir().to_owned(),
        };
        let entries = backend
            .ls_info(&dir)
            .await
            .map_err(|e| ErrorData::invalid_params(format!("{} cannot be listed: {e}", shorten(&request.uri)), None))?;
        let limit = backend.max_file_size();
        let children: Vec<Resource> = entries
            .into_iter()
            .filter(|e| e.is_dir || e.size <= limit)
            .filter_map(|entry| {
                let child_rel = entry.path.strip_prefix(skill.dir())?.strip_prefix('/')?;
                let name = path::file_name(&entry.path).to_owned();
                let uri = files::file_uri(&skill.name, child_rel);
                Some(if entry.is_dir {
                    Resource::new(uri, name).with_mime_type(DIRECTORY_MIME_TYPE)
                } else {
                    let resource = Resource::new(uri, name.clone()).with_size(entry.size);
                    match files::mime_type(&name) {
                        Some(mime) => resource.with_mime_type(mime),
                        None => resource,
                    }
                })
            })
            .collect();
        resource_page(&children, request.cursor.as_deref())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let servable: Vec<&SkillMetadata> = Self::servable(&snapshot).collect();
        let (chosen, next) = page(&servable, cursor(request.as_ref()), SKILLS_PAGE)?;
        let mut skills = Vec::with_capacity(chosen.len());
        for skill in chosen {
            skills.push(self.skill_entry(&snapshot, skill).await);
        }
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let found = match files::parse_uri(&request.uri) {
            Some(SkillUri::File { skill, rel }) if rel == SKILL_FILE => Self::servable_skill(&snapshot, &skill),
            _ => None,
        };
        let Some(skill) = found else {
            return Err(ErrorData::invalid_params(
                format!("no skill at {}", shorten(&request.uri)),
                None,
            ));
        };
        let mut entry = self.skill_entry(&snapshot, skill).await;
        // Answer under the URI asked for (the same skill, possibly spelled differently).
        entry.uri = request.uri;
        Ok(GetSkillResult::new(entry))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            LIST_SKILLS => {
                let (text, structured) = self.list_skills_text().await;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(structured);
                result
            }
            LOAD_SKILL => match parse_args::<LoadArgs>(LOAD_SKILL, request.arguments) {
                Ok(args) => {
                    let message = crate::agent::load_answer(&self.inner.skills, &args.name)
                        .await
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    let content = vec![ContentBlock::text(message.content)];
                    if message.status == ToolStatus::Success {
                        CallToolResult::success(content)
                    } else {
                        CallToolResult::error(content)
                    }
                }
                Err(result) => result,
            },
            READ_SKILL_RESOURCE => match parse_args::<ReadArgs>(READ_SKILL_RESOURCE, request.arguments) {
                Ok(args) => self.read_skill_resource_tool(args).await,
                Err(result) => result,
            },
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {:?}", shorten(other)),
                    None,
                ));
            }
        };
        Ok(result.into())
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
    fn only_skill_changes_notify() {
        let event = |changes| CatalogEvent { version: 2, changes };
        assert!(lists_change(&event(vec![CatalogChange::Added { name: "a".into() }])));
        assert!(lists_change(&event(vec![CatalogChange::Changed { name: "a".into() }])));
        assert!(lists_change(&event(vec![CatalogChange::Removed { name: "a".into() }])));
        assert!(!lists_change(&event(vec![CatalogChange::KeptLastGood {
            name: "a".into(),
            reason: "broken".into()
        }])));
    }
}

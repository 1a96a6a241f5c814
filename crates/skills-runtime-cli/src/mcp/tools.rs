//! The MCP tools: `list_skills` (the budgeted skills list), `search_skills`,
//! `load_skill` (the catalog's [`load_skill_with`], as the model asks: skills for people
//! only are refused) and `read_skill_resource`.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject, ResourceContents,
    Tool, ToolAnnotations,
};
use serde::Deserialize;
use serde_json::{Value, json};
use skills_runtime::{EntryForm, LoadRequest, SearchRequest, SkillArguments, format_search_results, load_skill_with};

use super::files;
use super::server::{SkillsServer, servable, shorten};

/// The `list_skills` tool.
pub const LIST_SKILLS: &str = "list_skills";
/// The `load_skill` tool.
pub const LOAD_SKILL: &str = "load_skill";
/// The `read_skill_resource` tool.
pub const READ_SKILL_RESOURCE: &str = "read_skill_resource";
/// The `search_skills` tool.
pub const SEARCH_SKILLS: &str = "search_skills";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadArgs {
    #[serde(alias = "skill_name")]
    name: String,
    #[serde(default)]
    arguments: Option<SkillArguments>,
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

/// The tool's arguments, or the error result to answer with (boxed: a result is large).
fn parse_args<T: for<'de> Deserialize<'de>>(tool: &str, args: Option<JsonObject>) -> Result<T, Box<CallToolResult>> {
    serde_json::from_value(Value::Object(args.unwrap_or_default())).map_err(|e| {
        Box::new(CallToolResult::error(vec![ContentBlock::text(format!(
            "Error: invalid arguments for {tool}: {e}"
        ))]))
    })
}

impl SkillsServer {
    /// The tools this server offers.
    pub(super) fn tool_specs() -> Vec<Tool> {
        let read_only = ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false);
        vec![
            Tool::new(
                LIST_SKILLS,
                "List the available skills: name, description, recommended tools and resources of each. \
                 A large library's list shortens or leaves out the least used skills; search_skills finds any.",
                schema(json!({ "type": "object", "properties": {}, "additionalProperties": false })),
            )
            .with_annotations(read_only.clone()),
            Tool::new(
                SEARCH_SKILLS,
                "Search all skills by what they do, including those list_skills shortens or leaves out. \
                 Returns the best matches, best first.",
                schema(SearchRequest::schema()),
            )
            .with_annotations(read_only.clone()),
            Tool::new(
                LOAD_SKILL,
                "Load a skill's full instructions and discover its resources. Use this when a task matches \
                 a skill from list_skills, before following it.",
                schema(json!({
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "description": "Name of the skill to load, as list_skills shows it." },
                        "arguments": {
                            "type": "string",
                            "description": "Arguments for the skill, as its argument hint shows them (quote an argument that holds spaces)."
                        }
                    },
                    "required": ["name"],
                    "additionalProperties": false
                })),
            )
            .with_annotations(read_only.clone()),
            Tool::new(
                READ_SKILL_RESOURCE,
                skills_runtime::READ_SKILL_RESOURCE_DESCRIPTION,
                schema(skills_runtime::read_skill_resource_schema("name")),
            )
            .with_annotations(read_only),
        ]
    }

    async fn list_skills_text(&self) -> (String, Value) {
        let snapshot = self.snapshot().await;
        let skills = snapshot.skills();
        let (text, report) = self.inner.section.skills_list_fetching(&snapshot, &[]).await;
        // The structured list holds what the text lists (a skill the budget left out is
        // found with search_skills), and counts the rest.
        let listed: std::collections::HashSet<&str> = report
            .entries
            .iter()
            .filter(|(_, form, _)| *form != EntryForm::Omitted)
            .map(|(name, _, _)| name.as_str())
            .collect();
        let structured = json!({
            "skills": skills
                .iter()
                .filter(|s| listed.contains(s.name.as_str()))
                .map(|s| {
                    let uri = servable(s).then(|| files::skill_md_uri(s));
                    json!({ "name": s.name, "description": s.description, "uri": uri })
                })
                .collect::<Vec<_>>(),
            "not_listed": report.count(EntryForm::Omitted),
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

    pub(super) async fn tool_call(&self, request: CallToolRequestParams) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            LIST_SKILLS => {
                let (text, structured) = self.list_skills_text().await;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(structured);
                result
            }
            SEARCH_SKILLS => match parse_args::<SearchRequest>(SEARCH_SKILLS, request.arguments) {
                Ok(args) => {
                    let snapshot = self.snapshot().await;
                    let limit = args.limit();
                    let selection = self.selection(&snapshot);
                    let catalog = &self.inner.catalog;
                    let hits = catalog.search_selected_prepared(&args.query, limit, &snapshot, selection.as_deref());
                    match hits.await {
                        Ok(hits) => CallToolResult::success(vec![ContentBlock::text(format_search_results(
                            &snapshot,
                            &hits,
                            &[],
                        ))]),
                        Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("Error: {error}"))]),
                    }
                }
                Err(result) => *result,
            },
            LOAD_SKILL => match parse_args::<LoadArgs>(LOAD_SKILL, request.arguments) {
                Ok(args) => {
                    let snapshot = self.snapshot().await;
                    let selection = self.selection(&snapshot);
                    let request = LoadRequest::new(&[])
                        .with_arguments(args.arguments.as_ref())
                        .within(selection.as_deref());
                    let answer = load_skill_with(&snapshot, &args.name, request).await;
                    if matches!(answer, skills_runtime::LoadAnswer::Loaded { .. }) {
                        self.inner.catalog.record_use(&args.name);
                    }
                    let content = vec![ContentBlock::text(answer.to_string())];
                    if answer.is_error() {
                        CallToolResult::error(content)
                    } else {
                        CallToolResult::success(content)
                    }
                }
                Err(result) => *result,
            },
            READ_SKILL_RESOURCE => match parse_args::<ReadArgs>(READ_SKILL_RESOURCE, request.arguments) {
                Ok(args) => self.read_skill_resource_tool(args).await,
                Err(result) => *result,
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
    use super::SkillsServer;

    /// Claude Code cuts each tool's description at 2,048 characters (4,096 since its
    /// version 2.1.296); every description here fits the older cut whole, the texts of
    /// its parameters included.
    #[test]
    fn every_tool_description_fits_the_oldest_client_cut() {
        for tool in SkillsServer::tool_specs() {
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(!description.is_empty(), "{}", tool.name);
            assert!(description.chars().count() <= 2_048, "{}: {description}", tool.name);
            let schema = serde_json::Value::Object((*tool.input_schema).clone()).to_string();
            assert!(schema.chars().count() <= 2_048, "{}: {schema}", tool.name);
        }
    }
}

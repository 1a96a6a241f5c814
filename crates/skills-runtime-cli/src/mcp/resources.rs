//! Plain MCP resources: `resources/list` (every `SKILL.md`, and the legacy
//! `skill://index.json`), the `skill://{name}/{+path}` template, `resources/read`.

use base64::Engine as _;
use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use serde_json::{Value, json};

use super::files::{self, INDEX_URI, SkillUri};
use super::server::{SkillsServer, cursor, page, shorten, uri_data};

/// Resources per `resources/list` page.
const RESOURCES_PAGE: usize = 1_000;

impl SkillsServer {
    pub(super) async fn resources_list(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let mut all = vec![
            Resource::new(INDEX_URI, "index.json")
                .with_description("Every skill of this server: name, description and SKILL.md URI.")
                .with_mime_type("application/json"),
        ];
        all.extend(self.servable(&snapshot).into_iter().map(|skill| {
            Resource::new(files::skill_md_uri(skill), skill.name.clone())
                .with_title(format!("{} (skill)", skill.name))
                .with_description(skill.description.clone())
                .with_mime_type("text/markdown")
        }));
        resource_page(&all, cursor(request.as_ref()))
    }

    pub(super) async fn resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("skill://{name}/{+path}", "skill-file")
                .with_description("A file of a skill, by its path inside the skill's folder."),
        ]))
    }

    pub(super) async fn resource_read(
        &self,
        request: ReadResourceRequestParams,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = match files::parse_uri(&uri) {
            Some(SkillUri::Index) => {
                let snapshot = self.snapshot().await;
                let skills: Vec<Value> = self
                    .servable(&snapshot)
                    .into_iter()
                    .map(|s| {
                        json!({
                            "name": s.name,
                            "type": "skill-md",
                            "description": s.description,
                            "url": files::skill_md_uri(s),
                        })
                    })
                    .collect();
                let text = serde_json::to_string_pretty(&json!({ "skills": skills }))
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                ResourceContents::text(text, uri).with_mime_type("application/json")
            }
            Some(SkillUri::File { skill, rel }) => {
                let (_, bytes) = self
                    .read_file(&skill, &rel)
                    .await
                    .map_err(|e| e.into_error_data(&uri))?;
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
                    Some(uri_data(&uri)),
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

pub(super) fn resource_page(all: &[Resource], cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let (resources, next) = page(all, cursor, RESOURCES_PAGE)?;
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = next;
    Ok(result)
}

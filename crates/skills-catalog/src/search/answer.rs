//! What `search_skills` takes and answers, the same for every face: its arguments
//! ([`SearchRequest`]) and its result lines ([`format_search_results`]).

use super::{DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, SearchHit};
use crate::prompt::{MAX_PROMPT_FIELD_CHARS, escape_untrusted};
use crate::snapshot::CatalogSnapshot;

/// The arguments of a `search_skills` tool call, as every face takes them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// What the skill should do, in a few words.
    pub query: String,
    /// How many skills to return; [`DEFAULT_SEARCH_RESULTS`] when absent.
    #[serde(default)]
    pub limit: Option<usize>,
}

impl SearchRequest {
    /// The limit asked for, or the default.
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(DEFAULT_SEARCH_RESULTS)
    }

    /// The JSON Schema of the arguments, for a tool's definition.
    ///
    /// ```
    /// let schema = skills_catalog::SearchRequest::schema();
    /// assert_eq!(schema["required"], serde_json::json!(["query"]));
    /// assert_eq!(schema["properties"]["limit"]["maximum"], 16);
    /// ```
    pub fn schema() -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What the skill should do, in a few words (e.g. \"extract tables from a pdf\")."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_SEARCH_RESULTS,
                    "description": format!(
                        "How many skills to return (default {DEFAULT_SEARCH_RESULTS}, at most {MAX_SEARCH_RESULTS})."
                    )
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
}

/// Search results as the `search_skills` tool answers them: one line per skill, best
/// first, `- name: description (source)`, loaded skills marked `[Loaded]`, the text
/// escaped as untrusted; hits the snapshot no longer has are left out.
///
/// ```
/// use skills_catalog::{SearchHit, format_search_results};
/// let snapshot = skills_catalog::CatalogSnapshot::default();
/// let hits = [SearchHit { name: "gone".into(), score: 1.0 }];
/// assert_eq!(format_search_results(&snapshot, &hits, &[]), "No skill matches the search.");
/// ```
pub fn format_search_results(snapshot: &CatalogSnapshot, hits: &[SearchHit], loaded: &[String]) -> String {
    let lines: Vec<String> = hits
        .iter()
        .filter_map(|hit| {
            let skill = snapshot.get(&hit.name)?;
            let source = snapshot.source_for(&hit.name).map(|s| s.label().to_owned());
            let mark = if loaded.contains(&hit.name) { " [Loaded]" } else { "" };
            let mut line = format!(
                "- {}{mark}: {}",
                escape_untrusted(&skill.name, MAX_PROMPT_FIELD_CHARS),
                escape_untrusted(&skill.listing_description(), MAX_PROMPT_FIELD_CHARS)
            );
            if let Some(source) = source {
                line.push_str(&format!(" ({})", escape_untrusted(&source, MAX_PROMPT_FIELD_CHARS)));
            }
            // What the skill needs to run (the answer is the same whether or not the
            // host checked the agent's tools: a hidden skill is not among the hits).
            if let Some(needed) = skill.missing_tools(|_| false) {
                let needed = escape_untrusted(&needed.to_string(), MAX_PROMPT_FIELD_CHARS);
                line.push_str(&format!(" [needs tools: {needed}]"));
            }
            Some(line)
        })
        .collect();
    if lines.is_empty() {
        return "No skill matches the search.".to_owned();
    }
    lines.join("\n")
}

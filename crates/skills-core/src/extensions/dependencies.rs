//! What a skill needs in order to run: tools the agent must have, other skills, MCP
//! servers. Parsed from every published form, never executed; an agent host uses it to
//! leave out the skills it cannot run.
//!
//! The forms read:
//! - `dependencies: { tools: { all: [...], any: [...] }, skills: [...] }`, with `tools` also
//!   written as a list (meaning all) and tool entries `{type: mcp, value: NAME}` read as
//!   MCP servers;
//! - `dependencies: [names]` or `dependencies: "a, b"`: skills;
//! - `required-tools: "A B"` or a list, written like `allowed-tools`: tools, all needed
//!   (kept in [`SkillExtensions::required_tools`](super::SkillExtensions::required_tools));
//! - a skill's `agents/openai.yaml` `dependencies.tools` entries of `type: mcp`
//!   ([`agent_yaml_dependencies`]): MCP servers.
//!
//! A shape none of these describe is a `field-ignored` warning naming what was dropped;
//! the skill still loads.

use serde::{Deserialize, Serialize};

use super::{MAX_LIST_ENTRIES, MAX_SHORT_FIELD};
use crate::diagnostic::DiagnosticKind;
use crate::yaml::{ScalarKind, Yaml};

/// Where Codex reads a skill's agent settings, its MCP server dependencies among them
/// (relative to the skill's folder).
pub const OPENAI_AGENT_FILE: &str = "agents/openai.yaml";

/// Tools a skill needs: every one of `all`, and at least one of `any` (when `any` is not
/// empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolRequirements {
    /// Tools that must all be available.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<String>,
    /// Tools of which one is enough.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub any: Vec<String>,
}

impl ToolRequirements {
    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.any.is_empty()
    }
}

/// An MCP server a skill uses (Codex's `agents/openai.yaml` form). Reported, never
/// connected to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct McpServerDependency {
    /// The server's name (`value` in the file).
    pub name: String,
    /// What it is for, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `stdio`, `streamable_http`, ... as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// Where it is served, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A skill's `dependencies` field, typed.
///
/// ```
/// use skills_core::parse_skill_md;
/// let md = b"---\nname: ship\ndescription: Ships a PR\nrequired-tools: Bash\n\
///            dependencies:\n  tools:\n    all: [github_create_pr]\n    any: [Read, cat]\n  \
///            skills: [review]\n---\n";
/// let skill = parse_skill_md(md, "/s/ship/SKILL.md", "ship").skill.unwrap();
/// let deps = skill.extensions().unwrap();
/// assert_eq!(deps.dependencies.skills, ["review"]);
/// let missing = skill.missing_tools(|tool| tool == "Bash" || tool == "cat").unwrap();
/// assert_eq!(missing.to_string(), "github_create_pr");
/// assert!(skill.missing_tools(|tool| tool != "Read").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SkillDependencies {
    /// Tools the agent must have.
    #[serde(skip_serializing_if = "ToolRequirements::is_empty")]
    pub tools: ToolRequirements,
    /// Skills this one uses, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<String>,
    /// MCP servers this one uses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerDependency>,
}

impl SkillDependencies {
    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.skills.is_empty() && self.mcp_servers.is_empty()
    }
}

/// The tools an agent lacks to run a skill.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingTools {
    /// Required tools (`all`, `required-tools`) the agent does not have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<String>,
    /// When the agent has none of the `any` tools: all of them (one would do).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub any: Vec<String>,
}

impl MissingTools {
    /// Whether nothing is missing.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.any.is_empty()
    }
}

impl std::fmt::Display for MissingTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.all.join(", "))?;
        if !self.any.is_empty() {
            let sep = if self.all.is_empty() { "" } else { ", and " };
            write!(f, "{sep}one of {}", self.any.join(", "))?;
        }
        Ok(())
    }
}

/// The tool a requirement names: `Bash(git add:*)` names `Bash`.
pub fn required_tool_name(entry: &str) -> &str {
    entry.split_once('(').map_or(entry, |(name, _)| name).trim()
}

/// What `all` (and `required`) and `any` lack under `available`.
pub(crate) fn missing_tools<'a>(
    all: impl Iterator<Item = &'a String>,
    any: &[String],
    available: impl Fn(&str) -> bool,
) -> MissingTools {
    let mut missing = MissingTools::default();
    for tool in all {
        if !available(required_tool_name(tool)) && !missing.all.contains(tool) {
            missing.all.push(tool.clone());
        }
    }
    if !any.is_empty() && !any.iter().any(|tool| available(required_tool_name(tool))) {
        missing.any = any.to_vec();
    }
    missing
}

/// Whether `text` can name a skill in a dependency list: letters, digits, `-`, `_`, `.`,
/// at most 64 characters (so `numpy>=1.24` or `ffmpeg (audio)` is not taken for one).
fn looks_like_skill_name(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= 64
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

type Report<'a> = &'a mut dyn FnMut(DiagnosticKind, String);

/// Reads a `dependencies` value (see the module documentation).
pub(crate) fn read_dependencies(value: Yaml<'_>, report: Report<'_>) -> SkillDependencies {
    let mut deps = SkillDependencies::default();
    match value {
        Yaml::Null => {}
        Yaml::Map(entries) => {
            for (key, value) in entries {
                match key.to_text().as_str() {
                    "tools" => read_tools(value, &mut deps, report),
                    "skills" => deps.skills = skill_names(value, "dependencies.skills", report),
                    other => ignored(
                        report,
                        format!(
                            "ignoring `dependencies.{}`: the keys are `tools` and `skills`",
                            cut(other)
                        ),
                    ),
                }
            }
        }
        other => deps.skills = skill_names(other, "dependencies", report),
    }
    deps
}

/// Reads `required-tools`: a string split like `allowed-tools`, or a list of strings.
pub(crate) fn read_required_tools(value: Yaml<'_>, report: Report<'_>) -> Vec<String> {
    strings(value, "required-tools", crate::split::split_tools, report)
}

fn read_tools(value: Yaml<'_>, deps: &mut SkillDependencies, report: Report<'_>) {
    match value {
        Yaml::Map(entries) => {
            for (key, value) in entries {
                match key.to_text().as_str() {
                    "all" => tool_entries(value, "dependencies.tools.all", deps, Which::All, report),
                    "any" => tool_entries(value, "dependencies.tools.any", deps, Which::Any, report),
                    other => ignored(
                        report,
                        format!(
                            "ignoring `dependencies.tools.{}`: the keys are `all` and `any`",
                            cut(other)
                        ),
                    ),
                }
            }
        }
        other => tool_entries(other, "dependencies.tools", deps, Which::All, report),
    }
}

#[derive(Clone, Copy)]
enum Which {
    All,
    Any,
}

/// A list of tools: strings, or `{type: mcp, value: NAME}` entries (MCP servers).
fn tool_entries(value: Yaml<'_>, key: &str, deps: &mut SkillDependencies, which: Which, report: Report<'_>) {
    let entries = match value {
        Yaml::Seq(entries) => entries,
        Yaml::Scalar(s) if s.kind == ScalarKind::Str => crate::split::split_tools(&s.text)
            .into_iter()
            .map(crate::yaml::text_scalar)
            .collect(),
        Yaml::Null => return,
        other => {
            ignored(
                report,
                format!("ignoring `{key}`: expected a list, got a {}", other.type_name()),
            );
            return;
        }
    };
    let list = match which {
        Which::All => &mut deps.tools.all,
        Which::Any => &mut deps.tools.any,
    };
    for entry in entries {
        match entry {
            Yaml::Scalar(s) if s.kind == ScalarKind::Str => {
                let tool = s.text.trim();
                if !tool.is_empty() && list.len() < MAX_LIST_ENTRIES {
                    list.push(cut(tool));
                }
            }
            Yaml::Map(fields) => match mcp_server(&fields) {
                Ok(server) => deps.mcp_servers.push(server),
                Err(why) => ignored(report, format!("dropped an entry of `{key}`: {why}")),
            },
            Yaml::Null => {}
            other => ignored(report, format!("dropped a {} entry of `{key}`", other.type_name())),
        }
    }
}

/// `{type: mcp, value: NAME, description, transport, url}`.
fn mcp_server(fields: &[(Yaml<'_>, Yaml<'_>)]) -> Result<McpServerDependency, String> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k.to_text() == name)
            .and_then(|(_, v)| match v {
                Yaml::Scalar(s) => Some(cut(s.text.trim())).filter(|t| !t.is_empty()),
                _ => None,
            })
    };
    match field("type").as_deref() {
        Some("mcp") => {}
        Some(other) => return Err(format!("tool type `{other}` is not known (`mcp` is)")),
        None => return Err("a mapping without `type: mcp`".to_owned()),
    }
    let name = field("value").ok_or("an MCP entry without `value` (the server's name)")?;
    Ok(McpServerDependency {
        name,
        description: field("description"),
        transport: field("transport"),
        url: field("url"),
    })
}

/// A list of skill names (a list, or one string split on commas and spaces); entries
/// that cannot name a skill are reported and dropped.
fn skill_names(value: Yaml<'_>, key: &str, report: Report<'_>) -> Vec<String> {
    let split = |text: &str| crate::split::split_outside(text, ('(', ')'), |c| c == ',');
    let mut names = strings(value, key, split, report);
    let dropped: Vec<String> = names.iter().filter(|n| !looks_like_skill_name(n)).cloned().collect();
    if !dropped.is_empty() {
        names.retain(|n| looks_like_skill_name(n));
        let shown: Vec<String> = dropped.iter().take(8).map(|d| format!("`{}`", cut(d))).collect();
        ignored(
            report,
            format!(
                "dropped `{key}` entries that are not skill names: {} (a list of names means skills; \
                 tools go under `dependencies.tools`)",
                shown.join(", ")
            ),
        );
    }
    names
}

/// A string split by `split`, or a list of strings; anything else reported.
fn strings(value: Yaml<'_>, key: &str, split: impl Fn(&str) -> Vec<String>, report: Report<'_>) -> Vec<String> {
    let mut items = match value {
        Yaml::Null => Vec::new(),
        Yaml::Scalar(s) if s.kind == ScalarKind::Str => split(&s.text),
        Yaml::Seq(entries) => {
            let mut items = Vec::with_capacity(entries.len());
            for entry in entries {
                match entry {
                    Yaml::Scalar(s) if !s.text.trim().is_empty() => items.push(s.text.trim().to_owned()),
                    Yaml::Scalar(_) | Yaml::Null => {}
                    other => ignored(report, format!("dropped a {} entry of `{key}`", other.type_name())),
                }
            }
            items
        }
        other => {
            ignored(
                report,
                format!(
                    "ignoring `{key}`: expected a string or a list, got a {}",
                    other.type_name()
                ),
            );
            Vec::new()
        }
    };
    if items.len() > MAX_LIST_ENTRIES {
        ignored(
            report,
            format!(
                "`{key}` has {} entries; the first {MAX_LIST_ENTRIES} are kept",
                items.len()
            ),
        );
        items.truncate(MAX_LIST_ENTRIES);
    }
    items.iter_mut().for_each(|item| *item = cut(item));
    items
}

/// The MCP servers of a Codex `agents/openai.yaml` (`dependencies.tools` entries of
/// `type: mcp`), and what could not be read, as messages. A file that is not YAML, or
/// has no `dependencies`, gives none.
///
/// ```
/// use skills_core::extensions::agent_yaml_dependencies;
/// let yaml = b"interface:\n  display_name: Pay\ndependencies:\n  tools:\n    - type: mcp\n      \
///              value: proxy\n      transport: streamable_http\n";
/// let (servers, problems) = agent_yaml_dependencies(yaml);
/// assert_eq!(servers[0].name, "proxy");
/// assert_eq!(servers[0].transport.as_deref(), Some("streamable_http"));
/// assert!(problems.is_empty());
/// ```
pub fn agent_yaml_dependencies(bytes: &[u8]) -> (Vec<McpServerDependency>, Vec<String>) {
    let mut problems = Vec::new();
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => return (Vec::new(), vec![format!("{OPENAI_AGENT_FILE} is not UTF-8")]),
    };
    let document = match crate::yaml::parse(text) {
        Ok(Yaml::Map(entries)) => entries,
        Ok(_) => return (Vec::new(), problems),
        Err(e) => return (Vec::new(), vec![format!("{OPENAI_AGENT_FILE} is not valid YAML: {e}")]),
    };
    let Some((_, dependencies)) = document.into_iter().find(|(k, _)| k.to_text() == "dependencies") else {
        return (Vec::new(), problems);
    };
    let mut deps = SkillDependencies::default();
    let mut report = |_: DiagnosticKind, message: String| problems.push(message);
    match dependencies {
        Yaml::Map(entries) => {
            for (key, value) in entries {
                if key.to_text() == "tools" {
                    tool_entries(value, "dependencies.tools", &mut deps, Which::All, &mut report);
                }
            }
        }
        Yaml::Null => {}
        other => report(
            DiagnosticKind::FieldIgnored,
            format!(
                "ignoring `dependencies`: expected a mapping, got a {}",
                other.type_name()
            ),
        ),
    }
    // Codex's file lists MCP servers only; a plain string there names no tool of ours.
    if !deps.tools.all.is_empty() {
        problems.push(format!(
            "ignoring `dependencies.tools` entries without `type: mcp`: {}",
            deps.tools.all.join(", ")
        ));
    }
    deps.mcp_servers.truncate(MAX_LIST_ENTRIES);
    (deps.mcp_servers, problems)
}

fn ignored(report: Report<'_>, message: String) {
    report(DiagnosticKind::FieldIgnored, message);
}

/// `text` cut to [`MAX_SHORT_FIELD`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_SHORT_FIELD) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

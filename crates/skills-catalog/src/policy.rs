//! The `allowed-tools` policy: recommend (default) or restrict.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use skills_core::SkillMetadata;

use crate::escape::{MAX_PROMPT_FIELD_CHARS, code_span, escape_untrusted};

/// Tools that are never blocked: the skills system itself (`load_skill`,
/// `search_skills`), resource access (`read_skill_resource`, `read_file`, `ls`) and task
/// tracking (`write_todos`).
pub const ALWAYS_ALLOWED_TOOLS: [&str; 6] = [
    "load_skill",
    "search_skills",
    "read_skill_resource",
    "read_file",
    "ls",
    "write_todos",
];

/// How a skill's `allowed-tools` field is applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowedToolsPolicy {
    /// Shown in the prompt as recommended tools; nothing is blocked (the Agent Skills
    /// specification's meaning, and deepagents' behaviour).
    #[default]
    Recommend,
    /// While loaded skills declare `allowed-tools`, a call outside the union of their
    /// lists is refused with an error tool message. [`ALWAYS_ALLOWED_TOOLS`] always
    /// pass. An entry with an argument pattern, such as `Bash(git add:*)`, allows only
    /// the calls of `Bash` it matches (see [`tool_rule_matches`]), never all of `Bash`.
    Restrict,
}

/// Checks one tool call against the policy, given the skills the thread has loaded,
/// without the call's arguments (an entry with an argument pattern matches no call
/// here); see [`check_tool_call`].
pub fn check_allowed_tools<'a>(
    policy: AllowedToolsPolicy,
    tool: &str,
    loaded: impl IntoIterator<Item = &'a SkillMetadata>,
) -> Option<String> {
    check_tool_call(policy, tool, &serde_json::Value::Null, loaded)
}

/// Checks one tool call (its tool's name and its arguments) against the tool rules of
/// the skills the thread has loaded. `None` lets the call through; `Some` is the text
/// of the error the model gets instead.
///
/// - `disallowed-tools` of a loaded skill refuse a call whatever the policy.
/// - Under [`AllowedToolsPolicy::Restrict`], while loaded skills declare
///   `allowed-tools`, a call must match an entry of one of their lists;
///   [`ALWAYS_ALLOWED_TOOLS`] always pass.
///
/// Entries are matched as Claude Code matches them (see [`tool_rule_matches`]):
/// `Read` covers every call of `Read`, `Bash(git add:*)` only `Bash` calls whose command
/// starts with the words `git add`. `loaded` is the skills whose rules apply: a host
/// leaves out skills that ran in a forked subagent (`context: fork`), as the
/// middleware does.
///
/// ```
/// use skills_catalog::{AllowedToolsPolicy, check_tool_call};
/// use skills_core::parse_skill_md;
/// let md = b"---\nname: git\ndescription: Git\nallowed-tools: Bash(git add:*)\ndisallowed-tools: WebFetch\n---\n";
/// let skill = parse_skill_md(md, "/s/git/SKILL.md", "git").skill.unwrap();
/// let call = |tool: &str, command: &str| {
///     check_tool_call(AllowedToolsPolicy::Restrict, tool, &serde_json::json!({"command": command}), [&skill])
/// };
/// assert_eq!(call("Bash", "git add src"), None);
/// assert!(call("Bash", "git push").is_some());
/// assert!(call("WebFetch", "").unwrap().contains("disallowed"));
/// ```
pub fn check_tool_call<'a>(
    policy: AllowedToolsPolicy,
    tool: &str,
    args: &serde_json::Value,
    loaded: impl IntoIterator<Item = &'a SkillMetadata>,
) -> Option<String> {
    let loaded: Vec<&SkillMetadata> = loaded.into_iter().collect();
    for skill in &loaded {
        let Some(extensions) = skill.extensions() else { continue };
        if let Some(entry) = extensions
            .disallowed_tools
            .iter()
            .find(|entry| tool_rule_matches(entry, tool, args))
        {
            return Some(format!(
                "Tool '{}' is disallowed while skill '{}' is loaded (its disallowed-tools has {}).",
                escape_untrusted(tool, MAX_PROMPT_FIELD_CHARS),
                skill.name,
                code_span(&escape_untrusted(entry, MAX_PROMPT_FIELD_CHARS))
            ));
        }
    }
    if policy == AllowedToolsPolicy::Recommend || ALWAYS_ALLOWED_TOOLS.contains(&tool) {
        return None;
    }
    let mut allowed = BTreeSet::new();
    let mut restricted = false;
    for skill in &loaded {
        if !skill.allowed_tools.is_empty() {
            restricted = true;
            allowed.extend(skill.allowed_tools.iter().map(String::as_str));
        }
    }
    if !restricted || allowed.iter().any(|entry| tool_rule_matches(entry, tool, args)) {
        return None;
    }
    let allowed: Vec<String> = allowed
        .into_iter()
        .map(|entry| escape_untrusted(entry, MAX_PROMPT_FIELD_CHARS))
        .collect();
    let named = allowed
        .iter()
        .any(|entry| entry.split_once('(').is_some_and(|(name, _)| name.trim() == tool));
    let what = if named { "This call of tool" } else { "Tool" };
    Some(format!(
        "{what} '{}' is not in the allowed-tools list for the currently loaded skills. Allowed tools: {}. \
         If you believe this tool is necessary, explain your reasoning.",
        escape_untrusted(tool, MAX_PROMPT_FIELD_CHARS),
        allowed.join(", ")
    ))
}

/// Argument names tried first for the argument a pattern applies to, before the first
/// string argument in name order.
const PATTERN_ARGUMENTS: [&str; 5] = ["command", "file_path", "path", "url", "query"];

/// Whether an `allowed-tools` or `disallowed-tools` entry covers a call of `tool` with
/// `args`.
///
/// - `Name` covers every call of the tool `Name`; a `*` in it is a wildcard
///   (`mcp__github__*`), and an MCP server's name alone (`mcp__github`) covers each of
///   its tools.
/// - `Name(pattern)` covers calls of `Name` whose argument matches `pattern`: the
///   argument is `command`, `file_path`, `path`, `url` or `query` when the call has one
///   of them as a string (in that order), else its first string argument in name order.
///   `prefix:*` matches the prefix followed by nothing or by whitespace (`git add:*`
///   covers `git add .`, not `git addendum`); `*` elsewhere matches any characters;
///   anything else must equal the argument.
///
/// ```
/// use serde_json::json;
/// use skills_catalog::policy::tool_rule_matches;
/// assert!(tool_rule_matches("Read", "Read", &json!({"file_path": "/a"})));
/// assert!(tool_rule_matches("Bash(npm run test:*)", "Bash", &json!({"command": "npm run test -- -x"})));
/// assert!(!tool_rule_matches("Bash(npm run test:*)", "Bash", &json!({"command": "npm run testing"})));
/// assert!(tool_rule_matches("Read(/src/*.rs)", "Read", &json!({"file_path": "/src/main.rs"})));
/// assert!(!tool_rule_matches("Bash(ls)", "Bash", &json!({"command": "ls -la"})));
/// assert!(tool_rule_matches("mcp__github__*", "mcp__github__create_issue", &json!({})));
/// assert!(tool_rule_matches("mcp__github", "mcp__github__create_issue", &json!({})));
/// assert!(!tool_rule_matches("mcp__git", "mcp__github__create_issue", &json!({})));
/// ```
pub fn tool_rule_matches(entry: &str, tool: &str, args: &serde_json::Value) -> bool {
    let entry = entry.trim();
    let Some((name, pattern)) = entry
        .split_once('(')
        .and_then(|(n, rest)| Some((n, rest.strip_suffix(')')?)))
    else {
        return tool_name_matches(entry, tool);
    };
    if !tool_name_matches(name.trim(), tool) {
        return false;
    }
    let pattern = pattern.trim();
    if pattern.is_empty() || pattern == "*" {
        return true;
    }
    let Some(argument) = pattern_argument(args) else {
        return false;
    };
    let argument = argument.trim();
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        return argument
            .strip_prefix(prefix)
            .is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace));
    }
    wildcard_matches(pattern, argument)
}

/// A rule's tool name against a tool's: equal, a `*` wildcard (`mcp__github__*`), or an
/// MCP server's name alone (`mcp__github` covers every `mcp__github__...` tool).
fn tool_name_matches(rule: &str, tool: &str) -> bool {
    if rule.contains('*') {
        return wildcard_matches(rule, tool);
    }
    if rule == tool {
        return true;
    }
    rule.strip_prefix("mcp__")
        .is_some_and(|server| !server.is_empty() && !server.contains("__"))
        && tool.strip_prefix(rule).is_some_and(|rest| rest.starts_with("__"))
}

fn pattern_argument(args: &serde_json::Value) -> Option<&str> {
    let object = args.as_object()?;
    PATTERN_ARGUMENTS
        .iter()
        .find_map(|key| object.get(*key).and_then(|v| v.as_str()))
        .or_else(|| object.values().find_map(|v| v.as_str()))
}

/// `text` against `pattern`, where `*` matches any run of characters.
fn wildcard_matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

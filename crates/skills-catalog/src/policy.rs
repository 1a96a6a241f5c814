//! The `allowed-tools` policy: recommend (default) or restrict.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use skills_core::SkillMetadata;

/// Tools that are never blocked: the skills system itself (`load_skill`), resource
/// access (`read_file`, `ls`) and task tracking (`write_todos`).
pub const ALWAYS_ALLOWED_TOOLS: [&str; 5] = ["load_skill", "search_skills", "read_file", "ls", "write_todos"];

/// How a skill's `allowed-tools` field is applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowedToolsPolicy {
    /// Shown in the prompt as recommended tools; nothing is blocked (the Agent Skills
    /// specification's meaning, and deepagents' behaviour).
    #[default]
    Recommend,
    /// While loaded skills declare `allowed-tools`, a call to a tool outside the union of
    /// their lists is refused with an error tool message. [`ALWAYS_ALLOWED_TOOLS`] always
    /// pass. Entries are matched by exact tool name: an entry with an argument pattern,
    /// such as `Bash(git add:*)`, allows only a tool of that exact name, never all of
    /// `Bash`.
    Restrict,
}

/// Checks one tool call against the policy, given the skills the thread has loaded.
/// `None` lets the call through; `Some` is the text of the error the model gets instead.
///
/// Under [`AllowedToolsPolicy::Restrict`], calls pass when no skill is loaded, or when no
/// loaded skill declares `allowed-tools`.
pub fn check_allowed_tools<'a>(
    policy: AllowedToolsPolicy,
    tool: &str,
    loaded: impl IntoIterator<Item = &'a SkillMetadata>,
) -> Option<String> {
    if policy == AllowedToolsPolicy::Recommend || ALWAYS_ALLOWED_TOOLS.contains(&tool) {
        return None;
    }
    let mut allowed = BTreeSet::new();
    let mut restricted = false;
    for skill in loaded {
        if !skill.allowed_tools.is_empty() {
            restricted = true;
            allowed.extend(skill.allowed_tools.iter().map(String::as_str));
        }
    }
    if !restricted || allowed.contains(tool) {
        return None;
    }
    let allowed: Vec<&str> = allowed.into_iter().collect();
    Some(format!(
        "Tool '{tool}' is not in the allowed-tools list for the currently loaded skills. Allowed tools: {}. \
         If you believe this tool is necessary, explain your reasoning.",
        allowed.join(", ")
    ))
}

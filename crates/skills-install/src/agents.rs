//! The coding agents that read skills from folders, and where: one table, data only
//! (the facts of the `skills` npm installer's agent list, version 1.7.4). Adding an
//! agent is adding a row.

use std::path::{Path, PathBuf};

/// A coding agent and the folders it reads skills from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    /// Its name on the command line (`claude-code`).
    pub name: &'static str,
    /// Its name for people (`Claude Code`).
    pub display: &'static str,
    /// The folder of a project it reads, relative to the project's root.
    pub project: &'static str,
    /// The folder under the home directory it reads for every project.
    pub global: &'static str,
}

/// The folder every agent of the Agent Skills convention reads in a project, where
/// installed skills live; other agents' folders link to it.
pub const CANONICAL: &str = ".agents/skills";

/// The canonical folder under the home directory (`skills add --global`).
pub const CANONICAL_GLOBAL: &str = ".agents/skills";

const fn agent(name: &'static str, display: &'static str, project: &'static str, global: &'static str) -> Agent {
    Agent {
        name,
        display,
        project,
        global,
    }
}

/// The agents, by name.
pub const AGENTS: &[Agent] = &[
    agent("amp", "Amp", ".agents/skills", ".config/agents/skills"),
    agent(
        "antigravity",
        "Antigravity",
        ".agents/skills",
        ".gemini/antigravity/skills",
    ),
    agent("augment", "Augment", ".augment/skills", ".augment/skills"),
    agent("claude-code", "Claude Code", ".claude/skills", ".claude/skills"),
    agent("cline", "Cline", ".agents/skills", ".agents/skills"),
    agent("codebuddy", "CodeBuddy", ".codebuddy/skills", ".codebuddy/skills"),
    agent("codex", "Codex", ".agents/skills", ".agents/skills"),
    agent("continue", "Continue", ".continue/skills", ".continue/skills"),
    agent("crush", "Crush", ".crush/skills", ".config/crush/skills"),
    agent("cursor", "Cursor", ".agents/skills", ".cursor/skills"),
    agent(
        "deepagents",
        "Deep Agents",
        ".agents/skills",
        ".deepagents/agent/skills",
    ),
    agent("droid", "Droid", ".agents/skills", ".factory/skills"),
    agent("gemini-cli", "Gemini CLI", ".agents/skills", ".gemini/skills"),
    agent("github-copilot", "GitHub Copilot", ".agents/skills", ".copilot/skills"),
    agent("goose", "Goose", ".goose/skills", ".config/goose/skills"),
    agent("junie", "Junie", ".junie/skills", ".junie/skills"),
    agent("kilo", "Kilo Code", ".agents/skills", ".kilo/skills"),
    agent("kiro-cli", "Kiro CLI", ".kiro/skills", ".kiro/skills"),
    agent("opencode", "OpenCode", ".agents/skills", ".config/opencode/skills"),
    agent("openhands", "OpenHands", ".openhands/skills", ".openhands/skills"),
    agent("qwen-code", "Qwen Code", ".qwen/skills", ".qwen/skills"),
    agent("roo", "Roo Code", ".roo/skills", ".roo/skills"),
    agent("trae", "Trae", ".trae/skills", ".trae/skills"),
    agent("windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills"),
    agent("zed", "Zed", ".agents/skills", ".agents/skills"),
];

/// Why an agent name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent {name:?}; the agents: {}", known())]
pub struct UnknownAgent {
    /// The name given.
    pub name: String,
}

fn known() -> String {
    AGENTS.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// The agent called `name`.
///
/// ```
/// let claude = skills_install::agents::find("claude-code").unwrap();
/// assert_eq!(claude.project, ".claude/skills");
/// let error = skills_install::agents::find("clode").unwrap_err();
/// assert!(error.to_string().contains("claude-code"));
/// ```
pub fn find(name: &str) -> Result<&'static Agent, UnknownAgent> {
    AGENTS.iter().find(|a| a.name == name).ok_or_else(|| UnknownAgent {
        name: name.chars().take(64).collect(),
    })
}

/// Where installed skills live: `root/.agents/skills` for a project, or
/// `home/.agents/skills` with `global`.
pub fn canonical_dir(root: &Path) -> PathBuf {
    root.join(CANONICAL)
}

impl Agent {
    /// The folder this agent reads under `root` (a project's root, or the home
    /// directory with `global`).
    pub fn dir(&self, root: &Path, global: bool) -> PathBuf {
        root.join(if global { self.global } else { self.project })
    }

    /// Whether the agent reads the canonical folder itself (no link needed).
    pub fn reads_canonical(&self, global: bool) -> bool {
        if global {
            self.global == CANONICAL_GLOBAL
        } else {
            self.project == CANONICAL
        }
    }

    /// The folder that shows this agent is in use under `root`: the parent of the
    /// folder it reads (`.claude` for `.claude/skills`).
    fn marker(&self, root: &Path, global: bool) -> Option<PathBuf> {
        self.dir(root, global).parent().map(Path::to_path_buf)
    }
}

/// The agents in use under `root` (a project, or the home directory with `global`):
/// those whose own folder exists (`.claude` for Claude Code), leaving out the ones
/// that read the canonical folder, which needs no link. Sorted by name.
pub fn detect(root: &Path, global: bool) -> Vec<&'static Agent> {
    AGENTS
        .iter()
        .filter(|a| !a.reads_canonical(global))
        .filter(|a| a.marker(root, global).is_some_and(|m| m.is_dir() && m != root))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_sorted_and_folders_relative() {
        let names: Vec<&str> = AGENTS.iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for agent in AGENTS {
            assert!(
                !agent.project.starts_with('/') && !agent.project.contains(".."),
                "{agent:?}"
            );
            assert!(
                !agent.global.starts_with('/') && !agent.global.contains(".."),
                "{agent:?}"
            );
        }
    }

    #[test]
    fn detection_finds_the_agents_whose_folders_exist() {
        let dir = tempfile::tempdir().unwrap();
        assert!(detect(dir.path(), false).is_empty());
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::create_dir_all(dir.path().join(".goose/skills")).unwrap();
        // `.agents` alone is the canonical folder's, not an agent to link.
        std::fs::create_dir_all(dir.path().join(".agents/skills")).unwrap();
        let found: Vec<&str> = detect(dir.path(), false).iter().map(|a| a.name).collect();
        assert_eq!(found, ["claude-code", "goose"]);
        // Globally, Goose reads ~/.config/goose/skills, not ~/.goose/skills: its
        // global folder marks it, its project folder does not.
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".goose")).unwrap();
        assert!(detect(home.path(), true).is_empty());
        std::fs::create_dir_all(home.path().join(".config/goose")).unwrap();
        let found: Vec<&str> = detect(home.path(), true).iter().map(|a| a.name).collect();
        assert_eq!(found, ["goose"]);
    }
}

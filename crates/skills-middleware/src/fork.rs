//! `context: fork`: a skill run in a subagent with a fresh conversation, its body as the
//! subagent's instructions and its arguments as the task.

use std::sync::Arc;

use skills_catalog::CatalogSnapshot;
use skills_core::{SkillMetadata, SkillsState};

use crate::message::Message;
use crate::runner::AgentRunner;
use crate::runtime::{PinnedSnapshot, SkillsRuntime};
use crate::state::{AgentState, StatePart, StateUpdate};

/// The task a forked skill gets when it was loaded without arguments.
pub const DEFAULT_FORK_TASK: &str = "Carry out the instructions.";

/// Marks a subagent's state as a fork: how deep, and which skill it runs (whose model,
/// tool rules and hooks apply inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForkContext {
    pub depth: usize,
    pub skill: String,
}

impl StatePart for ForkContext {
    const PRIVATE: bool = true;
}

/// The loaded skills whose model, tool rules and hooks apply to a thread: every loaded
/// skill that is not a fork, and inside a fork, the skill it runs.
pub(crate) fn active_skills<'a>(snapshot: &'a CatalogSnapshot, state: &AgentState) -> Vec<&'a SkillMetadata> {
    let Some(skills) = state.get::<SkillsState>() else {
        return Vec::new();
    };
    let running = state.get::<ForkContext>().map(|f| f.skill.as_str());
    skills
        .skills_loaded
        .iter()
        .filter_map(|name| snapshot.get(name))
        .filter(|skill| !skill.is_fork() || running == Some(skill.name.as_str()))
        .collect()
}

/// Runs `skill` (loaded as `text`) in a subagent for a thread in `state`, with `task`.
/// The subagent is the skill's `agent` when configured, else the configured default,
/// else `parent`. Returns its answer and the shared parts it hands back, or the error
/// text for the model.
pub(crate) async fn run(
    runtime: &SkillsRuntime,
    snapshot: &Arc<CatalogSnapshot>,
    skill: &SkillMetadata,
    text: &str,
    task: Option<&str>,
    state: &AgentState,
    parent: Option<&dyn AgentRunner>,
) -> Result<(String, StateUpdate), String> {
    let depth = state.get::<ForkContext>().map_or(0, |f| f.depth);
    let forks = &runtime.forks;
    if depth >= forks.max_depth {
        return Err(format!(
            "Error: Skill '{}' runs in a subagent, and this thread is {depth} subagent(s) deep already \
             (at most {}). Do its work here instead.",
            skill.name, forks.max_depth
        ));
    }
    let named = skill
        .extensions()
        .and_then(|e| e.agent.as_deref())
        .and_then(|name| forks.named.get(name));
    let Some(agent) = named.or(forks.default.as_ref()).map(Arc::as_ref).or(parent) else {
        return Err(format!(
            "Error: Skill '{}' runs in a subagent, and no agent is configured to run it.",
            skill.name
        ));
    };
    let instructions = skills_core::parse::split_frontmatter(text).map_or(text, |(_, body)| body);
    let task = task.filter(|t| !t.trim().is_empty()).unwrap_or(DEFAULT_FORK_TASK);
    let mut child = state.for_subagent(vec![Message::user(task)]);
    child.insert(ForkContext {
        depth: depth + 1,
        skill: skill.name.clone(),
    });
    child.insert(runtime.state_of(snapshot, vec![skill.name.clone()]));
    child.insert(PinnedSnapshot(snapshot.clone()));
    match agent.run_with_instructions(&mut child, instructions.trim()).await {
        Ok(answer) => Ok((answer.content, child.shared_update())),
        Err(error) => Err(format!("Error: Skill '{}' failed in its subagent: {error}", skill.name)),
    }
}

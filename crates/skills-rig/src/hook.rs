//! [`SkillsHook`]: the rig hook that puts the skills section in each turn's preamble and
//! applies the loaded skills' tool rules.

use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent, HookContext, RequestPatch,
};
use rig_core::effect::EffectKind;

use crate::session::SkillSession;

/// A rig [`AgentHook`] for one [`SkillSession`]:
///
/// - before each model call it sets the turn's preamble to the agent's base preamble
///   followed by the session's skills section (the budgeted list, `[Loaded]` marks), so a
///   skill loaded in this run, or added to the library since, shows on the next call;
/// - before each tool call it asks the session whether the loaded skills' rules allow
///   it (`disallowed-tools` always; `allowed-tools` under the `Restrict` policy) and
///   skips a refused call, the reason being the tool result the model sees.
///
/// rig hooks cannot rewrite a tool call's result, so skills add no per-call hooks
/// beyond these; nothing a skill declares is ever run.
#[derive(Debug, Clone)]
pub struct SkillsHook {
    session: SkillSession,
    base: String,
}

impl SkillsHook {
    pub(crate) fn new(session: SkillSession, base: String) -> Self {
        Self { session, base }
    }

    /// The session whose skills this hook applies.
    pub fn session(&self) -> &SkillSession {
        &self.session
    }
}

impl AgentHook for SkillsHook {
    fn name(&self) -> Option<String> {
        Some("agent-skills".to_owned())
    }

    async fn on_completion_call(&self, _ctx: &HookContext, _event: CompletionCallEvent<'_>) -> CompletionCallAction {
        let library = &self.session.library;
        if library.search_tool {
            // The model is offered search_skills: build its index meanwhile (once).
            library.catalog.warm_search();
        }
        let preamble = self.session.preamble(&self.base).await;
        CompletionCallAction::patch(RequestPatch::new().preamble(preamble))
    }

    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return DispatchAction::proceed();
        };
        // Every tool call passes here: with no skill loaded there is no rule to apply,
        // and the arguments are not parsed.
        if !self.session.has_loaded() {
            return DispatchAction::proceed();
        }
        // Arguments that are not JSON match no argument pattern; the tool rejects them.
        let args = serde_json::from_str(args).unwrap_or(serde_json::Value::Null);
        match self.session.check_tool_call(name, &args).await {
            Some(reason) => DispatchAction::skip(reason),
            None => DispatchAction::proceed(),
        }
    }
}

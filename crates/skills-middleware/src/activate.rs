//! The host's side of invocation: activating a skill for a thread, including the ones
//! the model may not load (`disable-model-invocation`).

use skills_catalog::{Invoker, LoadAnswer, LoadError, LoadRequest, SkillArguments, load_skill_with};
use skills_core::SkillsState;

use crate::fork;
use crate::message::Message;
use crate::middleware::AgentMiddleware;
use crate::skills::SkillsMiddleware;
use crate::state::AgentState;

/// Why [`SkillsMiddleware::activate`] did not activate a skill.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActivationError {
    /// The skill cannot be loaded (unknown, unreadable, bad arguments).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A forked skill failed, or no agent is configured to run it (see
    /// [`SkillsMiddlewareBuilder::fork_agent`](crate::SkillsMiddlewareBuilder::fork_agent)).
    #[error("{0}")]
    Fork(String),
    /// Discovery could not run.
    #[error("{0}")]
    Discovery(String),
}

/// What an activation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activation {
    /// The skill's instructions (arguments substituted) joined the conversation as a
    /// user message; the skill is loaded for the thread.
    Loaded {
        /// The instructions, as the model will read them.
        text: String,
    },
    /// A forked skill ran in its subagent; its answer joined the conversation as a user
    /// message.
    Forked {
        /// The subagent's answer.
        answer: String,
    },
    /// The skill was loaded already and no arguments were given: nothing changed.
    AlreadyLoaded,
}

impl SkillsMiddleware {
    /// Activates the skill `name` for the thread in `state`, as a person would with a
    /// slash command: any skill of the catalog, those with `disable-model-invocation`
    /// included, with `arguments` substituted into its instructions. The instructions
    /// join the conversation as a user message and the skill counts as loaded (its
    /// model, tool rules and hooks apply from the next model call); a skill with
    /// `context: fork` runs in the configured fork agent and its answer joins instead.
    /// Discovers the catalog first when the thread has not.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use skills_catalog::SkillArguments;
    /// use skills_core::{MemoryBackend, SkillsState};
    /// use skills_middleware::{Activation, AgentState, SkillsMiddleware};
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// backend.insert(
    ///     "/skills/deploy/SKILL.md",
    ///     "---\nname: deploy\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy $0 now.",
    /// )?;
    /// let skills = SkillsMiddleware::new(backend, ["/skills"])?;
    /// let mut state = AgentState::default();
    /// let activation = skills.activate(&mut state, "deploy", Some(SkillArguments::Text("staging".into()))).await?;
    /// assert!(matches!(activation, Activation::Loaded { text } if text.ends_with("Deploy staging now.")));
    /// assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["deploy"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn activate(
        &self,
        state: &mut AgentState,
        name: &str,
        arguments: Option<SkillArguments>,
    ) -> Result<Activation, ActivationError> {
        match self.before_agent(state).await {
            Ok(Some(update)) => state.apply(update),
            Ok(None) => {}
            Err(error) => return Err(ActivationError::Discovery(error.to_string())),
        }
        let runtime = self.runtime();
        let snapshot = runtime.snapshot_for(state).await;
        let loaded = state
            .get::<SkillsState>()
            .map(|s| s.skills_loaded.clone())
            .unwrap_or_default();
        let request = LoadRequest::new(&loaded)
            .with_arguments(arguments.as_ref())
            .by(Invoker::User);
        let text = match load_skill_with(&snapshot, name, request).await {
            LoadAnswer::Loaded { text } => text,
            LoadAnswer::AlreadyLoaded { .. } => return Ok(Activation::AlreadyLoaded),
            LoadAnswer::Failed(error) => return Err(error.into()),
        };
        runtime.catalog.record_use(name);
        let mut now_loaded = loaded;
        if !now_loaded.iter().any(|l| l == name) {
            now_loaded.push(name.to_owned());
        }
        let activation = match snapshot.get(name).filter(|s| s.is_fork()) {
            Some(skill) => {
                let task = arguments.as_ref().and_then(|a| a.split().ok()).map(|(_, whole)| whole);
                let (answer, shared) = fork::run(runtime, &snapshot, skill, &text, task.as_deref(), state, None)
                    .await
                    .map_err(ActivationError::Fork)?;
                state.apply(shared);
                state.messages.push(Message::user(format!(
                    "The user ran the skill '{name}' in a subagent. Its answer:\n\n{answer}"
                )));
                Activation::Forked { answer }
            }
            None => {
                state.messages.push(Message::user(format!(
                    "The user invoked the skill '{name}'. Its instructions:\n\n{text}"
                )));
                Activation::Loaded { text }
            }
        };
        state.insert(runtime.state_of(&snapshot, now_loaded));
        Ok(activation)
    }
}

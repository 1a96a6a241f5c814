//! Why a model call or an agent run failed.

/// A model call failed (network, provider error, exhausted script).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    /// What went wrong.
    pub message: String,
}

impl ModelError {
    /// A model error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Why an agent run stopped without an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model call failed.
    #[error("model call failed: {0}")]
    Model(#[from] ModelError),
    /// A middleware refused to go on.
    #[error("middleware {middleware} failed: {message}")]
    Middleware {
        /// The middleware's name.
        middleware: String,
        /// What went wrong.
        message: String,
    },
    /// The model kept calling tools past the agent's step limit.
    #[error("the agent made {0} model calls without a final answer")]
    StepLimit(usize),
}

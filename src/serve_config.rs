//! The `[serve]` table of a `skills.toml`: what `skills serve` tells MCP clients.

/// The characters of the MCP server's `instructions` when nothing sets them: Claude Code
/// keeps the first 4,096 characters of a server's instructions (2,048 before its version
/// 2.1.296), so the whole text fits its cut and the older cut keeps the opening
/// paragraph and the first skills.
pub const DEFAULT_INSTRUCTIONS_BUDGET: usize = 4_000;

/// The `[serve]` table of a `skills.toml`.
///
/// ```toml
/// [serve]
/// instructions-budget = 2000   # characters of the server's instructions (default 4000)
/// ```
///
/// ```
/// use skills_runtime::sources::{DEFAULT_INSTRUCTIONS_BUDGET, SourcesConfig};
/// assert_eq!(SourcesConfig::parse("")?.serve.instructions_budget(), DEFAULT_INSTRUCTIONS_BUDGET);
/// let config = SourcesConfig::parse("[serve]\ninstructions-budget = 2000\n")?;
/// assert_eq!(config.serve.instructions_budget(), 2000);
/// assert!(SourcesConfig::parse("[serve]\ninstructions = 2000\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServeConfig {
    /// The most characters of the server's `instructions`: an opening paragraph, then
    /// one line per skill, most relevant first, as many as fit.
    pub instructions_budget: Option<usize>,
}

impl ServeConfig {
    /// The instructions budget (the default: [`DEFAULT_INSTRUCTIONS_BUDGET`]).
    pub fn instructions_budget(&self) -> usize {
        self.instructions_budget.unwrap_or(DEFAULT_INSTRUCTIONS_BUDGET)
    }
}

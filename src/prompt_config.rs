//! The `[prompt]` table of a `skills.toml`: how long the skills list of a prompt (and of
//! an MCP server's `list_skills` and instructions) may be.

use skills_catalog::CatalogBudget;

/// The `[prompt]` table of a `skills.toml`.
///
/// ```toml
/// [prompt]
/// budget = 8000              # characters of the skills list (the default)
/// # budget = "none"          # or: every skill in full, however long the list gets
/// # context-window = 200000  # or: a share of a context window of this many tokens
/// # budget-fraction = 0.01   #     that share (default 0.01)
/// pinned = ["deploy"]        # skills always listed in full
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// let config = SourcesConfig::parse("[prompt]\ncontext-window = 200000\npinned = [\"deploy\"]\n")?;
/// let budget = config.prompt.budget().unwrap();
/// assert_eq!(budget.chars(), Some(8_000));
/// assert_eq!(SourcesConfig::parse("")?.prompt.budget().unwrap().chars(), Some(8_000));
/// assert!(SourcesConfig::parse("[prompt]\nbudget = \"all\"\n")?.prompt.budget().is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PromptConfig {
    /// Characters of the skills list, or `"none"` for no limit.
    pub budget: Option<BudgetSetting>,
    /// A context window in tokens; the list gets `budget-fraction` of it.
    pub context_window: Option<usize>,
    /// The share of `context-window` the list may take (default 0.01).
    pub budget_fraction: Option<f64>,
    /// Skills that always keep their full entry.
    #[serde(default)]
    pub pinned: Vec<String>,
}

/// The value of `budget`: a number of characters, or a word.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(untagged)]
pub enum BudgetSetting {
    /// At most this many characters.
    Chars(usize),
    /// `"none"`: no limit.
    Word(String),
}

/// The share of a context window a skills list takes when none is given: what Claude
/// Code keeps its listing to.
pub const DEFAULT_BUDGET_FRACTION: f64 = 0.01;

impl PromptConfig {
    /// The budget this table sets (the default budget where it sets none), or why its
    /// values cannot be used.
    pub fn budget(&self) -> Result<CatalogBudget, String> {
        budget_of(
            self.budget.as_ref(),
            self.context_window,
            self.budget_fraction,
            &self.pinned,
        )
    }
}

/// A budget from the settings a `[prompt]` table or command-line flags give: `budget`
/// wins over `context_window`; neither gives the default.
pub fn budget_of(
    budget: Option<&BudgetSetting>,
    context_window: Option<usize>,
    fraction: Option<f64>,
    pinned: &[String],
) -> Result<CatalogBudget, String> {
    let fraction = fraction.unwrap_or(DEFAULT_BUDGET_FRACTION);
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(format!("budget-fraction must be above 0 and at most 1, not {fraction}"));
    }
    let budget = match (budget, context_window) {
        (Some(BudgetSetting::Chars(chars)), _) => CatalogBudget::of_chars(*chars),
        (Some(BudgetSetting::Word(word)), _) if word == "none" => CatalogBudget::unlimited(),
        (Some(BudgetSetting::Word(word)), _) => {
            return Err(format!(
                "budget must be a number of characters or \"none\", not {word:?}"
            ));
        }
        (None, Some(tokens)) => CatalogBudget::of_context_window(tokens, fraction),
        (None, None) => CatalogBudget::default(),
    };
    Ok(budget.with_pinned(pinned.iter().cloned()))
}

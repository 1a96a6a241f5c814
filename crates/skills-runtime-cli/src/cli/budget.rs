//! `--budget`, `--context-window` and `--budget-fraction`: how long a skills list may be.

use clap::Args;

/// How long the skills list may be: the flags, else a skills.toml's `[prompt]`, else
/// 8,000 characters.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct BudgetArgs {
    /// Keep the skills list within this many characters (default 8000): over it, the
    /// least used skills get a short entry, then their name only, then none.
    #[arg(long, value_name = "CHARS", conflicts_with = "context_window")]
    pub budget: Option<usize>,
    /// Keep the skills list within a fraction (--budget-fraction) of a context window of
    /// this many tokens, at four characters a token.
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<usize>,
    /// The fraction of --context-window the list may take (default 0.01).
    #[arg(long, value_name = "F")]
    pub budget_fraction: Option<f64>,
    /// List every skill in full, however long the list gets.
    #[arg(long, conflicts_with_all = ["budget", "context_window"])]
    pub no_budget: bool,
}

impl BudgetArgs {
    /// The budget these flags give over `config` (a skills.toml's `[prompt]`, whose
    /// pinned skills stay pinned).
    pub fn budget(
        &self,
        config: &skills_runtime::sources::PromptConfig,
    ) -> anyhow::Result<skills_runtime::CatalogBudget> {
        use skills_runtime::sources::{BudgetSetting, budget_of};
        let budget = if self.no_budget {
            Some(BudgetSetting::Word("none".to_owned()))
        } else {
            self.budget.map(BudgetSetting::Chars)
        };
        let result = if budget.is_some() || self.context_window.is_some() {
            budget_of(
                budget.as_ref(),
                self.context_window,
                self.budget_fraction.or(config.budget_fraction),
                &config.pinned,
            )
        } else if self.budget_fraction.is_some() {
            let mut config = config.clone();
            config.budget_fraction = self.budget_fraction;
            config.budget()
        } else {
            config.budget()
        };
        result.map_err(|e| anyhow::anyhow!(e))
    }
}

//! [`CatalogBudget`]: the skills list kept within a number of characters, however large
//! the library, by giving the skills that matter least a shorter entry.

use skills_core::SkillMetadata;
use skills_core::name::is_prompt_safe_name;

use crate::prompt::{ListContext, MAX_PROMPT_FIELD_CHARS, escape_untrusted, format_skills_list, full_entry};

/// Characters of the skills list when no budget or context window is given (what
/// Claude Code and Codex keep a listing to).
pub const DEFAULT_BUDGET_CHARS: usize = 8_000;
/// Characters a compact entry keeps of a description, about.
pub const COMPACT_CHARS: usize = 80;

/// How many characters the skills list may take.
///
/// Within the budget the list is exactly the V2 list. Over it, skills are given shorter
/// forms in steps, the least important first: a compact entry (the name and the first
/// clause of the description, cut near [`COMPACT_CHARS`]), then the name only, then no
/// entry, and one last line counts what each form holds. Loaded and pinned skills always
/// keep their full entry; the others are ranked by use count, then by source priority
/// (a later source first), then by their place in the catalog. The same inputs give the
/// same text.
///
/// ```
/// use skills_catalog::CatalogBudget;
/// assert_eq!(CatalogBudget::default().chars(), Some(8_000));
/// assert_eq!(CatalogBudget::of_context_window(200_000, 0.01).chars(), Some(8_000));
/// assert_eq!(CatalogBudget::unlimited().chars(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogBudget {
    chars: Option<usize>,
    entry_chars: usize,
    pinned: Vec<String>,
}

impl Default for CatalogBudget {
    fn default() -> Self {
        Self::of_chars(DEFAULT_BUDGET_CHARS)
    }
}

impl CatalogBudget {
    /// No limit: every skill gets its full entry (the V2 list).
    pub fn unlimited() -> Self {
        Self {
            chars: None,
            entry_chars: MAX_PROMPT_FIELD_CHARS,
            pinned: Vec::new(),
        }
    }

    /// At most `chars` characters.
    pub fn of_chars(chars: usize) -> Self {
        Self {
            chars: Some(chars),
            entry_chars: MAX_PROMPT_FIELD_CHARS,
            pinned: Vec::new(),
        }
    }

    /// A `fraction` of a context window of `tokens` tokens, at four characters a token.
    pub fn of_context_window(tokens: usize, fraction: f64) -> Self {
        let chars = (tokens as f64 * 4.0 * fraction.clamp(0.0, 1.0)).round() as usize;
        Self::of_chars(chars)
    }

    /// At most `chars` characters of description in a full entry (default and most
    /// [`MAX_PROMPT_FIELD_CHARS`], 1,024: what the specification lets a description
    /// hold, and what discovery cuts a longer one to).
    pub fn with_entry_chars(mut self, chars: usize) -> Self {
        self.entry_chars = chars.clamp(1, MAX_PROMPT_FIELD_CHARS);
        self
    }

    /// Skills that always keep their full entry, as loaded ones do.
    pub fn with_pinned(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.pinned = names.into_iter().map(Into::into).collect();
        self
    }

    /// The limit in characters; `None` without one.
    pub fn chars(&self) -> Option<usize> {
        self.chars
    }
}

/// The form a skill's entry got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryForm {
    /// The V2 entry.
    Full,
    /// The name and the first clause of the description.
    Compact,
    /// The name only.
    Name,
    /// No entry.
    Omitted,
}

/// What a budgeted rendering did: the form and cost of each skill, in catalog order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BudgetReport {
    /// Each listed skill's name, form and characters (its line break included).
    pub entries: Vec<(String, EntryForm, usize)>,
    /// Characters of the whole list, the counting line included.
    pub total: usize,
}

impl BudgetReport {
    /// How many skills got `form`.
    pub fn count(&self, form: EntryForm) -> usize {
        self.entries.iter().filter(|(_, f, _)| *f == form).count()
    }
}

/// How often each skill was loaded, kept by a catalog across every thread (and MCP
/// session) that uses it, so a budgeted list keeps the skills people use.
///
/// ```
/// use skills_catalog::UseCounts;
/// let uses = UseCounts::default();
/// uses.record("web");
/// uses.record("web");
/// assert_eq!(uses.get("web"), 2);
/// assert_eq!(uses.to_map().get("pdf"), None);
/// ```
#[derive(Debug, Default)]
pub struct UseCounts {
    counts: dashmap::DashMap<String, u64>,
}

impl UseCounts {
    /// Counts one use of `name`.
    pub fn record(&self, name: &str) {
        match self.counts.get_mut(name) {
            Some(mut count) => *count += 1,
            None => {
                *self.counts.entry(name.to_owned()).or_default() += 1;
            }
        }
    }

    /// How often `name` was used.
    pub fn get(&self, name: &str) -> u64 {
        self.counts.get(name).map_or(0, |c| *c)
    }

    /// The counts as they are now.
    pub fn to_map(&self) -> std::collections::HashMap<String, u64> {
        self.counts.iter().map(|e| (e.key().clone(), *e.value())).collect()
    }
}

/// What ranks a skill that is neither loaded nor pinned: its use count, then the index
/// of its source (a later source ranks higher).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ranking<'a> {
    /// How often each skill was loaded, by name (missing: never).
    pub uses: Option<&'a std::collections::HashMap<String, u64>>,
    /// The index of the source each skill comes from, parallel to the skills.
    pub sources: &'a [usize],
}

/// The skills list within `budget`, and what the budget did.
pub fn format_budgeted_list(
    skills: &[SkillMetadata],
    ctx: &ListContext<'_>,
    budget: &CatalogBudget,
    ranking: &Ranking<'_>,
) -> (String, BudgetReport) {
    let shown: Vec<(usize, &SkillMetadata)> = skills
        .iter()
        .enumerate()
        .filter(|(_, s)| is_prompt_safe_name(&s.name))
        .collect();
    if shown.is_empty() {
        // The empty-library message.
        let text = format_skills_list(skills, ctx);
        let total = text.chars().count();
        return (
            text,
            BudgetReport {
                entries: Vec::new(),
                total,
            },
        );
    }
    let full: Vec<String> = shown
        .iter()
        .map(|(_, s)| full_entry(s, ctx, budget.entry_chars))
        .collect();
    let cost = |text: &str| text.chars().count() + 1;
    let full_total: usize = full.iter().map(|e| cost(e)).sum::<usize>() - 1;
    if budget.chars.is_none_or(|limit| full_total <= limit) {
        // The V2 list: `format_skills_list` joins the same entries.
        let entries = shown
            .iter()
            .zip(&full)
            .map(|((_, s), e)| (s.name.clone(), EntryForm::Full, cost(e)))
            .collect();
        return (
            full.join("\n"),
            BudgetReport {
                entries,
                total: full_total,
            },
        );
    }

    let compact: Vec<String> = shown.iter().map(|(_, s)| compact_entry(s)).collect();
    let names: Vec<String> = shown
        .iter()
        .map(|(_, s)| format!("- **{}**", escape_untrusted(&s.name, MAX_PROMPT_FIELD_CHARS)))
        .collect();
    let protected = |s: &SkillMetadata| ctx.loaded.contains(&s.name) || budget.pinned.contains(&s.name);
    // The order in which skills lose their entry: least used first, then the earlier
    // source, then the later place in the catalog.
    let mut order: Vec<usize> = (0..shown.len()).filter(|&i| !protected(shown[i].1)).collect();
    order.sort_by_cached_key(|&i| {
        let (at, skill) = shown[i];
        let source = ranking.sources.get(at).copied().unwrap_or(0);
        let uses = ranking.uses.and_then(|u| u.get(&skill.name)).copied().unwrap_or(0);
        (uses, source, std::cmp::Reverse(at))
    });
    let mut forms = vec![EntryForm::Full; shown.len()];
    let entry_cost = |i: usize, form: EntryForm| match form {
        EntryForm::Full => cost(&full[i]),
        EntryForm::Compact => cost(&compact[i]),
        EntryForm::Name => cost(&names[i]),
        EntryForm::Omitted => 0,
    };
    let mut total: usize = (0..shown.len()).map(|i| entry_cost(i, EntryForm::Full)).sum();
    // The counting line is at most this long; reserving it keeps the result within the
    // budget whatever the counts turn out to be.
    let footer_room = counting_line(shown.len(), shown.len(), shown.len(), shown.len())
        .chars()
        .count();
    let limit = budget.chars.unwrap_or(usize::MAX).saturating_sub(footer_room);
    'steps: for step in [EntryForm::Compact, EntryForm::Name, EntryForm::Omitted] {
        for &i in &order {
            if total <= limit {
                break 'steps;
            }
            if forms[i] < step {
                total = total - entry_cost(i, forms[i]) + entry_cost(i, step);
                forms[i] = step;
            }
        }
    }

    let mut lines: Vec<&str> = Vec::with_capacity(shown.len() + 1);
    let mut report = BudgetReport::default();
    for (i, (_, skill)) in shown.iter().enumerate() {
        let text = match forms[i] {
            EntryForm::Full => &full[i],
            EntryForm::Compact => &compact[i],
            EntryForm::Name => &names[i],
            EntryForm::Omitted => {
                report.entries.push((skill.name.clone(), EntryForm::Omitted, 0));
                continue;
            }
        };
        lines.push(text);
        report.entries.push((skill.name.clone(), forms[i], cost(text)));
    }
    let footer = counting_line(
        report.count(EntryForm::Full),
        report.count(EntryForm::Compact),
        report.count(EntryForm::Name),
        report.count(EntryForm::Omitted),
    );
    lines.push(&footer);
    let text = lines.join("\n");
    report.total = text.chars().count();
    (text, report)
}

/// `- **name**: first clause` of a skill's description, cut near [`COMPACT_CHARS`].
fn compact_entry(skill: &SkillMetadata) -> String {
    let description = skill.description.split_whitespace().collect::<Vec<_>>().join(" ");
    let clause_end = description
        .char_indices()
        .find(|&(i, c)| i > 0 && matches!(c, '.' | ';' | ':' | '!' | '?'))
        .map_or(description.len(), |(i, _)| i);
    let clause = &description[..clause_end];
    let text = if clause.chars().count() <= COMPACT_CHARS {
        clause.to_owned()
    } else {
        let cut: String = clause.chars().take(COMPACT_CHARS).collect();
        // Cut at the last word boundary, and say so.
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        format!("{cut}...")
    };
    format!(
        "- **{}**: {}",
        escape_untrusted(&skill.name, MAX_PROMPT_FIELD_CHARS),
        escape_untrusted(&text, MAX_PROMPT_FIELD_CHARS)
    )
}

/// The last line of a list that did not fit.
fn counting_line(full: usize, compact: usize, names: usize, omitted: usize) -> String {
    format!(
        "({full} skills shown in full, {compact} in short, {names} by name only; {omitted} not listed, to keep \
         this list short. `search_skills` finds any skill by what it does; `load_skill` loads one by its name.)"
    )
}

//! [`CatalogBudget`]: the skills list kept within a number of characters, however large
//! the library, by giving the skills that matter least a shorter entry.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use skills_core::{ResourceKind, ResourceMetadata, SkillMetadata};

use crate::compact::short_entry;
use crate::prompt::{
    ListContext, MAX_PROMPT_FIELD_CHARS, escape_untrusted, format_resource_summary, format_skills_list, full_entry,
    listed_for_model,
};
use crate::spread::spread;

/// Characters of the skills list when no budget or context window is given (what
/// Claude Code and Codex keep a listing to).
pub const DEFAULT_BUDGET_CHARS: usize = 8_000;

/// How many characters the skills list may take.
///
/// Within the budget the list is exactly the V2 list. Over it, skills are given shorter
/// forms in steps, the least important first: a compact entry (the name and the first
/// clause of the description, cut near [`COMPACT_CHARS`](crate::COMPACT_CHARS)), then the name only, then no
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
    pub(crate) pinned: Vec<String>,
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
/// assert!(uses.is_empty());
/// uses.record("web");
/// uses.record("web");
/// assert_eq!(uses.get("web"), 2);
/// assert!(!uses.is_empty());
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

    /// Whether no use was counted yet.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How often `name` was used.
    pub fn get(&self, name: &str) -> u64 {
        self.counts.get(name).map_or(0, |c| *c)
    }

    /// The counts as they are now.
    pub fn to_map(&self) -> HashMap<String, u64> {
        self.counts.iter().map(|e| (e.key().clone(), *e.value())).collect()
    }
}

/// Use counts as a render reads them: a map the caller gives, or a catalog's live
/// counts, read in place.
#[derive(Clone, Copy)]
pub(crate) enum Uses<'a> {
    Map(Option<&'a HashMap<String, u64>>),
    Live(&'a UseCounts),
}

impl Uses<'_> {
    fn each(self, mut f: impl FnMut(&str, u64)) {
        match self {
            Uses::Map(map) => map.into_iter().flatten().for_each(|(name, &count)| f(name, count)),
            Uses::Live(uses) => uses.counts.iter().for_each(|e| f(e.key(), *e.value())),
        }
    }
}

/// What ranks a skill that is neither loaded nor pinned: its use count, then the index
/// of its source (a later source ranks higher).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ranking<'a> {
    /// How often each skill was loaded, by name (missing: never).
    pub uses: Option<&'a HashMap<String, u64>>,
    /// The index of the source each skill comes from, parallel to the skills.
    pub sources: &'a [usize],
}

/// What each skill's entry costs in each form (as a skill that is not loaded), and the
/// order in which skills nobody used lose their entry: what a budgeted rendering needs
/// of a library, computed once per catalog version so that rendering for a new loaded
/// set costs arithmetic plus the entries shown.
#[derive(Debug, Clone, Default)]
pub struct EntryCosts {
    /// Positions in the skills of the skills with a prompt-safe name.
    shown: Vec<usize>,
    /// Characters (line break included) of each shown skill's full, compact and name
    /// entry, parallel to `shown`.
    full: Vec<usize>,
    compact: Vec<usize>,
    name: Vec<usize>,
    /// Indices into `shown`, earlier source first, then the later place in the catalog:
    /// the order unused skills lose their entry in.
    order: Vec<usize>,
    /// Indices into `shown`, by the skill's name, and where each name starts among
    /// them: where a name of the loaded set, the pins or the use counts is, without
    /// looking at every skill for each render.
    by_name: Vec<usize>,
    name_at: HashMap<Box<str>, usize>,
}

/// The most characters a full entry's resource line takes: a skill holds at most 512
/// files, so no count has more than three digits.
fn resource_line_room() -> usize {
    let most: Vec<ResourceMetadata> = [
        ResourceKind::Script,
        ResourceKind::Reference,
        ResourceKind::Asset,
        ResourceKind::Other,
    ]
    .into_iter()
    .flat_map(|kind| {
        std::iter::repeat_n(
            ResourceMetadata {
                path: String::new(),
                kind,
                skill_name: String::new(),
            },
            512,
        )
    })
    .collect();
    format!("\n  -> Resources: {}", format_resource_summary(&most))
        .chars()
        .count()
}

impl EntryCosts {
    /// Positions (in the skills the costs were computed for) of the listed skills: the
    /// ones the forms of a budgeted list are parallel to.
    pub(crate) fn shown(&self) -> &[usize] {
        &self.shown
    }
}

/// Characters of a list entry, with the line break after it.
fn cost(text: &str) -> usize {
    text.chars().count() + 1
}

fn name_entry(skill: &SkillMetadata) -> String {
    ["- **", &escape_untrusted(&skill.name, MAX_PROMPT_FIELD_CHARS), "**"].concat()
}

impl EntryCosts {
    /// The costs of `skills` listed with `ctx` (its loaded set ignored) under `budget`;
    /// `sources` gives each skill's source index (empty: all from one). With
    /// `lazy_resources`, resources are not known yet: every full entry is counted with
    /// room for the longest resource line instead of its own.
    pub fn compute(
        skills: &[Arc<SkillMetadata>],
        ctx: &ListContext<'_>,
        budget: &CatalogBudget,
        sources: &[usize],
        lazy_resources: bool,
    ) -> Self {
        let none = BTreeMap::new();
        let unloaded = ListContext {
            loaded: &[],
            resources: if lazy_resources { &none } else { ctx.resources },
            ..*ctx
        };
        let reserve = if lazy_resources { resource_line_room() } else { 0 };
        let shown: Vec<usize> = (0..skills.len()).filter(|&i| listed_for_model(&skills[i])).collect();
        let costs = spread(&shown, |i| {
            let full = cost(&full_entry(&skills[i], &unloaded, budget.entry_chars)) + reserve;
            [full, cost(&short_entry(&skills[i])), cost(&name_entry(&skills[i]))]
        });
        let column = |c: usize| costs.iter().map(|row| row[c]).collect();
        let mut order: Vec<usize> = (0..shown.len()).collect();
        order.sort_by_key(|&k| (sources.get(shown[k]).copied().unwrap_or(0), std::cmp::Reverse(shown[k])));
        let mut by_name: Vec<usize> = (0..shown.len()).collect();
        by_name.sort_by(|&a, &b| skills[shown[a]].name.cmp(&skills[shown[b]].name));
        let mut name_at = HashMap::with_capacity(by_name.len());
        for (at, &k) in by_name.iter().enumerate() {
            name_at.entry(skills[shown[k]].name.as_str().into()).or_insert(at);
        }
        Self {
            full: column(0),
            compact: column(1),
            name: column(2),
            shown,
            order,
            by_name,
            name_at,
        }
    }

    /// Where the skills called `name` are among the shown ones (one in a catalog, where
    /// names are unique).
    fn positions<'s>(&'s self, skills: &'s [Arc<SkillMetadata>], name: &'s str) -> impl Iterator<Item = usize> + 's {
        let at = self.name_at.get(name).copied().unwrap_or(self.by_name.len());
        self.by_name[at..]
            .iter()
            .copied()
            .take_while(move |&k| skills[self.shown[k]].name == name)
    }
}

/// The skills list within `budget`, and what the budget did.
pub fn format_budgeted_list(
    skills: &[Arc<SkillMetadata>],
    ctx: &ListContext<'_>,
    budget: &CatalogBudget,
    ranking: &Ranking<'_>,
) -> (String, BudgetReport) {
    let costs = EntryCosts::compute(skills, ctx, budget, ranking.sources, false);
    let (text, forms) = budgeted_list(skills, ctx, budget, Uses::Map(ranking.uses), ranking.sources, &costs);
    let report = report_of(skills, ctx, budget, &costs, &forms, &text);
    (text, report)
}

/// What a budgeted rendering did, from the forms it gave the shown skills.
pub(crate) fn report_of(
    skills: &[Arc<SkillMetadata>],
    ctx: &ListContext<'_>,
    budget: &CatalogBudget,
    costs: &EntryCosts,
    forms: &[EntryForm],
    text: &str,
) -> BudgetReport {
    let entries = costs
        .shown
        .iter()
        .zip(forms)
        .enumerate()
        .map(|(k, (&i, &form))| {
            let skill = &skills[i];
            let chars = match form {
                EntryForm::Full if ctx.loaded.contains(&skill.name) => {
                    cost(&full_entry(skill, ctx, budget.entry_chars))
                }
                EntryForm::Full => costs.full[k],
                EntryForm::Compact => costs.compact[k],
                EntryForm::Name => costs.name[k],
                EntryForm::Omitted => 0,
            };
            (skill.name.clone(), form, chars)
        })
        .collect();
    BudgetReport {
        entries,
        total: text.chars().count(),
    }
}

/// The list within `budget` from precomputed `costs` of the same skills, and the form
/// each shown skill got (parallel to the shown skills; empty for an empty library).
pub(crate) fn budgeted_list(
    skills: &[Arc<SkillMetadata>],
    ctx: &ListContext<'_>,
    budget: &CatalogBudget,
    uses: Uses<'_>,
    sources: &[usize],
    costs: &EntryCosts,
) -> (String, Vec<EntryForm>) {
    let shown = &costs.shown;
    if shown.is_empty() {
        // The empty-library message.
        return (format_skills_list(skills, ctx), Vec::new());
    }
    // What this render's loaded set, pins and use counts say of each entry, found by
    // name: the work per render grows with them, not with the library.
    let mut loaded = vec![false; shown.len()];
    let mut protected = vec![false; shown.len()];
    for (names, is_loaded) in [(ctx.loaded, true), (budget.pinned.as_slice(), false)] {
        for k in names.iter().flat_map(|name| costs.positions(skills, name)) {
            loaded[k] |= is_loaded;
            protected[k] = true;
        }
    }
    let mut use_counts = vec![0u64; shown.len()];
    uses.each(|name, count| {
        for k in costs.positions(skills, name) {
            use_counts[k] = count;
        }
    });
    let is_loaded = |k: usize| loaded[k];
    // Loaded skills' full entries differ from the precomputed ones ([Loaded], no
    // load_skill line): render them now, once.
    let loaded_full: Vec<(usize, String)> = (0..shown.len())
        .filter(|&k| is_loaded(k))
        .map(|k| (k, full_entry(&skills[shown[k]], ctx, budget.entry_chars)))
        .collect();
    let full_cost = |k: usize| {
        loaded_full
            .iter()
            .find(|(at, _)| *at == k)
            .map_or(costs.full[k], |(_, text)| cost(text))
    };
    let full_total: usize = (0..shown.len()).map(full_cost).sum::<usize>() - 1;
    let full_text = |k: usize| match loaded_full.iter().find(|(at, _)| *at == k) {
        Some((_, text)) => text.clone(),
        None => full_entry(&skills[shown[k]], ctx, budget.entry_chars),
    };
    if budget.chars.is_none_or(|limit| full_total <= limit) {
        // The V2 list: `format_skills_list` joins the same entries.
        let lines: Vec<String> = (0..shown.len()).map(full_text).collect();
        return (lines.join("\n"), vec![EntryForm::Full; shown.len()]);
    }

    let protected = |k: usize| protected[k];
    let uses = |k: usize| use_counts[k];
    // The order in which skills lose their entry: least used first (never used ones in
    // the precomputed order), then the earlier source, then the later place.
    let mut used: Vec<usize> = (0..shown.len()).filter(|&k| uses(k) > 0 && !protected(k)).collect();
    used.sort_by_cached_key(|&k| {
        let source = sources.get(shown[k]).copied().unwrap_or(0);
        (uses(k), source, std::cmp::Reverse(shown[k]))
    });
    let order = costs
        .order
        .iter()
        .copied()
        .filter(|&k| uses(k) == 0 && !protected(k))
        .chain(used);
    let order: Vec<usize> = order.collect();
    let mut forms = vec![EntryForm::Full; shown.len()];
    let entry_cost = |k: usize, form: EntryForm| match form {
        EntryForm::Full => full_cost(k),
        EntryForm::Compact => costs.compact[k],
        EntryForm::Name => costs.name[k],
        EntryForm::Omitted => 0,
    };
    let mut total: usize = (0..shown.len()).map(full_cost).sum();
    // The counting line is at most this long; reserving it keeps the result within the
    // budget whatever the counts turn out to be.
    let footer_room = counting_line(shown.len(), shown.len(), shown.len(), shown.len())
        .chars()
        .count();
    let limit = budget.chars.unwrap_or(usize::MAX).saturating_sub(footer_room);
    'steps: for step in [EntryForm::Compact, EntryForm::Name, EntryForm::Omitted] {
        for &k in &order {
            if total <= limit {
                break 'steps;
            }
            if forms[k] < step {
                total = total - entry_cost(k, forms[k]) + entry_cost(k, step);
                forms[k] = step;
            }
        }
    }

    let mut lines: Vec<String> = Vec::new();
    let mut counts = [0usize; 4];
    for (k, form) in forms.iter().enumerate() {
        let skill = &skills[shown[k]];
        counts[*form as usize] += 1;
        match form {
            EntryForm::Full => lines.push(full_text(k)),
            EntryForm::Compact => lines.push(short_entry(skill)),
            EntryForm::Name => lines.push(name_entry(skill)),
            EntryForm::Omitted => {}
        }
    }
    lines.push(counting_line(counts[0], counts[1], counts[2], counts[3]));
    (lines.join("\n"), forms)
}

/// The last line of a list that did not fit.
fn counting_line(full: usize, compact: usize, names: usize, omitted: usize) -> String {
    format!(
        "({full} skills shown in full, {compact} in short, {names} by name only; {omitted} not listed, to keep \
         this list short. `search_skills` finds any skill by what it does; `load_skill` loads one by its name.)"
    )
}

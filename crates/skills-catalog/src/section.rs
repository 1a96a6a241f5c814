//! [`PromptSection`]: the skills section of a system prompt for a catalog's sources,
//! rendered from a snapshot and a loaded set, and cached because agents ask for it on
//! every model call.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use dashmap::DashMap;
use skills_core::{Diagnostic, SkillMetadata, SkillsState};

use crate::budget::{BudgetReport, CatalogBudget, EntryCosts, EntryForm, UseCounts, Uses, budgeted_list, report_of};
use crate::catalog::SkillCatalog;
use crate::listing::SharedResources;
use crate::policy::AllowedToolsPolicy;
use crate::prompt::{
    ListContext, PromptTemplate, SourceLocation, ToolNotes, format_load_warnings, format_skills_locations,
};
use crate::select::{Selection, SkillFilter, ToolSet};

mod filter;
use crate::snapshot::CatalogSnapshot;
use crate::source::SkillSource;

/// Loaded sets whose section is kept at most; more clear the cache.
const MAX_CACHED_SECTIONS: usize = 256;
/// Tool sets whose entry costs are kept at most (per snapshot version).
const MAX_CACHED_COSTS: usize = 8;

/// A rendered section: for which tool set and snapshot version, its text, and whether
/// every skill got its full entry.
type Rendered = (Option<ToolSet>, u64, Arc<str>, bool);
/// Entry costs of one (snapshot version, tool set).
type CostsEntry = (u64, Option<ToolSet>, Arc<EntryCosts>);
/// The selection of one (snapshot version, tool set).
type SelectionEntry = (u64, Option<ToolSet>, Arc<Selection>);

/// Renders the skills section (the template with the source lines, the skills list and
/// the load warnings) for one list of sources.
///
/// [`render`](Self::render) caches one section per loaded set for the newest snapshot
/// version it saw, in a concurrent map, so threads asking at once do not queue on one
/// lock and a section is rendered once per (version, loaded set).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{AllowedToolsPolicy, PromptSection, PromptTemplate, SkillCatalog, SkillSource};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search\n---\n")?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills")]);
/// let section = PromptSection::new(catalog.sources(), AllowedToolsPolicy::Recommend, PromptTemplate::default());
/// let snapshot = catalog.ensure_loaded().await;
/// let text = section.render(&snapshot, &["web".to_owned()]);
/// assert!(text.contains("**Skills Skills**: `/skills` (higher priority)"));
/// assert!(text.contains("- **web** [Loaded]: Search"));
/// assert!(Arc::ptr_eq(&text, &section.render(&snapshot, &["web".to_owned()])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct PromptSection {
    /// The source lines; they never change.
    locations: String,
    source_paths: Vec<String>,
    policy: AllowedToolsPolicy,
    template: PromptTemplate,
    budget: CatalogBudget,
    uses: Option<Arc<UseCounts>>,
    /// The view and (fixed) tool set the list is of.
    filter: SkillFilter,
    /// Entries name the tools skills need, unchecked (an MCP server's lists).
    unchecked_tools: bool,
    /// Sections by loaded set and tool set, each with the snapshot version it was
    /// rendered from and whether every skill got its full entry.
    cache: DashMap<Vec<String>, Vec<Rendered>>,
    /// Entry costs of the newest snapshot version listed, per tool set.
    costs: Mutex<Vec<CostsEntry>>,
    /// What the section offers of the newest snapshot version, per tool set.
    selections: Mutex<Vec<SelectionEntry>>,
    /// The newest snapshot version rendered; only its sections are kept.
    newest: AtomicU64,
    renders: AtomicU64,
}

impl PromptSection {
    /// The section of `catalog`'s sources under `policy`, filled into `template`, whose
    /// budgeted list ranks skills by the catalog's use counts: what a face that serves a
    /// catalog renders. [`new`](Self::new) with
    /// [`with_use_counts`](Self::with_use_counts) of the catalog.
    pub fn of_catalog(catalog: &SkillCatalog, policy: AllowedToolsPolicy, template: PromptTemplate) -> Self {
        Self::new(catalog.sources(), policy, template).with_use_counts(catalog.use_counts())
    }

    /// The section of `sources` (priority order) under `policy`, filled into `template`.
    pub fn new(sources: &[SkillSource], policy: AllowedToolsPolicy, template: PromptTemplate) -> Self {
        let locations: Vec<SourceLocation<'_>> = sources
            .iter()
            .map(|source| SourceLocation {
                label: source.label(),
                path: source.path(),
            })
            .collect();
        Self {
            locations: format_skills_locations(&locations),
            source_paths: sources.iter().map(|s| s.path().to_owned()).collect(),
            policy,
            template,
            budget: CatalogBudget::unlimited(),
            uses: None,
            filter: SkillFilter::default(),
            unchecked_tools: false,
            cache: DashMap::new(),
            costs: Mutex::new(Vec::new()),
            selections: Mutex::new(Vec::new()),
            newest: AtomicU64::new(0),
            renders: AtomicU64::new(0),
        }
    }

    /// Keeps the skills list within `budget` (see [`CatalogBudget`]); unlimited by
    /// default.
    pub fn with_budget(mut self, budget: CatalogBudget) -> Self {
        self.budget = budget;
        self.cache.clear();
        self.costs = Mutex::new(Vec::new());
        self
    }

    /// What the budget does to the skills list of `snapshot` with `loaded` loaded: each
    /// skill's form and cost, and the total.
    pub fn report(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> BudgetReport {
        let selection = self.selection(snapshot, None);
        Library::with(snapshot, selection.as_deref(), |library| {
            self.list(library, loaded, true)
        })
        .report
        .unwrap_or_default()
    }

    /// The allowed-tools policy the section's wording follows.
    pub fn policy(&self) -> AllowedToolsPolicy {
        self.policy
    }

    /// The section for `snapshot` with `loaded` loaded, rendered once per pair. Only
    /// sections of the newest version rendered are kept.
    pub fn render(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> Arc<str> {
        self.render_listing(snapshot, loaded).0
    }

    /// [`render`](Self::render), and whether the budget left every skill its full entry
    /// (if not, an agent needs `search_skills` to find the others).
    pub fn render_listing(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> (Arc<str>, bool) {
        self.render_listing_for(snapshot, loaded, None)
    }

    /// [`render_listing`](Self::render_listing) for an agent with `tools` (the section's
    /// own tool set when `None`), cached per (version, loaded set, tool set).
    pub fn render_listing_for(
        &self,
        snapshot: &CatalogSnapshot,
        loaded: &[String],
        tools: Option<&ToolSet>,
    ) -> (Arc<str>, bool) {
        let version = snapshot.version();
        if let Some(found) = self.cached_section(version, loaded, tools) {
            return found;
        }
        let selection = self.selection(snapshot, tools);
        let (section, complete) = Library::with(snapshot, selection.as_deref(), |library| {
            self.render_parts(library, snapshot.diagnostics(), loaded)
        });
        let section: Arc<str> = section.into();
        // A newer version makes every older section dead weight (at 10,000 skills one is
        // over a megabyte): drop them. A thread still on an older snapshot (per-thread
        // reloads) renders again, uncached.
        let newest = self.newest.fetch_max(version, Ordering::Relaxed);
        if version > newest {
            self.cache.retain(|_, rendered| {
                rendered.retain(|(_, v, _, _)| *v >= version);
                !rendered.is_empty()
            });
        } else if version < newest {
            return (section, complete);
        }
        if self.cache.len() >= MAX_CACHED_SECTIONS {
            self.cache.clear();
        }
        let mut rendered = self.cache.entry(loaded.to_vec()).or_default();
        rendered.retain(|(t, _, _, _)| t.as_ref() != tools);
        if rendered.len() >= MAX_CACHED_COSTS {
            rendered.clear();
        }
        rendered.push((tools.cloned(), version, section.clone(), complete));
        (section, complete)
    }

    /// The section cached for (`version`, `loaded`, `tools`), looked up without copying
    /// the loaded set (this runs on every model call).
    fn cached_section(&self, version: u64, loaded: &[String], tools: Option<&ToolSet>) -> Option<(Arc<str>, bool)> {
        let rendered = self.cache.get(loaded)?;
        rendered
            .iter()
            .find(|(t, v, _, _)| *v == version && t.as_ref() == tools)
            .map(|(_, _, text, complete)| (text.clone(), *complete))
    }

    /// [`render_listing`](Self::render_listing) for a snapshot that may list resources
    /// lazily: the resources of the skills that get a full entry are listed first (once
    /// per snapshot), so their summaries are right. For any other snapshot, or a
    /// section already rendered, the same as `render_listing`.
    pub async fn render_fetching(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> (Arc<str>, bool) {
        self.render_fetching_for(snapshot, loaded, None).await
    }

    /// [`render_fetching`](Self::render_fetching) for an agent with `tools` (see
    /// [`render_listing_for`](Self::render_listing_for)).
    pub async fn render_fetching_for(
        &self,
        snapshot: &CatalogSnapshot,
        loaded: &[String],
        tools: Option<&ToolSet>,
    ) -> (Arc<str>, bool) {
        if self.cached_section(snapshot.version(), loaded, tools).is_none() {
            self.fetch_full_resources_for(snapshot, loaded, tools).await;
        }
        self.render_listing_for(snapshot, loaded, tools)
    }

    /// The skills list of [`render_fetching`](Self::render_fetching) and what the budget
    /// did to it (for `list_skills`, which says which skills it lists).
    pub async fn skills_list_fetching(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> (String, BudgetReport) {
        self.fetch_full_resources(snapshot, loaded).await;
        let selection = self.selection(snapshot, None);
        let listed = Library::with(snapshot, selection.as_deref(), |library| {
            self.list(library, loaded, true)
        });
        (listed.text, listed.report.unwrap_or_default())
    }

    /// The skills that get a full entry in the list for `snapshot` with `loaded`.
    pub fn full_entries(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> Vec<String> {
        self.full_entries_for(snapshot, loaded, None)
    }

    fn full_entries_for(&self, snapshot: &CatalogSnapshot, loaded: &[String], tools: Option<&ToolSet>) -> Vec<String> {
        let selection = self.selection(snapshot, tools);
        Library::with(snapshot, selection.as_deref(), |library| {
            self.list(library, loaded, false)
        })
        .full
    }

    /// For a lazy snapshot, lists the resources of the skills that get a full entry
    /// (their forms do not depend on resources: entry costs leave room for them).
    pub async fn fetch_full_resources(&self, snapshot: &CatalogSnapshot, loaded: &[String]) {
        self.fetch_full_resources_for(snapshot, loaded, None).await;
    }

    async fn fetch_full_resources_for(&self, snapshot: &CatalogSnapshot, loaded: &[String], tools: Option<&ToolSet>) {
        if snapshot.lazy_resources() {
            let full = self.full_entries_for(snapshot, loaded, tools);
            let names: Vec<&str> = full.iter().map(String::as_str).collect();
            snapshot.fetch_resources(&names).await;
        }
    }

    /// The skills list alone (the section's `{skills_list}` without its load warnings),
    /// for `snapshot` with `loaded` loaded; not cached. What an MCP `list_skills` tool
    /// answers.
    pub fn skills_list(&self, snapshot: &CatalogSnapshot, loaded: &[String]) -> String {
        let selection = self.selection(snapshot, None);
        Library::with(snapshot, selection.as_deref(), |library| {
            self.list(library, loaded, false)
        })
        .text
    }

    /// The skills list within the budget, whether every skill got its full entry, and
    /// (when asked) the report of what the budget did. Entry costs are computed once per
    /// (catalog version, tool set).
    fn list(&self, library: &Library<'_>, loaded: &[String], report: bool) -> Listed {
        let source_paths: Vec<&str> = self.source_paths.iter().map(String::as_str).collect();
        let tools = match library.selection {
            _ if self.unchecked_tools => ToolNotes::Unchecked,
            Some(selection) if self.filter.show_unavailable => ToolNotes::Unavailable(selection.unavailable()),
            _ => ToolNotes::None,
        };
        let ctx = ListContext {
            loaded,
            resources: &library.resources,
            policy: self.policy,
            source_paths: &source_paths,
            tools,
        };
        let compute = || {
            Arc::new(EntryCosts::compute(
                library.skills,
                &ctx,
                &self.budget,
                library.sources,
                library.lazy,
            ))
        };
        let costs = match library.version {
            Some(version) => {
                let tool_set = library.selection.and_then(|_| library.tools.clone());
                let mut cached = self.costs.lock().unwrap_or_else(PoisonError::into_inner);
                cached.retain(|(v, _, _)| *v == version);
                match cached.iter().find(|(_, t, _)| *t == tool_set) {
                    Some((_, _, costs)) => Arc::clone(costs),
                    None => {
                        if cached.len() >= MAX_CACHED_COSTS {
                            cached.clear();
                        }
                        let costs = compute();
                        cached.push((version, tool_set, Arc::clone(&costs)));
                        costs
                    }
                }
            }
            None => compute(),
        };
        // Only a list that may not fit needs the counts.
        let uses = match self.uses.as_deref().filter(|_| self.budget.chars().is_some()) {
            Some(uses) => Uses::Live(uses),
            None => Uses::Map(None),
        };
        let (text, forms) = budgeted_list(library.skills, &ctx, &self.budget, uses, library.sources, &costs);
        let full: Vec<String> = costs
            .shown()
            .iter()
            .zip(&forms)
            .filter(|(_, form)| **form == EntryForm::Full)
            .map(|(&i, _)| library.skills[i].name.clone())
            .collect();
        let report = report.then(|| report_of(library.skills, &ctx, &self.budget, &costs, &forms, &text));
        Listed {
            complete: full.len() == forms.len(),
            text,
            full,
            report,
        }
    }

    /// How many sections the cache holds.
    pub fn cached(&self) -> usize {
        self.cache.iter().map(|rendered| rendered.len()).sum()
    }

    /// The section for a thread's state (its skills, resources, diagnostics and loaded
    /// set), not cached. A state without skills renders the empty-library message.
    pub fn render_state(&self, state: &SkillsState) -> String {
        let library = Library {
            skills: state.skills_metadata.as_deref().unwrap_or_default(),
            sources: &[],
            resources: Cow::Borrowed(&state.skill_resources),
            version: None,
            lazy: false,
            selection: None,
            tools: None,
        };
        self.render_parts(&library, &state.skills_load_errors, &state.skills_loaded)
            .0
    }

    /// How many times a section was rendered (a cached one is not).
    pub fn renders(&self) -> u64 {
        self.renders.load(Ordering::Relaxed)
    }

    fn render_parts(&self, library: &Library<'_>, diagnostics: &[Diagnostic], loaded: &[String]) -> (String, bool) {
        self.renders.fetch_add(1, Ordering::Relaxed);
        let Listed {
            text: mut list,
            complete,
            ..
        } = self.list(library, loaded, false);
        if let Some(warnings) = format_load_warnings(diagnostics) {
            list.push_str("\n\n");
            list.push_str(&warnings);
        }
        (self.template.render(&self.locations, &list), complete)
    }
}

/// A rendered skills list and what the budget did to it.
struct Listed {
    text: String,
    /// Whether every skill got its full entry.
    complete: bool,
    /// The skills that got their full entry.
    full: Vec<String>,
    /// Each skill's form and cost, when asked for.
    report: Option<BudgetReport>,
}

/// What a skills list is rendered from: a snapshot's parts (with its version, so entry
/// costs are cached) or a thread's state (without).
struct Library<'a> {
    skills: &'a [Arc<SkillMetadata>],
    sources: &'a [usize],
    resources: Cow<'a, BTreeMap<String, SharedResources>>,
    version: Option<u64>,
    /// Resources are listed lazily: entry costs leave room for any resource line.
    lazy: bool,
    /// The selection the skills are of, when the list is not of every skill.
    selection: Option<&'a Selection>,
    /// The tool set of that selection.
    tools: Option<ToolSet>,
}

impl<'a> Library<'a> {
    /// `snapshot` (or what `selection` offers of it) with the resources it knows now
    /// (read under its lock, not copied).
    fn with<R>(snapshot: &'a CatalogSnapshot, selection: Option<&Selection>, f: impl FnOnce(&Library<'_>) -> R) -> R {
        snapshot.with_known_resources(|resources| {
            let (skills, sources) = match selection {
                Some(selection) => (selection.skills(), selection.skill_sources()),
                None => (snapshot.skills(), snapshot.skill_sources()),
            };
            f(&Library {
                skills,
                sources,
                resources: Cow::Borrowed(resources),
                version: Some(snapshot.version()),
                lazy: snapshot.lazy_resources(),
                selection,
                tools: selection.and_then(Selection::tools).cloned(),
            })
        })
    }
}

//! [`SkillCatalog`]: the live catalog of a list of sources, shared by every face (agent
//! threads, the MCP server, the CLI), reloaded incrementally and swapped atomically.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError};

use skills_core::{Diagnostic, Discovery, DiscoveryLimits, ParseCache, Severity, SourceError};
use tokio::sync::{Mutex, broadcast};
use tracing::{debug, warn};

use crate::budget::UseCounts;
use crate::first_look::{FirstLook, KeptListing};
use crate::frozen;
use crate::listing::{Listing, keep_last_good};
use crate::lock::Lock;
use crate::manifest::DigestCache;
use crate::persist::PersistentCache;
use crate::search::state::{Current, SearchState, Swap};
use crate::snapshot::{
    CatalogChange, CatalogEvent, CatalogSnapshot, CatalogStats, build_snapshot, diff, new_diagnostics,
};
use crate::source::SkillSource;

/// Per-source memory between reloads.
#[derive(Debug, Default)]
pub(crate) struct SourceWork {
    pub(crate) cache: ParseCache,
    pub(crate) last: Option<Listing>,
    /// Why the last discovery of the source failed, as a diagnostic and as the error.
    pub(crate) error: Option<(Diagnostic, SourceError)>,
    /// Whether the search words the persistent cache keeps were given to `cache`.
    pub(crate) words_loaded: bool,
    /// Where to keep the listing a first discovery read.
    pub(crate) keep_listing: Option<crate::persist::ListingFile>,
    /// The source's parses are still in their cache file, not in `cache`: its first
    /// discovery took a kept listing and nothing has needed them since (see
    /// [`SkillCatalog::load_parses`]).
    pub(crate) parses_unloaded: bool,
    /// The digest of the `SKILL.md` files (paths and etags) the first discovery found,
    /// when its listing says only what those files say: the search index's key takes it
    /// in place of each skill's etag. Gone at the first reload.
    pub(crate) files_digest: Option<u128>,
    /// Where the first discovery's parses go as they are read, when it found no cache to
    /// read through ([`SkillCatalog::spill_parses`]).
    pub(crate) spill: Option<crate::parse_file::ParseFile>,
}

/// The discovered skills of a list of sources, shared by everything that answers from
/// them: every agent thread of a middleware, an MCP server's requests, a CLI command.
///
/// Discovery runs once per catalog ([`ensure_loaded`](Self::ensure_loaded)); after that
/// the catalog changes only by [`reload`](Self::reload) (explicit, or driven by
/// [`watch`](Self::watch)). A reload is incremental (a `SKILL.md` whose etag did not
/// change is not read again), keeps the last good version of a skill whose edit broke
/// it, and swaps the new snapshot in atomically. Subscribers learn about every change.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{SkillCatalog, SkillSource};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/skills")]);
/// let snapshot = catalog.ensure_loaded().await;
/// assert_eq!((snapshot.version(), snapshot.skills()[0].name.as_str()), (1, "web"));
///
/// backend.insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Read PDFs\n---\n")?;
/// let event = catalog.reload().await.expect("a skill was added");
/// assert_eq!((event.version, catalog.snapshot().skills().len()), (2, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct SkillCatalog {
    sources: Arc<[SkillSource]>,
    pub(crate) limits: DiscoveryLimits,
    pub(crate) resources: bool,
    /// Resources are listed when needed, not at discovery.
    lazy: bool,
    pub(crate) incremental: bool,
    pub(crate) current: Current,
    pub(crate) work: Mutex<Option<Vec<SourceWork>>>,
    events: broadcast::Sender<CatalogEvent>,
    pub(crate) reloads: AtomicU64,
    pub(crate) files_read: AtomicU64,
    uses: Arc<UseCounts>,
    /// The search index, built by the first search and kept up to date by reloads.
    pub(crate) search: Arc<SearchState>,
    /// Under a frozen lock, the lock every skill is checked against.
    pub(crate) lock: Option<Arc<Lock>>,
    /// Digests of the files read, for the lock and the manifests faces publish.
    pub(crate) digests: DigestCache,
    /// Where each source's parses are kept between processes, when they are.
    pub(crate) persist: Option<PersistentCache>,
    /// What hands the heap's free memory back to the system, if the caller gave it.
    pub(crate) release: Option<fn()>,
}

impl SkillCatalog {
    /// How often each skill was loaded through this catalog, by every thread: what a
    /// budgeted skills list ranks by ([`PromptSection::with_use_counts`](crate::PromptSection::with_use_counts)).
    /// A face records a use with [`record_use`](Self::record_use) when `load_skill` loads.
    pub fn use_counts(&self) -> Arc<UseCounts> {
        Arc::clone(&self.uses)
    }

    /// Counts one load of the skill `name`.
    pub fn record_use(&self, name: &str) {
        self.uses.record(name);
    }

    /// A catalog over `sources` (priority order: for one name, the last source wins);
    /// nothing is discovered yet. Resources are discovered with the skills. A label an
    /// earlier source has is made distinct (`skills`, `skills-2`: see [`SkillSource::label`]).
    pub fn new(sources: Vec<SkillSource>) -> Self {
        Self {
            sources: crate::source::distinct_labels(sources).into(),
            limits: DiscoveryLimits::default(),
            resources: true,
            lazy: false,
            incremental: true,
            current: Arc::default(),
            work: Mutex::new(None),
            events: broadcast::channel(64).0,
            reloads: AtomicU64::new(0),
            files_read: AtomicU64::new(0),
            uses: Arc::default(),
            search: Arc::default(),
            lock: None,
            digests: DigestCache::default(),
            persist: None,
            release: None,
        }
    }

    /// The catalog keeping what discovery parsed in `cache` between processes (default:
    /// not kept): a start reads and parses only the `SKILL.md` files that changed since
    /// the last process, and the search index takes the instructions' words from it.
    /// See [`PersistentCache`].
    pub fn with_persistent_cache(mut self, cache: PersistentCache) -> Self {
        self.persist = Some(cache);
        self
    }

    /// Where the catalog keeps its parses between processes, if it does: not under a
    /// frozen lock ([`with_lock`](Self::with_lock)), where everything served comes from
    /// files checked against the lock, never from a cache.
    pub fn persistent_cache(&self) -> Option<&PersistentCache> {
        self.persist.as_ref().filter(|_| self.lock.is_none())
    }

    /// The catalog with `limits` on each source's discovery instead of the defaults.
    pub fn with_limits(mut self, limits: DiscoveryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether discovery collects each skill's resources (default: yes). Without them a
    /// discovery looks up `<dir>/SKILL.md` only, which is what listing skills needs.
    pub fn with_resources(mut self, resources: bool) -> Self {
        self.resources = resources;
        self
    }

    /// Whether resources are listed only when something needs them (default: no): the
    /// skills list's full entries ([`PromptSection::render_fetching`](crate::PromptSection::render_fetching))
    /// and [`load_skill`](crate::load_skill). Discovery then reads each skill's
    /// `SKILL.md` only, as a listing does, which on a large library is most of its
    /// time; a change to a resource alone then raises no change event (the next
    /// snapshot lists the folder afresh).
    pub fn with_lazy_resources(mut self, lazy: bool) -> Self {
        self.lazy = lazy;
        self
    }

    /// Whether the catalog remembers what it read between reloads (default: yes): a parse
    /// per `SKILL.md` (so an unchanged file is not read again) and each source's last
    /// listing (so a broken edit keeps its last good version and a reload can cover one
    /// source). Without it the catalog holds one copy of the skills, in its snapshot, and
    /// every reload reads every source again: for a program that wants one snapshot at
    /// the lowest memory, such as a one-shot command.
    pub fn with_incremental_reload(mut self, incremental: bool) -> Self {
        self.incremental = incremental;
        self
    }

    /// Whether resources are listed when needed rather than at discovery.
    pub(crate) fn lazy_resources(&self) -> bool {
        self.resources && self.lazy
    }

    /// Whether discovery itself lists resources.
    pub(crate) fn discovers_resources(&self) -> bool {
        self.resources && !self.lazy
    }

    /// The limits on each source's discovery.
    pub fn limits(&self) -> &DiscoveryLimits {
        &self.limits
    }

    /// The sources, in priority order.
    pub fn sources(&self) -> &[SkillSource] {
        &self.sources
    }

    /// The snapshot served now (version 0 and empty before the first discovery).
    pub fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.current.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The current snapshot, discovering every source first if that never happened.
    pub async fn ensure_loaded(&self) -> Arc<CatalogSnapshot> {
        let snapshot = self.snapshot();
        if snapshot.version > 0 {
            return snapshot;
        }
        // The first reload covers every source; if another task got there first, this
        // one finds nothing to do.
        self.rediscover(&[], false).await;
        self.snapshot()
    }

    /// The sources whose last discovery failed (index, error), in priority order; their
    /// diagnostics are in the snapshot too. For callers that treat an unreadable source
    /// as fatal, such as a one-shot command.
    pub async fn source_errors(&self) -> Vec<(usize, SourceError)> {
        let work = self.work.lock().await;
        work.iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, state)| Some((i, state.error.as_ref()?.1.clone())))
            .collect()
    }

    /// Rediscovers every source; see [`reload_sources`](Self::reload_sources).
    pub async fn reload(&self) -> Option<CatalogEvent> {
        let all: Vec<usize> = (0..self.sources.len()).collect();
        self.reload_sources(&all).await
    }

    /// Rediscovers the given sources (indices in priority order) and swaps in a new
    /// snapshot if anything changed; the first reload of a catalog covers every source.
    /// Returns the change event (also sent to subscribers), or `None` when nothing
    /// changed. Reloads run one at a time.
    pub async fn reload_sources(&self, which: &[usize]) -> Option<CatalogEvent> {
        self.rediscover(which, true).await
    }

    /// [`reload_sources`](Self::reload_sources); without `want_event`, a first discovery
    /// that no subscriber hears of makes no event (it would name every skill).
    async fn rediscover(&self, which: &[usize], want_event: bool) -> Option<CatalogEvent> {
        let mut guard = self.work.lock().await;
        let first = guard.is_none();
        if !first && which.is_empty() {
            return None;
        }
        // With a persistent cache, a first discovery walks every source before it reads
        // anything, each source's kept listing read meanwhile: a source whose walk finds
        // the files of its kept listing takes that (`read_walked`), and the parse cache
        // of any other is loaded as it is read. A source whose backend serves the very
        // revision its listing was kept at is not walked at all.
        let mut walked = Vec::new();
        if first && self.persistent_cache().is_some() {
            walked = self.first_walks(true).await;
        }
        self.discover_walked(&mut guard, which, want_event, walked).await
    }

    /// The rest of [`rediscover`](Self::rediscover), under its lock (`guard`): a first
    /// discovery takes what its sources' walks found (`walked`, one per source, empty
    /// without a persistent cache).
    pub(crate) async fn discover_walked(
        &self,
        guard: &mut Option<Vec<SourceWork>>,
        which: &[usize],
        want_event: bool,
        mut walked: Vec<Option<(FirstLook<'_>, Option<KeptListing>)>>,
    ) -> Option<CatalogEvent> {
        let first = guard.is_none();
        if first {
            // Without a persistent cache, nothing to prefetch.
            self.prefetch_index();
            let work = self.sources.iter().map(|_| SourceWork {
                // What a reload read again tells the search index whose instructions to
                // read again.
                cache: ParseCache::tracking_changes(),
                ..SourceWork::default()
            });
            *guard = Some(work.collect());
        }
        let work = guard.as_mut()?;
        if !first {
            self.load_parses(work).await;
        }
        let which: Vec<usize> = if first || !self.incremental {
            (0..self.sources.len()).collect()
        } else {
            which.to_vec()
        };
        for &i in &which {
            let (Some(source), Some(state)) = (self.sources.get(i), work.get_mut(i)) else {
                continue;
            };
            state.files_digest = None;
            let before = state.cache.files_read();
            // A persistent cache is kept between reloads even without incremental ones:
            // it holds each parse encoded (a fraction of the parsed skills' memory), and
            // the search index takes the instructions' words from it.
            let (result, read) = if let Some((look, kept)) = walked.get_mut(i).and_then(Option::take) {
                let result = self.read_walked(source, look, kept, state).await;
                (result, state.cache.files_read() - before)
            } else if self.incremental || self.persistent_cache().is_some() {
                let result = self.discovery(source).cache(&mut state.cache).run().await;
                (result.map(Listing::from), state.cache.files_read() - before)
            } else {
                // No cache: it would hold a second copy of every parse.
                let result = self.discovery(source).run().await;
                // Every file was read; the skipped ones are not counted.
                let read = result.as_ref().map_or(0, |l| l.skills.len() as u64);
                (result.map(Listing::from), read)
            };
            self.files_read.fetch_add(read, Ordering::Relaxed);
            let result = match &self.lock {
                Some(lock) => frozen::verify_listing(lock, &self.digests, i, source, result).await,
                None => result,
            };
            apply_discovery(state, result);
            self.keep_listing(state).await;
        }
        self.reloads.fetch_add(1, Ordering::Relaxed);
        let quiet = first && !want_event && self.events.receiver_count() == 0;
        let event = self.publish(work, first, None, &BTreeSet::new(), quiet);
        self.keep_caches(work, &which).await;
        event
    }

    /// The discovery of `source` with the catalog's settings.
    pub(crate) fn discovery<'s>(&self, source: &'s SkillSource) -> Discovery<'s> {
        Discovery::new(&**source.backend(), source.path())
            .limits(self.limits)
            .depth(source.depth())
            .resources(self.discovers_resources())
    }

    /// Builds the snapshot of every source's memory and swaps it in if anything
    /// changed (always after the first discovery); the change event, also sent to
    /// subscribers.
    /// `touched`, when known, names every skill the reload may have changed: the diff
    /// looks at those only. `files_changed` names skills whose folder holds a changed
    /// file: they are reported changed even when their metadata is not (what their
    /// files hold, and so their digests, may differ). A `quiet` first discovery lists no
    /// changes in its event: nobody hears of it, and at 12,810 skills the list took
    /// 1.9 MiB when the catalog is at its largest.
    pub(crate) fn publish(
        &self,
        work: &mut [SourceWork],
        first: bool,
        touched: Option<&BTreeSet<String>>,
        files_changed: &BTreeSet<String>,
        quiet: bool,
    ) -> Option<CatalogEvent> {
        let old = self.snapshot();
        // `SKILL.md` files read again because they changed: their instructions may have,
        // whatever their frontmatter did.
        let reread: Vec<(usize, String)> = work
            .iter_mut()
            .enumerate()
            .flat_map(|(i, w)| w.cache.take_changed().into_iter().map(move |path| (i, path)))
            .collect();
        let listings = work
            .iter_mut()
            .map(|w| {
                // Without incremental reloads the listing moves into the snapshot; with
                // them, the snapshot shares each skill with it.
                let listing = if self.incremental {
                    w.last.clone()
                } else {
                    w.last.take()
                };
                (listing, w.error.as_ref().map(|(d, _)| d.clone()))
            })
            .collect();
        let mut next = build_snapshot(&self.sources, listings, self.resources && self.lazy);
        next.lock = self.lock.clone();
        let fresh = new_diagnostics(&old, &next);
        let mut changes = if quiet {
            Vec::new()
        } else {
            diff(&old, &next, &fresh, touched)
        };
        if !files_changed.is_empty() {
            let reported: BTreeSet<String> = changes
                .iter()
                .filter_map(|c| match c {
                    CatalogChange::Added { name }
                    | CatalogChange::Changed { name }
                    | CatalogChange::Removed { name }
                    | CatalogChange::KeptLastGood { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .collect();
            let problems_at = changes
                .iter()
                .position(|c| matches!(c, CatalogChange::Problem(_)))
                .unwrap_or(changes.len());
            let more: Vec<CatalogChange> = files_changed
                .iter()
                .filter(|name| !reported.contains(*name) && next.get(name).is_some())
                .map(|name| CatalogChange::Changed { name: name.clone() })
                .collect();
            changes.splice(problems_at..problems_at, more);
        }
        if !first && changes.is_empty() && old.same_diagnostics(&next) {
            // A resource may have changed without the skill changing: a lazy snapshot
            // lists the folders the reload looked at again when next asked.
            old.forget_resources(touched);
            self.search.publish(&self.current, Swap::Kept, &reread);
            debug!("skills reload: nothing changed");
            return None;
        }
        for d in fresh {
            match d.severity() {
                Severity::Warning => debug!(path = %d.path, kind = %d.kind, "{}", d.message),
                Severity::Skip | Severity::Error => warn!(path = %d.path, kind = %d.kind, "{}", d.message),
            }
        }
        next.version = old.version + 1;
        let next = Arc::new(next);
        // A quiet discovery lists no changes to update an index with.
        let swap = if quiet {
            Swap::Rebuilt(next.clone())
        } else {
            Swap::Changed(next.clone(), &changes)
        };
        self.search.publish(&self.current, swap, &reread);
        let event = CatalogEvent {
            version: next.version,
            changes,
        };
        debug!(version = event.version, changes = ?event.changes, "skills catalog changed");
        // No subscriber is fine, and then the event is not copied: a first discovery's
        // event names every skill (1.2 MiB at 12,810 skills).
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(event.clone());
        }
        retire(old);
        Some(event)
    }

    /// Change notifications from now on. A receiver that falls behind by more than 64
    /// events gets a `Lagged` error and should take a fresh [`snapshot`](Self::snapshot).
    pub fn subscribe(&self) -> broadcast::Receiver<CatalogEvent> {
        self.events.subscribe()
    }

    /// Counters of the work done so far.
    pub fn stats(&self) -> CatalogStats {
        CatalogStats {
            reloads: self.reloads.load(Ordering::Relaxed),
            files_read: self.files_read.load(Ordering::Relaxed),
        }
    }
}

/// Lets go of a replaced snapshot. When nobody else holds it, freeing its skills costs
/// about as much as copying them (milliseconds at 10,000 skills): that happens on the
/// blocking pool, off the path of the reload that replaced it.
fn retire(snapshot: Arc<CatalogSnapshot>) {
    if Arc::strong_count(&snapshot) == 1 {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn_blocking(move || drop(snapshot));
        }
    }
}

/// Folds one source's new discovery into its memory: missing sources empty out,
/// unreadable ones keep their last listing, broken edits keep their last good skill.
pub(crate) fn apply_discovery(state: &mut SourceWork, result: Result<Listing, SourceError>) {
    let found = match result {
        Ok(found) => found,
        Err(error @ (SourceError::NotFound { .. } | SourceError::NotADirectory { .. })) => {
            state.error = Some((error.to_diagnostic(), error));
            state.last = None;
            return;
        }
        Err(error) => {
            // A transient failure (network, permissions): keep serving what we had.
            warn!(%error, "skills source unreadable; keeping its last listing");
            state.error = Some((error.to_diagnostic(), error));
            return;
        }
    };
    state.error = None;
    let last = state.last.take().unwrap_or_default();
    state.last = Some(keep_last_good(found, &last.skills, &last.resources));
}

//! The live skill catalog: one versioned snapshot of every source, shared by all agent
//! threads of a middleware, reloaded incrementally and swapped atomically.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use skills_core::{
    ChangeEvent, Diagnostic, DiagnosticKind, DiscoveryLimits, ParseCache, ResourceMetadata, Severity, ShadowedSkill,
    SkillMetadata, SkillsState, SourceDiscovery, SourceError, WatchGuard, discover_source_with, merge_last_wins,
};
use tokio::sync::{Mutex, broadcast, mpsc};
use tracing::{debug, warn};

use crate::skills::SkillSource;

/// One consistent view of the catalog. Readers hold it behind an `Arc`; a reload builds a
/// new one and swaps it in, so nobody ever sees half a reload.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogSnapshot {
    version: u64,
    skills: Vec<SkillMetadata>,
    /// Position in `skills` by name.
    index: HashMap<String, usize>,
    /// The source of each skill, parallel to `skills`.
    skill_sources: Vec<usize>,
    shadowed: BTreeMap<String, Vec<ShadowedSkill>>,
    resources: BTreeMap<String, Vec<ResourceMetadata>>,
    diagnostics: Vec<Diagnostic>,
}

impl CatalogSnapshot {
    /// Increases with every change; 0 before the first discovery.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The merged skills (last source wins), in first-seen order.
    pub fn skills(&self) -> &[SkillMetadata] {
        &self.skills
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&SkillMetadata> {
        self.index.get(name).map(|&i| &self.skills[i])
    }

    /// Index of the source the skill `name` comes from.
    pub fn source_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&i| self.skill_sources[i])
    }

    /// Copies of `name` hidden by the winning source.
    pub fn shadowed(&self, name: &str) -> &[ShadowedSkill] {
        self.shadowed.get(name).map_or(&[], Vec::as_slice)
    }

    /// Resources of every skill, by name.
    pub fn resources(&self) -> &BTreeMap<String, Vec<ResourceMetadata>> {
        &self.resources
    }

    /// Everything discovery reported, including kept-last-good notes.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The snapshot as a thread's [`SkillsState`], with `loaded` as its loaded skills.
    pub fn to_state(&self, loaded: Vec<String>) -> SkillsState {
        SkillsState {
            skills_metadata: Some(self.skills.clone()),
            skills_loaded: loaded,
            skill_resources: self.resources.clone(),
            skills_load_errors: self.diagnostics.clone(),
        }
    }
}

/// What a reload changed, by skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogChange {
    /// A new skill.
    Added {
        /// Its name.
        name: String,
    },
    /// A skill whose metadata, path, source or resources changed.
    Changed {
        /// Its name.
        name: String,
    },
    /// A skill that is gone.
    Removed {
        /// Its name.
        name: String,
    },
    /// An edit broke a skill; its last good version is still served.
    KeptLastGood {
        /// Its name.
        name: String,
        /// What is wrong with the edit.
        reason: String,
    },
    /// A new problem that is not about a served skill (a skipped skill, an unreadable
    /// source).
    Problem(Diagnostic),
}

/// A catalog change notification: the new version and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEvent {
    /// The version now served.
    pub version: u64,
    /// What changed, skills first, then problems.
    pub changes: Vec<CatalogChange>,
}

/// Counters for tests, benchmarks and status output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CatalogStats {
    /// Reloads run (including the first discovery).
    pub reloads: u64,
    /// `SKILL.md` files downloaded in all reloads.
    pub files_read: u64,
}

/// Per-source memory between reloads.
#[derive(Debug, Default)]
struct SourceWork {
    cache: ParseCache,
    last: Option<SourceDiscovery>,
    error: Option<Diagnostic>,
}

/// The discovered skills of a middleware's sources, shared by all its agent threads.
///
/// Discovery runs once per catalog ([`ensure_loaded`](Self::ensure_loaded)); after that
/// the catalog changes only by [`reload`](Self::reload) (explicit, or driven by
/// [`watch`](Self::watch)). A reload is incremental (a `SKILL.md` whose etag did not
/// change is not read again), keeps the last good version of a skill whose edit broke
/// it, and swaps the new snapshot in atomically. Subscribers learn about every change.
#[derive(Debug)]
pub struct SkillCatalog {
    sources: Vec<SkillSource>,
    limits: DiscoveryLimits,
    current: RwLock<Arc<CatalogSnapshot>>,
    work: Mutex<Option<Vec<SourceWork>>>,
    events: broadcast::Sender<CatalogEvent>,
    reloads: AtomicU64,
    files_read: AtomicU64,
}

impl SkillCatalog {
    /// A catalog over `sources` (priority order); nothing is discovered yet.
    pub fn new(sources: Vec<SkillSource>) -> Self {
        Self {
            sources,
            limits: DiscoveryLimits::default(),
            current: RwLock::new(Arc::default()),
            work: Mutex::new(None),
            events: broadcast::channel(64).0,
            reloads: AtomicU64::new(0),
            files_read: AtomicU64::new(0),
        }
    }

    /// The catalog with `limits` on each source's discovery instead of the defaults.
    pub fn with_limits(mut self, limits: DiscoveryLimits) -> Self {
        self.limits = limits;
        self
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
        self.reload_sources(&[]).await;
        self.snapshot()
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
        let mut guard = self.work.lock().await;
        let first = guard.is_none();
        if !first && which.is_empty() {
            return None;
        }
        let work = guard.get_or_insert_with(|| self.sources.iter().map(|_| SourceWork::default()).collect());
        let which: Vec<usize> = if first {
            (0..self.sources.len()).collect()
        } else {
            which.to_vec()
        };
        for &i in &which {
            let (Some(source), Some(state)) = (self.sources.get(i), work.get_mut(i)) else {
                continue;
            };
            let before = state.cache.files_read();
            let result =
                discover_source_with(&**source.backend(), source.path(), &self.limits, Some(&mut state.cache)).await;
            self.files_read
                .fetch_add(state.cache.files_read() - before, Ordering::Relaxed);
            apply_discovery(state, result);
        }
        self.reloads.fetch_add(1, Ordering::Relaxed);

        let old = self.snapshot();
        let mut next = build_snapshot(work);
        let fresh = new_diagnostics(&old, &next);
        let changes = diff(&old, &next, &fresh);
        if !first && changes.is_empty() && old.diagnostics == next.diagnostics {
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
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = next.clone();
        let event = CatalogEvent {
            version: next.version,
            changes,
        };
        debug!(version = event.version, changes = ?event.changes, "skills catalog changed");
        // No subscriber is fine.
        let _ = self.events.send(event.clone());
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

    /// Starts reloading on change notifications from every source whose backend can
    /// [watch](skills_core::Watch): events of one source reload that source only. Runs on
    /// the current tokio runtime until the returned handle is dropped. Sources that cannot
    /// be watched are listed in [`WatchHandle::unwatched`]; reload them with
    /// [`reload`](Self::reload).
    pub fn watch(self: &Arc<Self>) -> Result<WatchHandle, WatchError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| WatchError::NoRuntime)?;
        let (tx, mut rx) = mpsc::unbounded_channel::<(usize, ChangeEvent)>();
        let mut guards = Vec::new();
        let mut unwatched = Vec::new();
        for (i, source) in self.sources.iter().enumerate() {
            let Some(watch) = source.backend().as_watch() else {
                unwatched.push((i, "the backend cannot watch".to_owned()));
                continue;
            };
            let tx = tx.clone();
            let sink = Arc::new(move |event| {
                let _ = tx.send((i, event));
            });
            match watch.watch(source.path(), sink) {
                Ok(guard) => guards.push(guard),
                Err(e) => unwatched.push((i, e.to_string())),
            }
        }
        drop(tx);
        let catalog = Arc::clone(self);
        let task = runtime.spawn(async move {
            while let Some((first, event)) = rx.recv().await {
                let mut which = BTreeSet::from([first]);
                debug!(source = first, ?event, "skills source changed");
                // Everything already queued joins this reload.
                while let Ok((i, _)) = rx.try_recv() {
                    which.insert(i);
                }
                catalog.reload_sources(&which.into_iter().collect::<Vec<_>>()).await;
            }
        });
        Ok(WatchHandle {
            _guards: guards,
            task,
            unwatched,
        })
    }
}

/// Why [`SkillCatalog::watch`] could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// Watching needs a tokio runtime to run its reload task on.
    #[error("watching skills needs a running tokio runtime")]
    NoRuntime,
}

/// Keeps a catalog's watch running; dropping it stops the watchers and the reload task.
#[derive(Debug)]
pub struct WatchHandle {
    _guards: Vec<WatchGuard>,
    task: tokio::task::JoinHandle<()>,
    unwatched: Vec<(usize, String)>,
}

impl WatchHandle {
    /// Sources (index, reason) that are not watched.
    pub fn unwatched(&self) -> &[(usize, String)] {
        &self.unwatched
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Folds one source's new discovery into its memory: missing sources empty out,
/// unreadable ones keep their last listing, broken edits keep their last good skill.
fn apply_discovery(state: &mut SourceWork, result: Result<SourceDiscovery, SourceError>) {
    let mut found = match result {
        Ok(found) => found,
        Err(error @ (SourceError::NotFound { .. } | SourceError::NotADirectory { .. })) => {
            state.error = Some(error.to_diagnostic());
            state.last = None;
            return;
        }
        Err(error) => {
            // A transient failure (network, permissions): keep serving what we had.
            warn!(%error, "skills source unreadable; keeping its last listing");
            state.error = Some(error.to_diagnostic());
            return;
        }
    };
    state.error = None;
    // The skills served last time are the last good ones: a skipped file that was one of
    // them keeps being served.
    let last_skills = state.last.as_ref().map_or(&[][..], |l| l.listing.skills.as_slice());
    let mut kept = Vec::new();
    for diagnostic in &found.listing.diagnostics {
        if diagnostic.severity() != Severity::Skip {
            continue;
        }
        if let Some(good) = last_skills.iter().find(|s| s.path == diagnostic.path) {
            if !found.listing.skills.iter().any(|s| s.name == good.name) {
                let msg = format!(
                    "serving the last good version of '{}': {}",
                    good.name, diagnostic.message
                );
                kept.push((
                    good.clone(),
                    Diagnostic::new(&diagnostic.path, DiagnosticKind::KeptLastGood, msg),
                ));
            }
        }
    }
    for (skill, note) in kept {
        if let Some(resources) = state.last.as_ref().and_then(|l| l.resources.get(&skill.name)) {
            found
                .resources
                .entry(skill.name.clone())
                .or_insert_with(|| resources.clone());
        }
        found.listing.diagnostics.push(note);
        found.listing.skills.push(skill);
    }
    found.listing.skills.sort_by(|a, b| a.path.cmp(&b.path));
    found.listing.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    state.last = Some(found);
}

fn build_snapshot(work: &[SourceWork]) -> CatalogSnapshot {
    let mut snapshot = CatalogSnapshot::default();
    let mut per_source = Vec::with_capacity(work.len());
    for state in work {
        if let Some(found) = &state.last {
            snapshot.diagnostics.extend(found.listing.diagnostics.iter().cloned());
            per_source.push(found.listing.skills.clone());
        } else {
            per_source.push(Vec::new());
        }
        snapshot.diagnostics.extend(state.error.clone());
    }
    for entry in merge_last_wins(per_source) {
        let name = entry.skill.name.clone();
        let found = work[entry.source].last.as_ref();
        if let Some(resources) = found.and_then(|f| f.resources.get(&name)) {
            snapshot.resources.insert(name.clone(), resources.clone());
        }
        if !entry.shadowed.is_empty() {
            snapshot.shadowed.insert(name.clone(), entry.shadowed);
        }
        snapshot.index.insert(name, snapshot.skills.len());
        snapshot.skills.push(entry.skill);
        snapshot.skill_sources.push(entry.source);
    }
    snapshot
}

/// Diagnostics of `new` that `old` did not have.
fn new_diagnostics<'a>(old: &CatalogSnapshot, new: &'a CatalogSnapshot) -> Vec<&'a Diagnostic> {
    let known: HashSet<&Diagnostic> = old.diagnostics.iter().collect();
    new.diagnostics.iter().filter(|d| !known.contains(d)).collect()
}

fn diff(old: &CatalogSnapshot, new: &CatalogSnapshot, fresh: &[&Diagnostic]) -> Vec<CatalogChange> {
    let mut changes = Vec::new();
    for skill in &new.skills {
        let name = &skill.name;
        match old.get(name) {
            None => changes.push(CatalogChange::Added { name: name.clone() }),
            Some(before)
                if before != skill
                    || old.source_of(name) != new.source_of(name)
                    || old.resources.get(name) != new.resources.get(name) =>
            {
                changes.push(CatalogChange::Changed { name: name.clone() });
            }
            Some(_) => {}
        }
    }
    for skill in &old.skills {
        if new.get(&skill.name).is_none() {
            changes.push(CatalogChange::Removed {
                name: skill.name.clone(),
            });
        }
    }
    let kept: HashSet<&str> = new
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::KeptLastGood)
        .map(|d| d.path.as_str())
        .collect();
    for &diagnostic in fresh {
        if diagnostic.kind == DiagnosticKind::KeptLastGood {
            let name = new
                .skills
                .iter()
                .find(|s| s.path == diagnostic.path)
                .map_or_else(String::new, |s| s.name.clone());
            changes.push(CatalogChange::KeptLastGood {
                name,
                reason: diagnostic.message.clone(),
            });
        } else if diagnostic.severity() >= Severity::Skip && !kept.contains(diagnostic.path.as_str()) {
            changes.push(CatalogChange::Problem(diagnostic.clone()));
        }
    }
    changes
}

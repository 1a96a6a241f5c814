//! [`SkillCatalog`]'s search: answered from the index of its search state
//! ([`state`](super::state)), which faces warm or prepare before they offer
//! `search_skills`.

use std::sync::{Arc, PoisonError};

use super::{Explanation, SearchError, SearchHit, SkillIndex, check_search};
use crate::catalog::SkillCatalog;
use crate::select::Selection;
use crate::snapshot::CatalogSnapshot;

impl SkillCatalog {
    /// The skills of the current snapshot that best match `query`, best first, at most
    /// `limit` (and at most [`MAX_SEARCH_RESULTS`](crate::MAX_SEARCH_RESULTS)).
    ///
    /// Answers from what the index holds now. The first search builds the index from
    /// names and descriptions (about 70 us per skill) unless
    /// [`warm_search`](Self::warm_search) or [`prepare_search`](Self::prepare_search)
    /// did; the skills' instructions are added by those two (and read again for the
    /// skills a reload changes). All threads share the index.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        check_search(query, limit)?;
        self.with_index(|index| index.search(query, limit))
    }

    /// [`search`](Self::search) among the skills `selection` offers of `snapshot` (a
    /// view, an agent's tools); every skill when `selection` is `None`.
    pub fn search_selected(
        &self,
        query: &str,
        limit: usize,
        snapshot: &CatalogSnapshot,
        selection: Option<&Selection>,
    ) -> Result<Vec<SearchHit>, SearchError> {
        check_search(query, limit)?;
        let keep = offered(snapshot, selection);
        self.with_index(|index| index.search_where(query, limit, &keep))
    }

    /// [`search_prepared`](Self::search_prepared) among the skills `selection` offers
    /// of `snapshot`: a refused request is refused before the index is prepared.
    pub async fn search_selected_prepared(
        &self,
        query: &str,
        limit: usize,
        snapshot: &CatalogSnapshot,
        selection: Option<&Selection>,
    ) -> Result<Vec<SearchHit>, SearchError> {
        check_search(query, limit)?;
        self.prepare_search().await;
        self.search_selected(query, limit, snapshot, selection)
    }

    /// [`explain_search`](Self::explain_search) among the skills `selection` offers.
    pub fn explain_selected(
        &self,
        query: &str,
        limit: usize,
        snapshot: &CatalogSnapshot,
        selection: Option<&Selection>,
    ) -> Result<Vec<Explanation>, SearchError> {
        check_search(query, limit)?;
        let keep = offered(snapshot, selection);
        self.with_index(|index| index.explain_where(query, limit, &keep))
    }

    /// What `answer` gives from the index (built first if no search did), or nothing
    /// when there is no index to build.
    fn with_index<T>(
        &self,
        answer: impl Fn(&SkillIndex) -> Result<Vec<T>, SearchError>,
    ) -> Result<Vec<T>, SearchError> {
        if let Some(index) = self
            .search
            .index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            return answer(index);
        }
        match self.build_index().as_ref() {
            Some(index) => answer(index),
            None => Ok(Vec::new()),
        }
    }

    /// [`search`](Self::search), each result with the words that matched in each field
    /// and what each added ([`SkillIndex::explain`]).
    pub fn explain_search(&self, query: &str, limit: usize) -> Result<Vec<Explanation>, SearchError> {
        check_search(query, limit)?;
        self.with_index(|index| index.explain(query, limit))
    }

    /// [`prepare_search`](Self::prepare_search), then
    /// [`explain_search`](Self::explain_search): what [`search_prepared`](Self::search_prepared)
    /// answers, each result with what made its score.
    pub async fn explain_prepared(&self, query: &str, limit: usize) -> Result<Vec<Explanation>, SearchError> {
        check_search(query, limit)?;
        self.prepare_search().await;
        self.explain_search(query, limit)
    }

    /// The index, built from the snapshot served now if there is none.
    fn build_index(&self) -> std::sync::RwLockWriteGuard<'_, Option<SkillIndex>> {
        let mut index = self.search.index.write().unwrap_or_else(PoisonError::into_inner);
        if index.is_none() {
            // Built from the snapshot served now: reloads swap snapshots under this
            // lock, so none is missed between the two.
            let snapshot = self.snapshot();
            let stored = self.stored_index(&snapshot);
            *index = Some(stored.unwrap_or_else(|| SkillIndex::build(snapshot.skills())));
        }
        index
    }

    /// Builds the search index and reads every skill's instructions into it, in the
    /// background on the tokio runtime (without one, it does nothing): for a face that
    /// will offer `search_skills`, so that searches do not wait for the index. Returns at
    /// once; searches meanwhile answer from what the index holds.
    pub fn warm_search(self: &Arc<Self>) {
        if self.search_ready() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let catalog = Arc::clone(self);
        runtime.spawn(async move { catalog.prepare_search_off_thread().await });
    }

    /// [`prepare_search`](Self::prepare_search) with the index built on a blocking
    /// thread, so that the async threads go on answering meanwhile, and then the index
    /// of the words' trigrams that a misspelt request word is read with (made at the
    /// first such request otherwise): what [`warm_search`](Self::warm_search) runs, for
    /// a caller that wants to know when the index is complete (to start other
    /// background work after it, say).
    pub async fn prepare_search_off_thread(self: &Arc<Self>) {
        let built = Arc::clone(self);
        if tokio::task::spawn_blocking(move || drop(built.build_index()))
            .await
            .is_ok()
        {
            self.read_all_instructions().await;
            // Last, as searches already answer: what misspelt words are read with.
            let index = Arc::clone(self);
            let _ = tokio::task::spawn_blocking(move || {
                let index = index.search.index.read().unwrap_or_else(PoisonError::into_inner);
                if let Some(index) = index.as_ref() {
                    index.vocabulary.prepare_near_misses();
                }
            })
            .await;
        }
    }

    /// Builds the search index if no search did, and reads every skill's instructions
    /// into it (one read of each `SKILL.md` through its backend); returns when the index
    /// is complete. For a one-shot search, such as the CLI's.
    pub async fn prepare_search(&self) {
        drop(self.build_index());
        self.read_all_instructions().await;
    }

    /// [`prepare_search`](Self::prepare_search), then [`search`](Self::search): the
    /// answer of a complete index. A request [`search`](Self::search) refuses is refused
    /// before anything is built or read.
    pub async fn search_prepared(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        check_search(query, limit)?;
        self.prepare_search().await;
        self.search(query, limit)
    }

    /// Whether the search index is built and holds every skill's instructions (unless
    /// it reads none).
    pub fn search_ready(&self) -> bool {
        self.search.ready()
    }

    /// Whether the search index reads each skill's instructions (default: yes): the
    /// opening of every `SKILL.md`, read once more after discovery (and again when one
    /// changes) through its backend. Without them the index ranks by names and
    /// descriptions only, and a library on an object store costs no second request per
    /// skill (a fleet of servers on one bucket, for one).
    pub fn with_search_instructions(self, read: bool) -> Self {
        self.search.set_instructions(read);
        self
    }

    /// Whether, with a [persistent cache](Self::with_persistent_cache), the search index
    /// the last process kept is read while the first discovery runs (default: no), so
    /// that the first search finds it ready: for a server whose clients search soon. It
    /// is taken as it is when it was kept for the very skills discovered, and brought to
    /// them when it was kept before an edit (the changed skills indexed again); an index
    /// that could not answer exactly as a new one is built again.
    pub fn with_search_prefetch(self, prefetch: bool) -> Self {
        self.search
            .prefetch
            .store(prefetch, std::sync::atomic::Ordering::Relaxed);
        self
    }
}

/// Whether a skill of `snapshot` is offered: by `selection`, or every skill without one.
fn offered<'a>(snapshot: &'a CatalogSnapshot, selection: Option<&'a Selection>) -> impl Fn(&str) -> bool + 'a {
    move |name| selection.is_none_or(|s| s.offers(snapshot, name))
}

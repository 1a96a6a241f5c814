//! The search index's words for each skill's instructions, taken from and given to the
//! catalog's [`PersistentCache`](crate::PersistentCache): a warm start's index is
//! complete without reading any `SKILL.md` again.

use std::sync::PoisonError;

use super::SkillIndex;
use super::state::{Prefetched, ReadWords, StoredIndex};
use crate::cache_file::WhileWanted;
use crate::catalog::SkillCatalog;
use crate::persist::SourceFiles;

impl SkillCatalog {
    /// Gives the index every skill's instructions: first the words the persistent cache
    /// kept, then the files read for the rest (whose words the cache keeps from then on).
    pub(super) async fn read_all_instructions(&self) {
        // Under a frozen lock every file read is checked against the lock: no words are
        // taken on trust.
        let cached = self.persistent_cache().is_some();
        if cached {
            self.fill_cached_words().await;
        }
        let read = self.search.read_instructions(&self.current, cached).await;
        if !read.is_empty() {
            self.keep_words(read).await;
        }
        if cached {
            self.keep_index().await;
        }
    }

    /// Notes where the index of the first snapshot is kept (see
    /// [`PersistentCache::index_file`](crate::PersistentCache)), before a search builds
    /// its index: only the first snapshot's index is kept, and a command that does not
    /// search computes no key.
    fn note_index_file(&self) {
        let Some(persist) = self.persistent_cache() else { return };
        // Reloads publish under this lock: the snapshot cannot change until the key is
        // noted (a later publish lets go of it). A reload under way: no index is kept.
        let Ok(work) = self.work.try_lock() else { return };
        let Some(work) = work.as_ref() else { return };
        let snapshot = self.snapshot();
        let noted = self
            .search
            .stored
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        if snapshot.version() != 1 || noted {
            return;
        }
        let files: Vec<SourceFiles<'_>> = work
            .iter()
            .map(|w| match w.files_digest {
                Some(digest) => SourceFiles::Digest(digest),
                None => SourceFiles::Parses(&w.cache),
            })
            .collect();
        let instructions = self.search.reads_instructions();
        let stored = persist
            .index_file(self.sources(), &self.limits, &snapshot, &files, instructions)
            .map(|(file, key)| StoredIndex {
                file,
                key,
                complete: false,
            });
        *self.search.stored.lock().unwrap_or_else(PoisonError::into_inner) = stored;
    }

    /// Starts reading the index the persistent cache keeps for the catalog's sources on
    /// the blocking pool, whatever skills it was kept for, when the catalog prefetches
    /// ([`with_search_prefetch`](SkillCatalog::with_search_prefetch)): during the first
    /// discovery, which then says whether it holds.
    pub(crate) fn prefetch_index(&self) {
        let Some(persist) = self.persistent_cache() else { return };
        if !self.search.prefetch.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let instructions = self.search.reads_instructions();
        let (Some(file), Ok(runtime)) = (
            // As a start whose walks find the files of their kept listings keeps it.
            persist.index_file_of(self.sources(), &self.limits, instructions, true),
            tokio::runtime::Handle::try_current(),
        ) else {
            return;
        };
        // Opened now: read as it is at discovery, whatever happens to it meanwhile.
        let Ok(opened) = crate::cache_file::open_cache_file(&file) else {
            return;
        };
        let wanted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let ((tell_key, key), (tell_index, index)) = (std::sync::mpsc::channel(), std::sync::mpsc::channel());
        let still = std::sync::Arc::clone(&wanted);
        runtime.spawn_blocking(move || {
            // Without a whole header, the senders go: nothing is waited for.
            let Ok(mut payload) = crate::cache_file::payload_of(opened, &|_| true) else {
                return;
            };
            // Nobody listens any more once the key was not the one wanted.
            let _ = tell_key.send(payload.key.clone());
            let decode =
                |source: &mut dyn std::io::Read, len| SkillIndex::decode(&mut WhileWanted(source, &still), len);
            let _ = tell_index.send(payload.decoded(decode));
        });
        let prefetched = Prefetched { key, index, wanted };
        *self.search.prefetched.lock().unwrap_or_else(PoisonError::into_inner) = Some(prefetched);
    }

    /// The index the last process kept for the snapshot served now, if there is one.
    pub(super) fn stored_index(&self) -> Option<SkillIndex> {
        self.note_index_file();
        let prefetched = self
            .search
            .prefetched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let mut stored = self.search.stored.lock().unwrap_or_else(PoisonError::into_inner);
        let stored = stored.as_mut()?;
        let index = match prefetched {
            Some(prefetched) => prefetched.take_for(&stored.key)?,
            None => {
                let mut payload = crate::cache_file::open_payload(&stored.file, &|key| key == stored.key).ok()?;
                payload.decoded(SkillIndex::decode)?
            }
        };
        stored.complete = index.all_instructions_read();
        Some(index)
    }

    /// Writes the index when it holds every skill's instructions and the file does not.
    async fn keep_index(&self) {
        let Some(persist) = self.persistent_cache() else { return };
        let (file, key) = {
            let stored = self.search.stored.lock().unwrap_or_else(PoisonError::into_inner);
            match stored.as_ref() {
                Some(stored) if !stored.complete => (stored.file.clone(), stored.key.clone()),
                _ => return,
            }
        };
        let bytes = {
            let index = self.search.index.read().unwrap_or_else(PoisonError::into_inner);
            match index.as_ref() {
                Some(index) if index.all_instructions_read() => index.encode(),
                _ => return,
            }
        };
        let dir = persist.dir().to_owned();
        let written = tokio::task::spawn_blocking(move || {
            let written = crate::cache_file::write_cache_file(&file, &key, &bytes).is_ok();
            if written {
                crate::persist::prune(&dir, &file);
            }
            written
        })
        .await;
        if written.unwrap_or(false) {
            if let Some(stored) = self
                .search
                .stored
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_mut()
            {
                stored.complete = true;
            }
        }
    }

    /// Gives the index the words the caches hold for skills it lacks the instructions of.
    async fn fill_cached_words(&self) {
        // An index from the persistent cache holds every skill's words: the words files
        // (tens of MiB at 40,000 skills) are read when a reload needs them.
        let complete = self
            .search
            .index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(SkillIndex::all_instructions_read);
        if complete {
            return;
        }
        let mut work = self.work.lock().await;
        let Some(work) = work.as_mut() else { return };
        self.load_parses(work).await;
        if let Some(persist) = self.persistent_cache() {
            for (source, state) in self.sources().iter().zip(work.iter_mut()) {
                if !std::mem::replace(&mut state.words_loaded, true) {
                    persist.load_words_now(source, self.limits, &mut state.cache).await;
                }
            }
        }
        let snapshot = self.snapshot();
        let mut index = self.search.index.write().unwrap_or_else(PoisonError::into_inner);
        let Some(index) = index.as_mut() else { return };
        for unread in index.unread_instructions(usize::MAX) {
            let (Some(source), Some(skill)) = (snapshot.source_of(&unread.name), snapshot.get(&unread.name)) else {
                continue;
            };
            let Some(words) = work.get(source).and_then(|w| w.cache.words(&skill.path)) else {
                continue;
            };
            let words: Vec<String> = words.lines().map(str::to_owned).collect();
            index.set_instruction_words(&unread.name, unread.generation, &words);
        }
    }

    /// Keeps the words read in each source's cache, and writes the caches that changed.
    /// Only after [`fill_cached_words`](Self::fill_cached_words), which loaded the parses.
    async fn keep_words(&self, read: Vec<ReadWords>) {
        let mut work = self.work.lock().await;
        let Some(work) = work.as_mut() else { return };
        for (source, path, words) in read {
            if let Some(state) = work.get_mut(source) {
                state.cache.set_words(&path, words);
            }
        }
        let all: Vec<usize> = (0..work.len()).collect();
        self.keep_caches(work, &all).await;
    }
}

//! The search index's words for each skill's instructions, taken from and given to the
//! catalog's [`PersistentCache`](crate::PersistentCache): a warm start's index is
//! complete without reading any `SKILL.md` again.

use std::sync::PoisonError;
use std::sync::atomic::AtomicBool;

use tracing::debug;

use super::SkillIndex;
use super::state::{Prefetched, ReadWords, StoredIndex};
use crate::cache_file::{Payload, WhileWanted};
use crate::catalog::SkillCatalog;
use crate::persist::SourceFiles;
use crate::snapshot::CatalogSnapshot;

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
        let by_digest = files.iter().all(|f| matches!(f, SourceFiles::Digest(_)));
        let sibling = persist.index_file_of(self.sources(), &self.limits, instructions, !by_digest);
        let stored = persist
            .index_file(self.sources(), &self.limits, &snapshot, &files, instructions)
            .map(|(file, key)| StoredIndex {
                file,
                key,
                sibling,
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
        let wanted = std::sync::Arc::new(AtomicBool::new(true));
        let (tell, index) = std::sync::mpsc::channel();
        let still = std::sync::Arc::clone(&wanted);
        runtime.spawn_blocking(move || {
            let payload = crate::cache_file::payload_of(opened, &|_| true).ok();
            // Whatever it holds, the one taking it hears: it waits for nothing more.
            let _ = tell.send(payload.and_then(|payload| index_of(payload, &still)));
        });
        let prefetched = Prefetched { file, index, wanted };
        *self.search.prefetched.lock().unwrap_or_else(PoisonError::into_inner) = Some(prefetched);
    }

    /// The index the last process kept for `snapshot`, the one served now, if there is
    /// one: kept for these very skills, or for an earlier version of the library and
    /// brought to this one ([`SkillIndex::patched`]), which answers as an index built
    /// from scratch would.
    pub(super) fn stored_index(&self, snapshot: &CatalogSnapshot) -> Option<SkillIndex> {
        self.note_index_file();
        let prefetched = self
            .search
            .prefetched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let mut stored = self.search.stored.lock().unwrap_or_else(PoisonError::into_inner);
        let stored = stored.as_mut()?;
        let (key, index) = match prefetched {
            Some(prefetched) if prefetched.file == stored.file => prefetched.take()?,
            // Without its own file, the other file of these sources (see
            // `index_file_of`), kept under another key, is brought to this library below.
            prefetched => read_index(&stored.file).or_else(|| match prefetched {
                Some(prefetched) if stored.sibling.as_ref() == Some(&prefetched.file) => prefetched.take(),
                _ => read_index(stored.sibling.as_ref()?),
            })?,
        };
        let index = if key == stored.key {
            index
        } else {
            let patched = index.patched(snapshot.skills());
            debug!(file = %stored.file.display(), patched = patched.is_some(), "kept search index of another library");
            patched?
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
        let mut index = self.search.index.write().unwrap_or_else(PoisonError::into_inner);
        let Some(index) = index.as_mut() else { return };
        // Reloads swap the snapshot under the index's lock: this one is the index's.
        let snapshot = self.snapshot();
        for (skill, &source) in snapshot.skills().iter().zip(snapshot.skill_sources()) {
            let Some(generation) = index.unread_generation(&skill.name) else {
                continue;
            };
            let Some(words) = work.get(source).and_then(|w| w.cache.words(&skill.path)) else {
                continue;
            };
            index.give_cached_instructions(&skill.name, generation, &words);
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

/// The key and the index of the index file `file`, if it holds one whole.
fn read_index(file: &std::path::Path) -> Option<(String, SkillIndex)> {
    index_of(
        crate::cache_file::open_payload(file, &|_| true).ok()?,
        &AtomicBool::new(true),
    )
}

/// The key an index file's payload was kept under and its index, if it holds one whole;
/// the decoding stops at its next read once `wanted` is false.
fn index_of(mut payload: Payload, wanted: &AtomicBool) -> Option<(String, SkillIndex)> {
    let key = payload.key.clone();
    let decode = |source: &mut dyn std::io::Read, len| SkillIndex::decode(&mut WhileWanted(source, wanted), len);
    Some((key, payload.decoded(decode)?))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use skills_core::MemoryBackend;

    use crate::{PersistentCache, SkillCatalog, SkillSource};

    fn catalog(memory: &Arc<MemoryBackend>, cache: &PersistentCache) -> SkillCatalog {
        let source = SkillSource::new(memory.clone(), "/skills").with_spec("patched");
        SkillCatalog::new(vec![source])
            .with_lazy_resources(true)
            .with_persistent_cache(cache.clone())
    }

    fn found(catalog: &SkillCatalog, query: &str) -> Vec<String> {
        catalog.search(query, 10).unwrap().into_iter().map(|h| h.name).collect()
    }

    #[tokio::test]
    async fn an_index_kept_before_an_edit_is_brought_to_the_edited_library() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PersistentCache::new(dir.path());
        let memory = Arc::new(MemoryBackend::new());
        let write = |name: &str, body: &str| {
            let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n{body} over the harbour.\n");
            memory.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
        };
        for (name, body) in [("web", "Zeppelins"), ("pdf", "Glaciers"), ("sql", "Lanterns")] {
            write(name, body);
        }
        let first = catalog(&memory, &cache);
        first.ensure_loaded().await;
        first.prepare_search().await;

        // A body edited, a skill gone, one added: the kept index is taken and brought to
        // the library, with the instructions of every skill it kept to be given again.
        write("web", "Airships");
        assert_eq!(memory.remove("/skills/sql/SKILL.md"), 1);
        write("csv", "Orchards");
        let edited = catalog(&memory, &cache);
        let snapshot = edited.ensure_loaded().await;
        let patched = edited.stored_index(&snapshot).expect("patched, not built again");
        assert_eq!(patched.len(), 3);
        assert_eq!(patched.unread_instructions(usize::MAX).len(), 3);
        edited.prepare_search().await;
        assert_eq!(found(&edited, "airships"), ["web"]);
        assert!(found(&edited, "zeppelins").is_empty());
        assert!(found(&edited, "lanterns").is_empty());
        assert_eq!(found(&edited, "orchards"), ["csv"]);
        assert_eq!(found(&edited, "glaciers"), ["pdf"]);

        // The patched index is kept for the edited library: the next start takes it as
        // it is, every skill's instructions given.
        let next = catalog(&memory, &cache);
        let snapshot = next.ensure_loaded().await;
        let taken = next.stored_index(&snapshot).expect("kept for these skills");
        assert!(taken.all_instructions_read());
    }

    #[tokio::test]
    async fn a_start_without_its_own_index_file_brings_the_other_one_to_its_library() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PersistentCache::new(dir.path());
        let memory = Arc::new(MemoryBackend::new());
        for (name, body) in [("web", "Zeppelins"), ("pdf", "Glaciers"), ("sql", "Harbours")] {
            let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n{body}.\n");
            memory.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
        }
        let first = catalog(&memory, &cache);
        first.ensure_loaded().await;
        first.prepare_search().await;

        // Only the file kept by starts that vouched for their files the other way holds
        // an index of these sources, kept before an edit.
        let text = "---\nname: sql\ndescription: The sql skill\n---\nAbout lanterns.\n";
        memory.insert("/skills/sql/SKILL.md", text).unwrap();
        let next = catalog(&memory, &cache);
        let snapshot = next.ensure_loaded().await;
        next.note_index_file();
        let (own, sibling) = {
            let stored = next.search.stored.lock().unwrap();
            let stored = stored.as_ref().unwrap();
            (stored.file.clone(), stored.sibling.clone().unwrap())
        };
        std::fs::rename(&own, &sibling).unwrap();
        let index = next
            .stored_index(&snapshot)
            .expect("the other file's index, brought here");
        assert_eq!(index.len(), 3);
        next.prepare_search().await;
        assert_eq!(found(&next, "glaciers"), ["pdf"]);
        assert_eq!(found(&next, "lanterns"), ["sql"]);
        assert!(found(&next, "harbours").is_empty());
        assert!(own.is_file(), "kept under its own name again");
    }
}

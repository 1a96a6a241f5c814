//! A first discovery's parses written to the persistent cache as they are read
//! ([`ParseCache::spill_to`](skills_core::ParseCache::spill_to)), not held until the
//! discovery ends: a cold start's memory then holds the listing, not the listing and every
//! parse again (4.4 MB of 8,000 skills' parses).

use std::sync::{Arc, Mutex, PoisonError};

use tracing::debug;

use crate::cache_file::{CacheFileWriter, MAX_CACHE_FILE_BYTES};
use crate::catalog::{SkillCatalog, SourceWork};
use crate::parse_file::ParseFile;
use crate::persist::prune;
use crate::source::SkillSource;

impl SkillCatalog {
    /// Sends the parses `state`'s cache takes from now on to the cache file of `source`
    /// as they are made, when the cache is empty (nothing was kept, or nothing could be
    /// used) and the walk found `files` skill files to parse (with none, there is no parse
    /// to write, and spilling would write an empty file again at every start):
    /// [`finish_spill`](Self::finish_spill) then puts the file in place.
    pub(crate) fn spill_parses(&self, source: &SkillSource, state: &mut SourceWork, files: usize) {
        let Some(persist) = self.persistent_cache() else { return };
        if !state.cache.is_empty() || files == 0 {
            return;
        }
        let Some((file, key)) = persist.file_of(source, &self.limits) else {
            return;
        };
        let writer = match CacheFileWriter::create(&file, &key, MAX_CACHE_FILE_BYTES) {
            Ok(writer) => Arc::new(Mutex::new(Some(writer))),
            Err(error) => return debug!(file = %file.display(), %error, "skills cache not written"),
        };
        let into = Arc::clone(&writer);
        let sink = move |part: &[u8]| {
            if let Some(writer) = into.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
                writer.write(part);
            }
        };
        if state.cache.spill_to(Box::new(sink)) {
            state.spill = Some(ParseFile(writer));
        }
    }

    /// Ends the spill of `state`'s cache, if it spilled: its file is put in place when
    /// every parse went to it whole, and the cache is then as after a start that took a
    /// kept listing (the parses are in their file until a reload or a search needs them:
    /// [`load_parses`](Self::load_parses)). Whether the cache spilled: a cache that did has
    /// nothing else to save.
    pub(crate) async fn finish_spill(&self, state: &mut SourceWork) -> bool {
        let Some(spill) = state.spill.take() else {
            return false;
        };
        let whole = state.cache.end_spill() == Some(true);
        let dir = self.persistent_cache().map(|p| p.dir().to_owned());
        let finish = move || {
            // Dropped unfinished when a parse did not go whole: the temporary file goes.
            let Some(writer) = spill.0.lock().unwrap_or_else(PoisonError::into_inner).take() else {
                return;
            };
            if !whole {
                return;
            }
            let file = writer.file.clone();
            match writer.finish() {
                Ok(()) => {
                    if let Some(dir) = &dir {
                        prune(dir, &file);
                    }
                }
                Err(error) => debug!(file = %file.display(), %error, "skills cache not written"),
            }
        };
        let _ = tokio::task::spawn_blocking(finish).await;
        // The cache holds nothing of what spilled, only the parses that could not go (a
        // file changed within the racy window): whatever needs the parses loads them from
        // the file (or, if it was not written, reads the files again), so those go too.
        state.cache = skills_core::ParseCache::default();
        state.parses_unloaded = true;
        true
    }

    /// Writes the persistent cache of each source of `which` whose parses changed: after
    /// the reload is published, so that neither its snapshot nor its event waits for the
    /// disk (65 MiB at 61,000 folders).
    pub(crate) async fn keep_caches(&self, work: &mut [SourceWork], which: &[usize]) {
        let Some(persist) = self.persistent_cache() else { return };
        for &i in which {
            if let (Some(source), Some(state)) = (self.sources().get(i), work.get_mut(i)) {
                if !self.finish_spill(state).await {
                    persist.save_now(source, self.limits, &mut state.cache).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly.

    use std::sync::Arc;

    use skills_core::MemoryBackend;

    use crate::{PersistentCache, SkillCatalog, SkillSource};

    #[tokio::test]
    async fn a_finished_spill_keeps_nothing_of_what_went_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(MemoryBackend::new());
        for name in ["pdf", "web"] {
            let text = format!("---\nname: {name}\ndescription: About {name}\n---\n");
            backend.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
        }
        let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills").with_spec("test-library")])
            .with_persistent_cache(PersistentCache::new(dir.path()));
        assert_eq!(catalog.ensure_loaded().await.skills().len(), 2);
        let work = catalog.work.lock().await;
        let state = &work.as_ref().unwrap()[0];
        assert!(state.spill.is_none(), "the spill was not finished");
        assert!(state.parses_unloaded, "the parses are not marked as in their file");
        assert!(
            state.cache.is_empty(),
            "the cache still holds entries of the spilled parses"
        );
    }
}

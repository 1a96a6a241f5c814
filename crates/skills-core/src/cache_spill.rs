//! A [`ParseCache`] that gives its parses away as they are made ([`ParseCache::spill_to`]):
//! a first discovery writes them to the cache file as it reads, instead of holding every
//! parse until the file is written (4.4 MB of 8,000 skills' parses, at the top of a cold
//! start's memory).

use crate::parse_cache::{ParseCache, Spill, SpillSink};

impl ParseCache {
    /// Gives every parse this cache takes from now on to `sink` (as the bytes
    /// [`write_bytes`](Self::write_bytes) gives for it) instead of keeping it: the cache
    /// keeps nothing of the file, so a later discovery through it reads the file again.
    /// For a first discovery whose parses are only wanted in the cache file, written as
    /// they are read: the sink's bytes are then the file's whole payload. A parse that
    /// must not be written (its file changed within the racy window) stays in memory.
    /// Does nothing, and says `false`, unless the cache is empty and not spilling already.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use skills_core::{Discovery, MemoryBackend, ParseCache};
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let backend = MemoryBackend::new();
    /// backend.insert("/s/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
    /// let bytes = Arc::new(Mutex::new(Vec::new()));
    /// let into = Arc::clone(&bytes);
    /// let mut cache = ParseCache::new();
    /// assert!(cache.spill_to(Box::new(move |part| into.lock().unwrap().extend_from_slice(part))));
    /// Discovery::new(&backend, "/s").cache(&mut cache).run().await?;
    /// assert_eq!(cache.end_spill(), Some(true));
    /// // What was given is a whole cache: a later process reads nothing again.
    /// let mut again = ParseCache::from_bytes(bytes.lock().unwrap().clone()).expect("whole");
    /// Discovery::new(&backend, "/s").cache(&mut again).run().await?;
    /// assert_eq!(again.files_read(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn spill_to(&mut self, sink: SpillSink) -> bool {
        // A spilling cache stays empty (what went is not kept): a second sink would take
        // the rest of the first one's stream.
        if !self.is_empty() || self.spill.active() {
            return false;
        }
        self.spill = Spill::into(sink);
        true
    }

    /// Stops [spilling](Self::spill_to) (the sink is dropped): `Some(true)` when every
    /// parse that may be written went whole to the sink, so that its bytes are the whole
    /// cache; `Some(false)` when one did not (they must not be used); `None` when the
    /// cache did not spill.
    pub fn end_spill(&mut self) -> Option<bool> {
        let spill = std::mem::take(&mut self.spill);
        spill.sink.as_ref()?;
        Some(!spill.broken)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use crate::{Discovery, MemoryBackend, ParseCache};

    /// A library of two skills, and a sink that keeps what it is given.
    fn library() -> (MemoryBackend, Arc<Mutex<Vec<u8>>>, crate::SpillSink) {
        let backend = MemoryBackend::new();
        for name in ["pdf", "web"] {
            let text = format!("---\nname: {name}\ndescription: About {name}\n---\nBody\n");
            backend
                .insert(&format!("/s/{name}/SKILL.md"), text)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&bytes);
        let sink: crate::SpillSink = Box::new(move |part| into.lock().unwrap_or_else(|e| e.into_inner()).extend(part));
        (backend, bytes, sink)
    }

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        runtime.unwrap_or_else(|e| panic!("{e}")).block_on(future)
    }

    #[test]
    fn spilled_parses_leave_nothing_behind_and_are_read_again() {
        let (backend, bytes, sink) = library();
        let mut cache = ParseCache::new().with_racy_window(Duration::ZERO);
        assert!(cache.spill_to(sink));
        let first = run(Discovery::new(&backend, "/s").cache(&mut cache).run()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.skills.len(), 2);
        // Nothing is kept to write: what the sink has is the whole cache.
        assert!(cache.to_bytes().is_empty());
        assert_eq!(cache.len(), 0);
        assert!(cache.etag("/s/pdf/SKILL.md").is_none());
        // Empty, but spilling: no second sink takes the rest of the stream.
        assert!(!cache.spill_to(Box::new(|_| panic!("a second sink was given parts"))));
        let given = bytes.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let kept = ParseCache::from_bytes(given).unwrap_or_else(|| panic!("the spill is no cache"));
        assert_eq!(kept.len(), 2);
        // A second discovery through the spilling cache has no parse to take: it reads
        // both files again, and those second parses cannot go to the sink.
        let second = run(Discovery::new(&backend, "/s").cache(&mut cache).run()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(second.skills.len(), 2);
        assert_eq!(cache.files_read(), 4);
        assert_eq!(cache.end_spill(), Some(false));
        assert_eq!(cache.end_spill(), None);
    }

    #[test]
    fn only_an_empty_cache_spills_and_never_its_clone() {
        let (backend, bytes, sink) = library();
        let mut cache = ParseCache::new().with_racy_window(Duration::ZERO);
        run(Discovery::new(&backend, "/s").cache(&mut cache).run()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!cache.spill_to(sink));
        assert_eq!(cache.end_spill(), None);
        assert!(bytes.lock().unwrap_or_else(|e| e.into_inner()).is_empty());

        let (backend, bytes, sink) = library();
        let mut spilling = ParseCache::new().with_racy_window(Duration::ZERO);
        assert!(spilling.spill_to(sink));
        let mut clone = spilling.clone();
        run(Discovery::new(&backend, "/s").cache(&mut clone).run()).unwrap_or_else(|e| panic!("{e}"));
        assert!(bytes.lock().unwrap_or_else(|e| e.into_inner()).is_empty());
        assert_eq!(clone.end_spill(), None);
        assert_eq!(ParseCache::from_bytes(clone.to_bytes()).map(|c| c.len()), Some(2));
        assert_eq!(spilling.end_spill(), Some(true));
    }
}

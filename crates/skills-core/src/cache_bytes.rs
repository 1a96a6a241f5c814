//! A [`ParseCache`] as bytes, for a cache kept between processes (the file that holds
//! them, checked and written atomically, is the catalog's: `skills-core` does no I/O of
//! its own).
//!
//! ```text
//! parses := (str path, str etag, u32 length, outcome)*   by path, to the end
//! words  := u32 count (str path, str etag, str words)*
//! ```
//!
//! `outcome` is [`cache_codec`](crate::cache_codec)'s encoding, decoded only when
//! discovery uses it; loaded entries stay in the bytes ([`crate::cache_base`]). The search
//! index's words for the instructions are bytes of their own, read only by a search: a
//! listing does not hold them.

use std::sync::Arc;

use crate::cache_base::Base;
use crate::cache_codec::{Reader, put_entry_head, put_len, put_str};
use crate::parse_cache::ParseCache;

/// One entry to write: path, etag, encoded parse, words.
type Stored<'a> = (&'a str, &'a str, &'a [u8], Option<&'a Arc<str>>);

impl ParseCache {
    /// The cache's parses as bytes, for [`from_bytes`](Self::from_bytes): every entry
    /// but those whose file changed within the racy window of its read (the next process
    /// reads those files again).
    ///
    /// ```
    /// use skills_core::{Discovery, MemoryBackend, ParseCache};
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let backend = MemoryBackend::new();
    /// backend.insert("/s/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
    /// let mut cache = ParseCache::new();
    /// Discovery::new(&backend, "/s").cache(&mut cache).run().await?;
    /// let mut again = ParseCache::from_bytes(cache.to_bytes()).expect("whole");
    /// let listing = Discovery::new(&backend, "/s").cache(&mut again).run().await?;
    /// assert_eq!((listing.skills[0].name.as_str(), again.files_read()), ("web", 0));
    /// assert!(ParseCache::from_bytes(b"\x05\0\0\0".to_vec()).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_bytes(&mut |part| out.extend_from_slice(part));
        out
    }

    /// [`to_bytes`](Self::to_bytes), given to `sink` part by part: a large cache is
    /// written without a second copy of it in memory.
    pub fn write_bytes(&self, sink: &mut dyn FnMut(&[u8])) {
        // No count first: a spilling cache writes its entries before it knows how many.
        let entries = self.stored();
        let mut head = Vec::with_capacity(256);
        for (path, etag, outcome, _) in &entries {
            head.clear();
            put_entry_head(&mut head, path, etag, outcome.len());
            sink(&head);
            sink(outcome);
        }
    }

    /// The search words of the cache's entries as bytes, for
    /// [`give_words`](Self::give_words).
    pub fn words_to_bytes(&self) -> Vec<u8> {
        let mut entries = self.stored();
        entries.retain(|e| e.3.is_some());
        let mut out = Vec::new();
        put_len(&mut out, entries.len());
        for (path, etag, _, words) in entries {
            put_str(&mut out, path);
            put_str(&mut out, etag);
            put_str(&mut out, words.map_or("", |w| w));
        }
        out
    }

    /// The cache [`to_bytes`](Self::to_bytes) wrote; `None` unless `bytes` is such a
    /// cache, whole. Its entries stay in `bytes`: nothing is allocated per entry.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<Self> {
        let mut cache = Self::new();
        cache.base = Some(Base::parse(bytes)?);
        Some(cache)
    }

    /// Gives the entries the search words [`words_to_bytes`](Self::words_to_bytes)
    /// wrote, where their etag is the one cached now; how many were given, or `None` if
    /// `bytes` is not such a list.
    pub fn give_words(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut reader = Reader { bytes };
        let count = reader.len()?;
        let mut given = 0;
        for _ in 0..count {
            let path = reader.str()?;
            let etag = reader.str()?;
            let words = reader.str()?;
            given += usize::from(self.give_words_to(path, etag, words));
        }
        reader.bytes.is_empty().then_some(given)
    }

    /// Notes that what the cache holds, parses and search words, is kept: it is no
    /// longer [dirty](Self::is_dirty).
    pub fn mark_saved(&mut self) {
        self.dirty = false;
        self.words_dirty = false;
    }

    /// Whether a parse changed since the cache was made or [saved](Self::mark_saved).
    pub fn parses_dirty(&self) -> bool {
        self.dirty
    }

    /// Whether search words changed since the cache was made or [saved](Self::mark_saved).
    pub fn words_dirty(&self) -> bool {
        self.words_dirty
    }

    /// Every entry to keep, sorted by path.
    fn stored(&self) -> Vec<Stored<'_>> {
        let mut entries: Vec<Stored<'_>> = self
            .entries
            .iter()
            .filter(|(_, e)| !e.racy)
            .map(|(path, e)| (path.as_str(), e.etag.as_str(), e.outcome.bytes(), e.words.as_ref()))
            .chain(self.base.iter().flat_map(Base::entries))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        entries
    }
}

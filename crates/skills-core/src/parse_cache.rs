//! [`ParseCache`]: what discovery parsed, by path and etag, so a rediscovery neither
//! reads nor parses a file whose etag did not change; kept in memory between reloads and,
//! when asked, as bytes between processes ([`crate::cache_bytes`]).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::cache_base::Base;
use crate::cache_codec::{self, Blob, put_entry_head};
use crate::file::FileInfo;
use crate::name_index::NameIndex;
use crate::parse::ParseOutcome;
use crate::path;

/// How recent a change may be for a cache to keep the parse of it between processes, by
/// default: an entry whose file changed less than this before it was read is "racy" (an
/// edit within the same timestamp tick would keep its etag) and is read again by the next
/// process. Two seconds covers the coarsest timestamps in use (FAT's).
pub const DEFAULT_RACY_WINDOW: Duration = Duration::from_secs(2);

/// One cached `SKILL.md`.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) etag: String,
    /// The parse, encoded: a cache holds about a third of the memory the parsed skills
    /// take, and a hit decodes a fresh copy for the listing instead of cloning one. (A
    /// parse that went to the cache's [spill](ParseCache::spill_to) has no entry.)
    pub(crate) outcome: Blob,
    /// Whether the file changed too close to its read for the etag to prove it unchanged
    /// later: kept in memory, never written to disk.
    pub(crate) racy: bool,
    /// The words a search index made of the file's instructions, when one gave them.
    pub(crate) words: Option<Arc<str>>,
}

/// The entries parsed in this process, by path: a list and an index of positions into
/// it. A `HashMap<String, Entry>` took twice the room at its peak (its table doubles
/// past seven eighths full: 1.6 MB of slots for 7,257 skills, against 0.8 MB of list).
#[derive(Debug, Clone, Default)]
pub(crate) struct Fresh {
    list: Vec<(String, Entry)>,
    index: NameIndex,
}

impl Fresh {
    fn position(&self, path: &str) -> Option<usize> {
        self.index.get(path, |i| self.list[i].0.as_str())
    }

    pub(crate) fn get(&self, path: &str) -> Option<&Entry> {
        self.position(path).map(|i| &self.list[i].1)
    }

    fn get_mut(&mut self, path: &str) -> Option<&mut Entry> {
        self.position(path).map(|i| &mut self.list[i].1)
    }

    /// Keeps `entry` for `path`; the entry it replaces, if any.
    fn insert(&mut self, path: &str, entry: Entry) -> Option<Entry> {
        if let Some(i) = self.position(path) {
            return Some(std::mem::replace(&mut self.list[i].1, entry));
        }
        self.list.push((path.to_owned(), entry));
        let list = &self.list;
        self.index.insert(list.len() - 1, |i| list[i].0.as_str());
        None
    }

    /// Keeps the entries whose path `keep` accepts.
    fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let before = self.list.len();
        self.list.retain(|(path, _)| keep(path));
        if self.list.len() != before {
            let list = &self.list;
            self.index = NameIndex::with_capacity(list.len());
            for i in 0..list.len() {
                self.index.insert(i, |i| list[i].0.as_str());
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Each path and its entry, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Entry)> {
        self.list.iter().map(|(path, entry)| (path, entry))
    }
}

/// Parsed `SKILL.md` files by path, with the etag they had, so a rediscovery neither reads
/// nor parses a file whose etag did not change. Files without an etag are always read.
///
/// One cache belongs to one source of one backend; pass it to every
/// [`Discovery`](crate::Discovery) of that source. [`to_bytes`](Self::to_bytes) and
/// [`from_bytes`](Self::from_bytes) keep it between processes.
#[derive(Debug, Clone)]
pub struct ParseCache {
    /// What was parsed in this process (over `base`).
    pub(crate) entries: Fresh,
    /// What the cache file held, less what was replaced or forgotten since.
    pub(crate) base: Option<Base>,
    files_read: u64,
    /// Files read again because their etag changed, since the last
    /// [`take_changed`](Self::take_changed), when tracked.
    changed: Option<Vec<String>>,
    /// Whether a parse changed since the cache was loaded or saved.
    pub(crate) dirty: bool,
    /// Whether search words changed since they were loaded or saved.
    pub(crate) words_dirty: bool,
    racy_window: Duration,
    /// Where a parse is encoded before it is kept.
    scratch: Vec<u8>,
    /// Where parses go instead of memory, while the cache spills.
    pub(crate) spill: Spill,
}

impl Default for ParseCache {
    fn default() -> Self {
        Self {
            entries: Fresh::default(),
            base: None,
            files_read: 0,
            changed: None,
            dirty: false,
            words_dirty: false,
            racy_window: DEFAULT_RACY_WINDOW,
            scratch: Vec::new(),
            spill: Spill::default(),
        }
    }
}

impl ParseCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache that also notes the files read again because they changed, for
    /// [`take_changed`](Self::take_changed) (whoever asks for them takes them after each
    /// discovery: they are kept until taken).
    pub fn tracking_changes() -> Self {
        Self {
            changed: Some(Vec::new()),
            ..Self::default()
        }
    }

    /// The cache, tracking changes from now on (see [`tracking_changes`](Self::tracking_changes)).
    pub fn with_change_tracking(mut self) -> Self {
        self.changed.get_or_insert_with(Vec::new);
        self
    }

    /// The cache with `window` as its racy window instead of [`DEFAULT_RACY_WINDOW`]: a
    /// file that changed less than `window` before discovery read it is not written by
    /// [`to_bytes`](Self::to_bytes). Only lower it where timestamps are known to be fine-grained.
    pub fn with_racy_window(mut self, window: Duration) -> Self {
        self.racy_window = window;
        self
    }

    /// How many `SKILL.md` files are cached.
    pub fn len(&self) -> usize {
        self.entries.len() + self.base.as_ref().map_or(0, Base::live)
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many `SKILL.md` files discoveries through this cache have downloaded in all.
    pub fn files_read(&self) -> u64 {
        self.files_read
    }

    /// Whether anything was added, replaced or forgotten since the cache was made or
    /// [saved](Self::mark_saved): whether it has anything new to keep.
    pub fn is_dirty(&self) -> bool {
        self.dirty || self.words_dirty
    }

    pub(crate) fn count_read(&mut self, files: u64) {
        self.files_read += files;
    }

    /// The encoded parse of `entry`'s file, if its etag did not change (decoded as its
    /// chunk of discovery is read; one that does not decode is read again).
    pub(crate) fn hit(&self, entry: &FileInfo) -> Option<Blob> {
        let etag = entry.etag.as_deref()?;
        if let Some(cached) = self.entries.get(&entry.path) {
            return (cached.etag == etag).then(|| cached.outcome.clone());
        }
        let base = self.base.as_ref()?;
        let at = base.find(&entry.path)?;
        (base.etag(at) == etag).then(|| base.blob(at))
    }

    /// Keeps the parse of `entry`, read at `read_at` or later.
    pub(crate) fn store(&mut self, entry: &FileInfo, outcome: &ParseOutcome, read_at: SystemTime) {
        if entry.etag.is_none() {
            return;
        }
        // Encoded into a buffer that is reused, then copied at its exact size: one
        // allocation per parse, none of the growing a fresh vector goes through.
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        cache_codec::encode(outcome, &entry.path, &mut scratch);
        self.store_encoded(entry, Cow::Borrowed(&scratch), read_at);
        self.scratch = scratch;
    }

    /// Keeps the parse of `entry`, read at `read_at` or later, as its encoding
    /// `encoded` (kept as it is when owned).
    pub(crate) fn store_encoded(&mut self, entry: &FileInfo, encoded: Cow<'_, [u8]>, read_at: SystemTime) {
        let Some(etag) = &entry.etag else { return };
        let racy = entry
            .changed_at
            .is_some_and(|changed| changed + self.racy_window > read_at);
        let in_base = self.base.as_mut().is_some_and(|base| base.remove_path(&entry.path));
        self.dirty = true;
        // A spilling cache gives a new file's parse away and keeps nothing of it: a later
        // discovery through the cache finds no entry and reads the file again (a first
        // start of thereisnotime held 1.7 MB of paths and etags for nothing). A parse it
        // gave cannot be taken back from the sink, so a second parse of a file breaks the
        // spill.
        if !racy && self.spill.active() {
            if in_base || self.entries.get(&entry.path).is_some() || self.spill.gave(&entry.path) {
                self.spill.break_off();
            } else {
                self.spill.give(&entry.path, etag, &encoded);
                return;
            }
        }
        let cached = Entry {
            etag: etag.clone(),
            outcome: Blob {
                range: 0..encoded.len(),
                buffer: Arc::new(encoded.into_owned()),
            },
            racy,
            words: None,
        };
        if self.entries.insert(&entry.path, cached).is_some() || in_base {
            if let Some(changed) = &mut self.changed {
                changed.push(entry.path.clone());
            }
        }
    }

    /// Forgets the files that are gone: those not in `found` (sorted by path) that lie
    /// where the walk looked (every folder when `looked_at` is `None`).
    pub(crate) fn forget_gone(&mut self, found: &[FileInfo], looked_at: Option<&[String]>) {
        let outside = |file: &str| looked_at.is_some_and(|dirs| !dirs.iter().any(|dir| path::is_within(file, dir)));
        let keep = |path: &str| outside(path) || found.binary_search_by(|e| e.path.as_str().cmp(path)).is_ok();
        let before = self.entries.len();
        self.entries.retain(|path| keep(path));
        self.dirty |= self.entries.len() != before;
        if let Some(base) = &mut self.base {
            // A whole source's walk against the file's entries, both by path: one pass.
            let merged = if looked_at.is_none() {
                base.retain_found(found)
            } else {
                None
            };
            self.dirty |= merged.unwrap_or_else(|| base.retain(keep));
        }
    }

    /// The `SKILL.md` files that discoveries through this cache read again because
    /// their etag changed (not the new ones), since the last call: what changed in a
    /// file whose frontmatter may not have (its instructions, for a search index).
    /// Always empty for a cache not [`tracking_changes`](Self::tracking_changes).
    pub fn take_changed(&mut self) -> Vec<String> {
        self.changed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The etag the cached parse of the `SKILL.md` at `path` was made from.
    pub fn etag(&self, path: &str) -> Option<&str> {
        self.lookup(path).map(|(etag, _)| etag)
    }

    /// The words a search index keeps for the instructions of the `SKILL.md` at `path`
    /// ([`set_words`](Self::set_words)), while its cached parse stands.
    pub fn words(&self, path: &str) -> Option<Arc<str>> {
        self.lookup(path)?.1.cloned()
    }

    /// Keeps `words` (a search index's words for the instructions) with the cached parse
    /// of the `SKILL.md` at `path`, so a later process need not read the file for them;
    /// they go when the file's etag changes. Whether the file is cached.
    pub fn set_words(&mut self, path: &str, words: Arc<str>) -> bool {
        let Some((_, kept)) = self.lookup_mut(path) else {
            return false;
        };
        if kept.as_deref() != Some(&*words) {
            *kept = Some(words);
            self.words_dirty = true;
        }
        true
    }

    /// Gives the cached entry of `path` `words` if its etag is `etag` and it has none.
    pub(crate) fn give_words_to(&mut self, path: &str, etag: &str, words: &str) -> bool {
        match self.lookup_mut(path) {
            Some((cached, kept)) if cached == etag && kept.is_none() => {
                *kept = Some(Arc::from(words));
                true
            }
            _ => false,
        }
    }

    /// The etag and the words of the cached entry of `path`: parsed in this process, or
    /// read from the cache file.
    fn lookup(&self, path: &str) -> Option<(&str, Option<&Arc<str>>)> {
        if let Some(entry) = self.entries.get(path) {
            return Some((&entry.etag, entry.words.as_ref()));
        }
        let base = self.base.as_ref()?;
        Some(base.entry(base.find(path)?))
    }

    /// [`lookup`](Self::lookup), with the words to change.
    fn lookup_mut(&mut self, path: &str) -> Option<(&str, &mut Option<Arc<str>>)> {
        if let Some(entry) = self.entries.get_mut(path) {
            return Some((&entry.etag, &mut entry.words));
        }
        let base = self.base.as_mut()?;
        let at = base.find(path)?;
        Some(base.entry_mut(at))
    }
}

/// Where a spilling cache's entries go, part by part: the bytes
/// [`ParseCache::write_bytes`] would give for them.
pub type SpillSink = Box<dyn FnMut(&[u8]) + Send + Sync>;

/// A cache's spill: its sink while it spills, and whether every entry it took went
/// there. A clone of the cache does not spill (its parses stay in memory): two caches
/// writing one stream would write an entry twice.
#[derive(Default)]
pub(crate) struct Spill {
    pub(crate) sink: Option<SpillSink>,
    /// An entry taken while spilling did not go whole to the sink: a file parsed again
    /// after its first parse went.
    pub(crate) broken: bool,
    /// Where an entry's path, etag and length are put before they go.
    head: Vec<u8>,
    /// The hash of each path whose entry went: a file parsed again after its first parse
    /// went breaks the spill, and the cache keeps no entry of what went to tell it.
    gone: std::collections::HashSet<u64, foldhash::fast::FixedState>,
}

/// A path's hash for [`Spill::gave`], the same in every spill of the process.
fn path_hash(path: &str) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::with_seed(0x5eed).hash_one(path)
}

impl Clone for Spill {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Spill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spill")
            .field("spilling", &self.sink.is_some())
            .field("broken", &self.broken)
            .finish()
    }
}

impl Spill {
    /// A spill into `sink`.
    pub(crate) fn into(sink: SpillSink) -> Self {
        Self {
            sink: Some(sink),
            ..Self::default()
        }
    }

    /// Whether entries go to a sink now.
    pub(crate) fn active(&self) -> bool {
        self.sink.is_some()
    }

    /// Gives the entry `path`, `etag`, `outcome` to the sink: what `write_bytes` writes
    /// of it (nothing, unless spilling).
    pub(crate) fn give(&mut self, path: &str, etag: &str, outcome: &[u8]) {
        let Some(sink) = &mut self.sink else { return };
        self.gone.insert(path_hash(path));
        self.head.clear();
        put_entry_head(&mut self.head, path, etag, outcome.len());
        sink(&self.head);
        sink(outcome);
    }

    /// Whether an entry for `path` may have gone to the sink already (a hash of its path
    /// says so: two paths of one hash only cost the file its place).
    pub(crate) fn gave(&self, path: &str) -> bool {
        self.gone.contains(&path_hash(path))
    }

    /// Notes that an entry taken while spilling could not go to the sink whole.
    pub(crate) fn break_off(&mut self) {
        if self.sink.is_some() {
            self.broken = true;
        }
    }
}

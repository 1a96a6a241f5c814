//! The entries a [`ParseCache`](crate::ParseCache) loaded from its file, kept in the
//! file's own bytes: a path, etag and encoded parse are ranges of one buffer, found
//! through a [`NameIndex`], so a warm start of 40,000 skills allocates nothing per entry.

use std::sync::Arc;

use crate::cache_codec::{Blob, Reader};
use crate::name_index::NameIndex;

/// A range of the buffer: start and length.
type Span = (u32, u32);

/// One entry of the file.
#[derive(Debug, Clone)]
struct Slot {
    path: Span,
    etag: Span,
    outcome: Span,
    /// Replaced or forgotten since the file was read.
    gone: bool,
    words: Option<Arc<str>>,
}

/// The loaded entries: `(str path, str etag, u32 length, outcome)*` to the payload's end.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    buffer: Arc<Vec<u8>>,
    slots: Vec<Slot>,
    index: NameIndex,
    live: usize,
    /// Whether the entries are in path order (as every cache is written).
    sorted: bool,
}

impl Base {
    /// The entries of `payload`; `None` unless it is such a list, whole, of UTF-8 paths
    /// and etags.
    pub(crate) fn parse(payload: Vec<u8>) -> Option<Self> {
        let total = payload.len();
        let mut reader = Reader { bytes: &payload };
        if total > u32::MAX as usize {
            return None;
        }
        let mut slots = Vec::new();
        let span = |reader: &Reader<'_>, len: usize| ((total - reader.bytes.len() - len) as u32, len as u32);
        while !reader.bytes.is_empty() {
            let path = reader.str()?.len();
            let path = span(&reader, path);
            let etag = reader.str()?.len();
            let etag = span(&reader, etag);
            let len = reader.len()?;
            reader.take(len)?;
            let outcome = span(&reader, len);
            slots.push(Slot {
                path,
                etag,
                outcome,
                gone: false,
                words: None,
            });
        }
        slots.shrink_to_fit();
        let sorted = slots
            .windows(2)
            .all(|pair| text(&payload, pair[0].path) < text(&payload, pair[1].path));
        let mut base = Self {
            buffer: Arc::new(payload),
            index: NameIndex::with_capacity(slots.len()),
            live: slots.len(),
            slots,
            sorted,
        };
        let Self {
            buffer, slots, index, ..
        } = &mut base;
        for i in 0..slots.len() {
            index.insert(i, |i| text(buffer, slots[i].path));
        }
        Some(base)
    }

    /// How many entries are neither replaced nor forgotten.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// The entry of `path`, if it is live.
    pub(crate) fn find(&self, path: &str) -> Option<usize> {
        let i = self.index.get(path, |i| text(&self.buffer, self.slots[i].path))?;
        (!self.slots[i].gone).then_some(i)
    }

    pub(crate) fn etag(&self, i: usize) -> &str {
        text(&self.buffer, self.slots[i].etag)
    }

    pub(crate) fn blob(&self, i: usize) -> Blob {
        let (start, len) = self.slots[i].outcome;
        Blob {
            buffer: Arc::clone(&self.buffer),
            range: start as usize..(start + len) as usize,
        }
    }

    /// The etag and the search words of entry `i`.
    pub(crate) fn entry(&self, i: usize) -> (&str, Option<&Arc<str>>) {
        let slot = &self.slots[i];
        (text(&self.buffer, slot.etag), slot.words.as_ref())
    }

    /// [`entry`](Self::entry), with the words to change.
    pub(crate) fn entry_mut(&mut self, i: usize) -> (&str, &mut Option<Arc<str>>) {
        let slot = &mut self.slots[i];
        (text(&self.buffer, slot.etag), &mut slot.words)
    }

    /// Takes out the live entry of `path` (replaced by a new parse); whether there was one.
    pub(crate) fn remove_path(&mut self, path: &str) -> bool {
        let Some(i) = self.find(path) else { return false };
        self.slots[i].gone = true;
        self.live -= 1;
        true
    }

    /// Takes out the live entries whose path `keep` refuses; whether any went.
    pub(crate) fn retain(&mut self, keep: impl Fn(&str) -> bool) -> bool {
        let before = self.live;
        for slot in &mut self.slots {
            if !slot.gone && !keep(text(&self.buffer, slot.path)) {
                slot.gone = true;
                self.live -= 1;
            }
        }
        self.live != before
    }

    /// Takes out the live entries whose path is not among `found` (sorted by path), in
    /// one pass over both; whether any went, or `None` when the entries are not in path
    /// order (then [`retain`](Self::retain) does it).
    pub(crate) fn retain_found(&mut self, found: &[crate::file::FileInfo]) -> Option<bool> {
        if !self.sorted {
            return None;
        }
        let before = self.live;
        let mut next = found.iter().map(|f| f.path.as_str()).peekable();
        for slot in &mut self.slots {
            if slot.gone {
                continue;
            }
            let path = text(&self.buffer, slot.path);
            while next.next_if(|f| *f < path).is_some() {}
            if next.peek() != Some(&path) {
                slot.gone = true;
                self.live -= 1;
            }
        }
        Some(self.live != before)
    }

    /// The live entries: path, etag, encoded parse, words.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &str, &[u8], Option<&Arc<str>>)> {
        self.slots.iter().filter(|s| !s.gone).map(|s| {
            let (start, len) = s.outcome;
            let outcome = self
                .buffer
                .get(start as usize..(start + len) as usize)
                .unwrap_or_default();
            (
                text(&self.buffer, s.path),
                text(&self.buffer, s.etag),
                outcome,
                s.words.as_ref(),
            )
        })
    }
}

/// The text at `span` of `buffer` (checked as UTF-8 when the file was read).
fn text(buffer: &[u8], (start, len): Span) -> &str {
    buffer
        .get(start as usize..(start + len) as usize)
        .and_then(|bytes| simdutf8::basic::from_utf8(bytes).ok())
        .unwrap_or_default()
}

//! The compact binary form of a [`ParseOutcome`] that a [`ParseCache`](crate::ParseCache)
//! holds and writes: a warm start decodes each skill in well under a microsecond, where
//! JSON took several (most skills set only the specification's fields, stored as
//! length-prefixed strings; the rarer extensions go as JSON).
//!
//! ```text
//! outcome    := u8 has-skill [skill] u32 count diagnostic*
//! value      := u8 0 | u8 1 str | u8 2 u32 count value* | u8 3 u32 count (str key value)*
//! skill      := opt path str name str description opt license opt compatibility
//!               u32 count (str key str value)* u32 count str*
//!               u32 count (str key value)* opt extensions-json
//! diagnostic := opt path str kind str message opt cut-json
//! str        := u32 length, UTF-8 bytes          opt := u8 0 | u8 1 str
//! ```
//! A `path` is left out when it is the cached file's own. Integers are little-endian.

use std::ops::Range;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::fields::FieldMap;
use crate::parse::ParseOutcome;
use crate::skill::{FrontmatterValue, SkillListing, SkillMetadata};
use crate::utf8;

/// How deep decoded frontmatter values may nest.
const MAX_VALUE_DEPTH: usize = 128;

/// The encoded parse of a file ([`encode`]): a part of a buffer that a loaded
/// cache file's entries share, or a buffer of its own.
#[derive(Debug, Clone)]
pub(crate) struct Blob {
    pub(crate) buffer: Arc<Vec<u8>>,
    pub(crate) range: Range<usize>,
}

impl Blob {
    pub(crate) fn bytes(&self) -> &[u8] {
        self.buffer.get(self.range.clone()).unwrap_or_default()
    }
}

/// Appends the encoding of `outcome`, the parse of the file at `path`, to `out`.
pub(crate) fn encode(outcome: &ParseOutcome, path: &str, out: &mut Vec<u8>) {
    match &outcome.skill {
        Some(skill) => {
            out.push(1);
            put_skill(out, skill, path);
        }
        None => out.push(0),
    }
    put_len(out, outcome.diagnostics.len());
    for diagnostic in &outcome.diagnostics {
        put_diagnostic(out, diagnostic, path);
    }
}

/// A skill, its path left out when it is `own`.
fn put_skill(out: &mut Vec<u8>, skill: &SkillMetadata, own: &str) {
    put_opt(out, (skill.path != own).then_some(&skill.path));
    put_str(out, &skill.name);
    put_str(out, &skill.description);
    put_opt(out, skill.license.as_deref());
    put_opt(out, skill.compatibility.as_deref());
    put_len(out, skill.metadata.len());
    for (key, value) in &skill.metadata {
        put_str(out, key);
        put_str(out, value);
    }
    put_len(out, skill.allowed_tools.len());
    for tool in &skill.allowed_tools {
        put_str(out, tool);
    }
    match skill.extra.kept_bytes() {
        // Read back from a cache and not changed since: the bytes it was read from.
        Some(bytes) => out.extend_from_slice(bytes),
        None => {
            put_len(out, skill.extra.len());
            for (key, value) in &skill.extra {
                put_str(out, key);
                put_value(out, value);
            }
        }
    }
    let extensions = skill.extensions.as_ref().map(json);
    put_opt(out, extensions.as_deref());
}

/// A diagnostic, its path left out when it is `own`.
fn put_diagnostic(out: &mut Vec<u8>, diagnostic: &Diagnostic, own: &str) {
    put_opt(out, (diagnostic.path != own).then_some(&diagnostic.path));
    put_str(out, diagnostic.kind.as_str());
    put_str(out, &diagnostic.message);
    let cut = diagnostic.cut.as_ref().map(json);
    put_opt(out, cut.as_deref());
}

impl SkillListing {
    /// The listing in a compact binary form, for a cache kept between processes
    /// ([`from_bytes`](Self::from_bytes)); resources are left out.
    ///
    /// ```
    /// use skills_core::{SkillListing, SkillMetadata};
    /// let listing = SkillListing {
    ///     skills: vec![SkillMetadata::new("web", "Browse", "/s/web/SKILL.md")],
    ///     folders: 1,
    ///     ..SkillListing::default()
    /// };
    /// let back = SkillListing::from_bytes(&listing.to_bytes()).unwrap();
    /// assert_eq!(back.skills, listing.skills);
    /// assert_eq!(back.folders, 1);
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        Self::write_bytes(self.folders, &self.skills, &self.diagnostics, &mut |part| {
            out.extend_from_slice(part)
        });
        out
    }

    /// [`to_bytes`](Self::to_bytes) of a listing held as its parts (skills shared
    /// behind `Arc`s, say), given to `sink` part by part instead of gathered: what a cache
    /// file is streamed from.
    pub fn write_bytes<S: std::borrow::Borrow<SkillMetadata>>(
        folders: usize,
        skills: &[S],
        diagnostics: &[Diagnostic],
        sink: &mut dyn FnMut(&[u8]),
    ) {
        encode_listing(folders, skills, diagnostics, sink);
    }

    /// The listing [`to_bytes`](Self::to_bytes) wrote (without resources); `None` unless
    /// `bytes` is such a listing, whole.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        Self::read_from(&mut &bytes[..], bytes.len() as u64)
    }
}

/// Gives `sink` the encoding of a source's listing, part by part (its resources left
/// out): `u32 folders, u32 count skill*, u32 count diagnostic*`, every path written.
pub(crate) fn encode_listing<S: std::borrow::Borrow<SkillMetadata>>(
    folders: usize,
    skills: &[S],
    diagnostics: &[Diagnostic],
    sink: &mut dyn FnMut(&[u8]),
) {
    let mut part = Vec::new();
    put_len(&mut part, folders);
    put_len(&mut part, skills.len());
    for skill in skills {
        put_skill(&mut part, skill.borrow(), "");
        sink(&part);
        part.clear();
    }
    // Each diagnostic goes as it is encoded, like each skill: gathered, a large library's
    // (thereisnotime's 8,000 warnings, 3 MB) grew one buffer at a first start's peak.
    put_len(&mut part, diagnostics.len());
    for diagnostic in diagnostics {
        sink(&part);
        part.clear();
        put_diagnostic(&mut part, diagnostic, "");
    }
    sink(&part);
}

/// The outcome [`encode`] wrote to `bytes` for the file at `path`; `None` if `bytes` is
/// not such an encoding, whole.
pub(crate) fn decode(bytes: &[u8], path: &str) -> Option<ParseOutcome> {
    let mut reader = Reader { bytes };
    let outcome = reader.outcome(path)?;
    reader.bytes.is_empty().then_some(outcome)
}

fn json<T: serde::Serialize>(value: &T) -> String {
    // Serializing these types cannot fail: they are maps of strings and plain structs.
    serde_json::to_string(value).unwrap_or_default()
}

pub(crate) fn put_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
}

pub(crate) fn put_str(out: &mut Vec<u8>, text: &str) {
    put_len(out, text.len());
    out.extend_from_slice(text.as_bytes());
}

/// A frontmatter value: a tag (0 null, 1 text, 2 list, 3 map) and its content.
fn put_value(out: &mut Vec<u8>, value: &FrontmatterValue) {
    match value {
        FrontmatterValue::Null => out.push(0),
        FrontmatterValue::Text(text) => {
            out.push(1);
            put_str(out, text);
        }
        FrontmatterValue::List(items) => {
            out.push(2);
            put_len(out, items.len());
            for item in items {
                put_value(out, item);
            }
        }
        FrontmatterValue::Map(map) => {
            out.push(3);
            put_len(out, map.len());
            for (key, item) in map {
                put_str(out, key);
                put_value(out, item);
            }
        }
    }
}

fn put_opt(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => {
            out.push(1);
            put_str(out, text);
        }
        None => out.push(0),
    }
}

/// Reads what the `put_*` functions wrote, failing (`None`) on anything short or malformed.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(taken)
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    pub(crate) fn len(&mut self) -> Option<usize> {
        let bytes: [u8; 4] = self.take(4)?.try_into().ok()?;
        Some(u32::from_le_bytes(bytes) as usize)
    }

    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let len = self.len()?;
        utf8::checked(self.take(len)?)
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    fn opt(&mut self) -> Option<Option<&'a str>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }

    /// A count of items, each at least `min_bytes` long: never more than the bytes left
    /// could hold, so a damaged count cannot reserve a huge vector.
    fn count(&mut self, min_bytes: usize) -> Option<usize> {
        let count = self.len()?;
        (count.saturating_mul(min_bytes) <= self.bytes.len()).then_some(count)
    }

    fn path(&mut self, own: &str) -> Option<String> {
        Some(self.opt()?.unwrap_or(own).to_owned())
    }

    fn outcome(&mut self, own: &str) -> Option<ParseOutcome> {
        let skill = match self.byte()? {
            0 => None,
            1 => Some(self.skill(own)?),
            _ => return None,
        };
        let count = self.count(10)?;
        let mut diagnostics = Vec::with_capacity(count);
        for _ in 0..count {
            diagnostics.push(self.diagnostic(own)?);
        }
        Some(ParseOutcome { skill, diagnostics })
    }

    pub(crate) fn diagnostic(&mut self, own: &str) -> Option<Diagnostic> {
        let path = self.path(own)?;
        let kind = DiagnosticKind::from_name(self.str()?)?;
        let message = self.string()?;
        let cut = match self.opt()? {
            Some(cut) => Some(serde_json::from_str(cut).ok()?),
            None => None,
        };
        Some(Diagnostic {
            path,
            kind,
            message,
            cut,
        })
    }

    /// A value [`put_value`] wrote, `depth` levels inside another (a damaged file cannot
    /// nest deeper than the YAML reader lets a frontmatter nest).
    fn value(&mut self, depth: usize) -> Option<FrontmatterValue> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        Some(match self.byte()? {
            0 => FrontmatterValue::Null,
            1 => FrontmatterValue::Text(self.string()?),
            2 => {
                let count = self.count(1)?;
                let mut items = Vec::with_capacity(count);
                for _ in 0..count {
                    items.push(self.value(depth + 1)?);
                }
                FrontmatterValue::List(items)
            }
            3 => {
                let count = self.count(5)?;
                let mut map = Vec::with_capacity(count);
                for _ in 0..count {
                    map.push((self.string()?, self.value(depth + 1)?));
                }
                FrontmatterValue::Map(map.into_iter().collect())
            }
            _ => return None,
        })
    }

    /// A value [`put_value`] wrote, passed over without being made, `depth` levels
    /// inside another.
    fn skip_value(&mut self, depth: usize, text: bool) -> Option<()> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        match self.byte()? {
            0 => {}
            1 => {
                self.raw_str(text)?;
            }
            2 => {
                for _ in 0..self.count(1)? {
                    self.skip_value(depth + 1, text)?;
                }
            }
            3 => {
                for _ in 0..self.count(5)? {
                    self.raw_str(text)?;
                    self.skip_value(depth + 1, text)?;
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// The bytes of the next string, checked as text when `text` says so.
    fn raw_str(&mut self, text: bool) -> Option<&'a [u8]> {
        let len = self.len()?;
        let bytes = self.take(len)?;
        if text {
            utf8::checked(bytes)?;
        }
        Some(bytes)
    }

    /// Walks the entries of a skill's `extra` map (`u32 count (str key value)*`)
    /// without keeping them: whether their keys are in order, `None` when the bytes are
    /// not such entries or, with `text`, a string is not UTF-8.
    fn walk_extra(&mut self, text: bool) -> Option<bool> {
        let count = self.count(5)?;
        let mut last: Option<&[u8]> = None;
        let mut in_order = true;
        for _ in 0..count {
            // Bytes compare in the order their text does.
            let key = self.raw_str(text)?;
            in_order &= last.is_none_or(|last| last < key);
            last = Some(key);
            self.skip_value(0, text)?;
        }
        Some(in_order)
    }

    /// A skill's frontmatter keys beyond the specification, checked whole but kept as
    /// their bytes: decoded only when something reads them ([`FieldMap`]'s kept form).
    /// The structure is walked first; the strings' UTF-8 is then checked once for the
    /// whole map when all its bytes are ASCII (most frontmatter is), string by string
    /// otherwise (a check a string spent more than the walk itself).
    fn extra(&mut self) -> Option<FieldMap<FrontmatterValue>> {
        let start = self.bytes;
        let in_order = self.walk_extra(false)?;
        let bytes = start.get(..start.len() - self.bytes.len())?;
        if !bytes.is_ascii() {
            Reader { bytes }.walk_extra(true)?;
        }
        if !in_order {
            // Not as a map writes itself: made now, the way any list of entries is.
            return Some(decode_extra(bytes)?.into_iter().collect());
        }
        // No entries: the map is its count alone.
        if bytes == 0u32.to_le_bytes() {
            return Some(FieldMap::new());
        }
        Some(FieldMap::kept(bytes.into(), decode_extra))
    }

    pub(crate) fn skill(&mut self, own: &str) -> Option<SkillMetadata> {
        let path = self.path(own)?;
        let name = self.string()?;
        let description = self.string()?;
        let license = self.opt()?.map(str::to_owned);
        let compatibility = self.opt()?.map(str::to_owned);
        let count = self.count(8)?;
        let mut metadata = Vec::with_capacity(count);
        for _ in 0..count {
            metadata.push((self.string()?, self.string()?));
        }
        let count = self.count(4)?;
        let mut allowed_tools = Vec::with_capacity(count);
        for _ in 0..count {
            allowed_tools.push(self.string()?);
        }
        let extra = self.extra()?;
        let extensions = match self.opt()? {
            Some(extensions) => Some(serde_json::from_str(extensions).ok()?),
            None => None,
        };
        Some(SkillMetadata {
            path,
            name,
            description,
            license,
            compatibility,
            metadata: metadata.into_iter().collect(),
            allowed_tools,
            extra,
            extensions,
        })
    }
}

/// The entries of a skill's `extra` map as [`Reader::extra`] kept them: `u32 count
/// (str key value)*`, whole.
fn decode_extra(bytes: &[u8]) -> Option<Vec<(String, FrontmatterValue)>> {
    let mut reader = Reader { bytes };
    let count = reader.count(5)?;
    let mut extra = Vec::with_capacity(count);
    for _ in 0..count {
        extra.push((reader.string()?, reader.value(0)?));
    }
    reader.bytes.is_empty().then_some(extra)
}

/// Appends what precedes an entry's encoded parse in the bytes: its path, its etag and the
/// parse's length (written by [`ParseCache::write_bytes`](crate::ParseCache::write_bytes) and by a
/// spilling cache alike).
pub(crate) fn put_entry_head(head: &mut Vec<u8>, path: &str, etag: &str, len: usize) {
    put_str(head, path);
    put_str(head, etag);
    put_len(head, len);
}

#[cfg(test)]
#[path = "cache_codec_tests.rs"]
mod tests;

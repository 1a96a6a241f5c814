//! The pretty JSON of a top-level list, written a batch of items at a time on two
//! threads, each item at its place in the list (one level in) in a single pass.

use std::io::{self, Write};

use serde_json::ser::Formatter;

use super::json_text::push_text;
use crate::output::{BATCH, write_in_batches};

/// `serde_json`'s `PrettyFormatter` (two spaces a level), started one level in: what
/// the pretty JSON of a list holds for each of its items. `PrettyFormatter` always starts
/// at the left margin, and indenting its text afterwards took a second pass over every
/// line (a tenth of the formatting's time).
#[derive(Debug)]
pub(super) struct ListItemFormatter {
    level: usize,
    has_value: bool,
}

impl ListItemFormatter {
    /// A formatter for a value `level` levels in (1 for an item of a top-level list).
    fn at(level: usize) -> Self {
        Self {
            level,
            has_value: false,
        }
    }

    fn new_line<W: ?Sized + Write>(&self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b"\n")?;
        for _ in 0..self.level {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.new_line(writer)?;
        }
        writer.write_all(bracket)
    }

    fn next_entry<W: ?Sized + Write>(&self, writer: &mut W, first: bool) -> io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        self.new_line(writer)
    }
}

impl Formatter for ListItemFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.next_entry(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.next_entry(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// An object one level into a top-level list, written field by field as
/// `serde_json`'s pretty printer writes it (the item of a list that most outputs are
/// made of: `list --json` of 2,800 skills spent a fifth of its instructions in
/// `serde_json` escaping strings a byte at a time, by `callgrind`). A field whose value
/// is anything but text, a flag or a list or map of text goes through `serde_json`.
pub(super) struct ItemObject<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> ItemObject<'a> {
    /// Opens the object at the end of `out`.
    pub(super) fn begin(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Self { out, first: true }
    }

    fn key(&mut self, key: &str) {
        self.out
            .extend_from_slice(if self.first { b"\n    \"" } else { b",\n    \"" });
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
        self.first = false;
    }

    /// A field whose value is text.
    pub(super) fn text(&mut self, key: &str, value: &str) {
        self.key(key);
        push_text(self.out, value);
    }

    /// A field whose value is text or `null`.
    pub(super) fn maybe_text(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(value) => self.text(key, value),
            None => {
                self.key(key);
                self.out.extend_from_slice(b"null");
            }
        }
    }

    /// A field whose value is `true` or `false`.
    pub(super) fn flag(&mut self, key: &str, value: bool) {
        self.key(key);
        self.out.extend_from_slice(if value { b"true" } else { b"false" });
    }

    /// A field whose value is a list of text.
    pub(super) fn texts<'t>(&mut self, key: &str, values: impl IntoIterator<Item = &'t str>) {
        self.key(key);
        self.nested(b'[', b']', values, push_text);
    }

    /// A field whose value is a map of text to text.
    pub(super) fn text_map<'t>(&mut self, key: &str, entries: impl IntoIterator<Item = (&'t str, &'t str)>) {
        self.key(key);
        self.nested(b'{', b'}', entries, |out, (key, value)| {
            push_text(out, key);
            out.extend_from_slice(b": ");
            push_text(out, value);
        });
    }

    /// A list or map two levels in: `[]` or `{}` when empty, one entry a line otherwise.
    fn nested<T>(
        &mut self,
        open: u8,
        close: u8,
        entries: impl IntoIterator<Item = T>,
        mut entry: impl FnMut(&mut Vec<u8>, T),
    ) {
        self.out.push(open);
        let mut empty = true;
        for item in entries {
            self.out
                .extend_from_slice(if empty { b"\n      " } else { b",\n      " });
            entry(self.out, item);
            empty = false;
        }
        if !empty {
            self.out.extend_from_slice(b"\n    ");
        }
        self.out.push(close);
    }

    /// A field whose value `serde_json` writes.
    pub(super) fn value(&mut self, key: &str, value: &impl serde::Serialize) -> serde_json::Result<()> {
        self.key(key);
        let mut serializer = serde_json::Serializer::with_formatter(&mut *self.out, ListItemFormatter::at(2));
        value.serialize(&mut serializer)
    }

    /// Closes the object.
    pub(super) fn end(self) {
        self.out.extend_from_slice(if self.first { b"}" } else { b"\n  }" });
    }
}

/// `value` as one item of a top-level list, written by `serde_json` (what the writers
/// above are checked against).
#[cfg(test)]
pub(super) fn serde_item(out: &mut Vec<u8>, value: &impl serde::Serialize) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, ListItemFormatter::at(1));
    value.serialize(&mut serializer)
}

impl super::SkillJson<'_> {
    /// The skill's fields, as its `Serialize` writes them.
    pub(super) fn write_fields(&self, item: &mut ItemObject<'_>) -> serde_json::Result<()> {
        item.text("name", self.name);
        item.text("description", self.description);
        item.text("path", self.path);
        item.maybe_text("license", self.license);
        item.maybe_text("compatibility", self.compatibility);
        item.text_map("metadata", self.metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        item.texts("allowed_tools", self.allowed_tools.iter().map(String::as_str));
        item.flag("model_invocable", self.model_invocable);
        item.flag("user_invocable", self.user_invocable);
        if let Some(extensions) = self.extensions {
            item.value("extensions", extensions)?;
        }
        item.text("source", self.source);
        Ok(())
    }
}

/// Writes items 0 to `n - 1` as a pretty JSON array, `write_item(i, out)` adding item
/// `i` one level in, as `serde_json::to_writer_pretty` writes it in a list ([`ItemObject`]
/// and [`ListItemFormatter`] write that way), with the items formatted on two threads a
/// batch at a time ([`write_in_batches`]): formatting is most of the output's time, and
/// the other core is idle by then (`list --json` of 8,000 real skills: median 374 to 361
/// ms over 20 interleaved runs). Memory stays at a few batches of text; no item is held
/// longer than its batch.
pub(super) fn write_json_items(
    out: &mut impl std::io::Write,
    n: usize,
    write_item: impl Fn(usize, &mut Vec<u8>) -> serde_json::Result<()> + Sync,
) -> anyhow::Result<()> {
    if n == 0 {
        writeln!(out, "[]")?;
        return Ok(());
    }
    out.write_all(b"[\n")?;
    write_in_batches(out, n.div_ceil(BATCH), |batch, text| -> serde_json::Result<()> {
        for i in batch * BATCH..((batch + 1) * BATCH).min(n) {
            text.extend_from_slice(if i > 0 { b",\n  " } else { b"  " });
            write_item(i, text)?;
        }
        Ok(())
    })?;
    out.write_all(b"\n]\n")?;
    Ok(())
}

#[cfg(test)]
#[path = "json_items_tests.rs"]
mod tests;

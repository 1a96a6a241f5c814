//! The pretty JSON of one item of a top-level list, written at its place in the list (one
//! level in) in a single pass.

use std::io::{self, Write};

use serde_json::ser::Formatter;

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
    /// A formatter for one item of a top-level list.
    pub(super) fn new() -> Self {
        Self {
            level: 1,
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

#[cfg(test)]
mod tests {
    use serde::Serialize as _;
    use serde_json::json;

    use super::ListItemFormatter;

    /// What the formatter writes for `value`, after the two spaces its line opens with.
    fn item(value: &serde_json::Value) -> String {
        let mut out = b"  ".to_vec();
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, ListItemFormatter::new());
        value.serialize(&mut serializer).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_item_reads_as_in_a_pretty_printed_list() {
        let values = [
            json!({"name": "web", "tags": ["a", "b"], "metadata": {}, "none": [], "nested": {"x": [1, {"y": null}]}}),
            json!({}),
            json!([]),
            json!("text with \"quotes\"\nand a line break"),
            json!([[], {}, [1, [2]], {"k": {"j": []}}]),
        ];
        for value in values {
            let list = serde_json::to_string_pretty(&json!([value])).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(list, format!("[\n{}\n]", item(&value)), "{value}");
        }
    }
}

//! Flow collections of the common shape (see [`yaml_simple`](crate::yaml_simple)), read
//! without the general YAML scanner.
//!
//! A large share of real frontmatter keeps its `metadata` as JSON: on one line
//! (`metadata: {"openclaw":{"requires":{"bins":["curl"]}}}`) or over the lines below the
//! key. [`collection`] reads a flow sequence or mapping of that kind: nested collections,
//! quoted scalars closed on their line (double-quoted ones with YAML's escapes, but no
//! escaped quote), plain words, JSON-style `"key":value` and one trailing comma before a
//! closer. It may go on over lines indented past the key.
//!
//! Anything else returns `None` and the general parser reads the whole text: a plain
//! scalar holding `:`, `#` or a quote, an empty entry, a key without a value, a
//! collection as a key, a quoted scalar over lines, a blank line or a line not indented
//! past the key inside the collection, text after its closer.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

use crate::yaml_lines::{Lines, closing_quote, indent_of, is_blank, plain_ok, unescape, unquote_single};

/// Deepest nesting read here; deeper goes to the general parser (and its limits).
const MAX_DEPTH: usize = 16;

/// The events of the flow collection that starts `first` (the value on its key's line,
/// from its `[` or `{`) to `out`, taking the lines after it from `lines` while it is
/// open; each must be indented past `indent`, the key's column. `None` when the text is
/// outside the shape (see the module docs).
pub(crate) fn collection<'a>(
    first: &'a str,
    indent: usize,
    lines: &mut Lines<'a>,
    out: &mut Vec<Event<'a>>,
) -> Option<()> {
    let mut cursor = Cursor {
        line: first,
        lines,
        indent,
    };
    cursor.collection(out, 0)?;
    is_blank(cursor.line).then_some(())
}

/// Where the reading is: the rest of the current line, and the lines after it.
struct Cursor<'a, 'l> {
    line: &'a str,
    lines: &'l mut Lines<'a>,
    indent: usize,
}

impl<'a> Cursor<'a, '_> {
    /// The next character past spaces, moving to the next line when this one is done;
    /// `None` at the end of the text, or at a blank line or one not indented past the key.
    fn peek(&mut self) -> Option<u8> {
        loop {
            self.line = self.line.trim_start_matches(' ');
            if let Some(&b) = self.line.as_bytes().first() {
                return Some(b);
            }
            let next = self.lines.next()?;
            if is_blank(next) || indent_of(next) <= self.indent {
                return None;
            }
            self.line = next;
        }
    }

    fn skip(&mut self, n: usize) {
        self.line = &self.line[n..];
    }

    /// A `[...]` or `{...}` at the cursor.
    fn collection(&mut self, out: &mut Vec<Event<'a>>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (close, mapping) = match self.peek()? {
            b'[' => (b']', false),
            b'{' => (b'}', true),
            _ => return None,
        };
        self.skip(1);
        out.push(if mapping {
            Event::MappingStart(0, None)
        } else {
            Event::SequenceStart(0, None)
        });
        let mut first = true;
        loop {
            let mut next = self.peek()?;
            if !first && next != close {
                if next != b',' {
                    return None;
                }
                self.skip(1);
                next = self.peek()?;
            }
            if next == close {
                self.skip(1);
                break;
            }
            first = false;
            if mapping {
                self.entry(out, depth)?;
            } else {
                self.node(out, depth)?;
            }
        }
        out.push(if mapping { Event::MappingEnd } else { Event::SequenceEnd });
        Some(())
    }

    /// `key: value` in a flow mapping: a scalar key, its `:` right after it on its line
    /// (for a plain key, followed by a space or the line's end), and a value.
    fn entry(&mut self, out: &mut Vec<Event<'a>>, depth: usize) -> Option<()> {
        let quoted = matches!(self.peek()?, b'"' | b'\'');
        out.push(self.scalar(true)?);
        if self.line.as_bytes().first() != Some(&b':') {
            return None;
        }
        self.skip(1);
        if !(quoted || self.line.is_empty() || self.line.starts_with(' ')) {
            return None;
        }
        // An empty value (`{a: , b: 1}`) is left to the general parser.
        if matches!(self.peek()?, b',' | b'}' | b']') {
            return None;
        }
        self.node(out, depth)
    }

    /// A value: a nested collection or a scalar.
    fn node(&mut self, out: &mut Vec<Event<'a>>, depth: usize) -> Option<()> {
        match self.peek()? {
            b'[' | b'{' => self.collection(out, depth + 1),
            _ => {
                out.push(self.scalar(false)?);
                Some(())
            }
        }
    }

    /// A quoted scalar closed on its line, or a plain one that ends
    /// before a `,`, a bracket, a brace or (for a `key`) the `:` after it. A value that
    /// runs to the line's end must be followed by a `,` or a closer: any other text on
    /// the next line would continue it.
    fn scalar(&mut self, key: bool) -> Option<Event<'a>> {
        let line = self.line;
        if let Some(quote @ (b'"' | b'\'')) = line.as_bytes().first().copied() {
            let quote = char::from(quote);
            let inner = &line[1..];
            let close = closing_quote(inner, quote)?;
            let text = &inner[..close];
            // An escaped quote would close early here: `\"` is left to the general parser.
            if quote == '"' && text.ends_with('\\') {
                return None;
            }
            self.skip(close + 2);
            let (text, style) = if quote == '\'' {
                (unquote_single(text), ScalarStyle::SingleQuoted)
            } else {
                (unescape(text)?, ScalarStyle::DoubleQuoted)
            };
            return Some(Event::Scalar(text, style, 0, None));
        }
        let end = line.find(|c: char| ",[]{}:#'\"".contains(c)).unwrap_or(line.len());
        let text = line[..end].trim_end_matches(' ');
        if text.is_empty() || !plain_ok(text) {
            return None;
        }
        match line.as_bytes().get(end) {
            // A `:` ends a key; in a value it would start a pair.
            Some(b':') if key => {}
            Some(b',' | b']' | b'}') if !key => {}
            None if !key => {
                self.skip(end);
                return matches!(self.peek(), Some(b',' | b']' | b'}')).then(|| plain_event(text));
            }
            _ => return None,
        }
        // A key's `:` must follow it at once (`a : b` is left to the general parser).
        if key && text.len() != end {
            return None;
        }
        self.skip(end);
        Some(plain_event(text))
    }
}

fn plain_event(text: &str) -> Event<'_> {
    Event::Scalar(Cow::Borrowed(text), ScalarStyle::Plain, 0, None)
}

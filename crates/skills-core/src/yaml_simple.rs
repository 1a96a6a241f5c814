//! The common shape of frontmatter, read without the general YAML scanner.
//!
//! Most real `SKILL.md` frontmatter is a flat mapping of one-line scalars with a few
//! nested blocks: mappings (`metadata:` and the mappings under it) and lists of scalars
//! (`allowed-tools:`). For text of that shape and nothing else, [`events`] produces the
//! event stream `saphyr-parser` would produce, several times faster; [`yaml`](crate::yaml)
//! builds the tree from either stream with the same code, so duplicate keys, limits and
//! scalar resolution cannot differ.
//!
//! A value may also be a flow collection ([`yaml_flow`](crate::yaml_flow)): a list of
//! words (`[Read, Write]`) or JSON (`{"openclaw":{"emoji":"x"}}`), on one line or over
//! the lines below its key.
//!
//! A list item may be a mapping (`- id: brew` and its other keys below), and a
//! double-quoted scalar on one line may hold escapes (`"\U0001f4b0"`), decoded as YAML
//! decodes them.
//!
//! Anything outside the shape (a comment after a value or inside a nested block, a
//! surrogate escape, a block scalar below the top level, an anchor, a tab, a list
//! item that is not a scalar, a continuation line below the top level, a character YAML
//! does not print) returns `None`, and the general parser reads the text. The shape is
//! chosen so that every text it accepts is valid YAML read the one way: `yaml_tests.rs`
//! compares both readers on generated documents.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

use crate::yaml_lines::{Lines, closing_quote, indent_of, is_blank, plain_ok, unquote_single};

/// Longest key read here (the general scanner refuses simple keys past 1,024 characters).
const MAX_KEY: usize = 128;

/// The events of `src` when it has the common shape (see the module docs), else `None`.
#[cfg(test)]
pub(crate) fn events(src: &str) -> Option<Vec<Event<'_>>> {
    let mut out = Vec::new();
    events_into(src, &mut out).map(|()| out)
}

/// [`events`] into `out` (emptied first; partly filled when the text has another shape).
pub(crate) fn events_into<'a>(src: &'a str, out: &mut Vec<Event<'a>>) -> Option<()> {
    out.clear();
    // Tabs and carriage returns have rules of their own; the other characters are
    // refused anywhere, comments included.
    if !all_printable(src) {
        return None;
    }
    let mut lines = crate::yaml_lines::lines(src);
    // About two events a line, and the six around them: sized once, not grown.
    out.reserve(2 * line_breaks(src) + 8);
    out.extend([
        Event::StreamStart,
        Event::DocumentStart(false),
        Event::MappingStart(0, None),
    ]);
    let mut keys = 0usize;
    while let Some(line) = lines.next() {
        if is_blank(line) || line.starts_with('#') {
            continue;
        }
        let (key, rest) = key_line(line)?;
        keys += 1;
        out.push(plain(key));
        if let Some(chomp) = rest.strip_prefix(['|', '>']) {
            let folded = rest.starts_with('>');
            let strip = match chomp {
                "" => false,
                "-" => true,
                _ => return None,
            };
            out.push(block_scalar(&mut lines, folded, strip)?);
            continue;
        }
        if rest.starts_with(['[', '{']) {
            crate::yaml_flow::collection(rest, 0, &mut lines, out)?;
            continue;
        }
        if !rest.is_empty() {
            let Some(first) = scalar(rest) else {
                // A quoted value that goes on over the next lines, or something else.
                out.push(quoted_lines(rest, &mut lines)?);
                continue;
            };
            let plain_first = matches!(first, Event::Scalar(_, ScalarStyle::Plain, ..));
            let continued = lines.peek().is_some_and(|l| l.starts_with(' ') && !is_blank(l));
            out.push(if plain_first && continued {
                plain_lines(Some(rest), &mut lines)?
            } else {
                first
            });
            continue;
        }
        nested(&mut lines, 0, 0, out)?;
    }
    if keys == 0 {
        return None;
    }
    out.extend([Event::MappingEnd, Event::DocumentEnd, Event::StreamEnd]);
    Some(())
}

/// Most levels of nested blocks read here; deeper goes to the general parser.
const MAX_DEPTH: usize = 8;

/// The value of a `key:` at column `key_indent` with nothing after its colon, from the
/// lines below: a block list (at the key's column or deeper), a flow collection or a
/// nested mapping (deeper), a plain scalar over lines (deeper, top-level keys only), or
/// an empty value.
fn nested<'a>(lines: &mut Lines<'a>, key_indent: usize, depth: usize, out: &mut Vec<Event<'a>>) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    while lines.peek().is_some_and(|l| is_blank(l)) {
        lines.next();
    }
    let Some(next) = lines.peek() else {
        out.push(plain(""));
        return Some(());
    };
    let indent = indent_of(next);
    let body = &next[indent..];
    if is_item(body) && indent >= key_indent {
        out.push(Event::SequenceStart(0, None));
        block(lines, indent, indent == key_indent, out, |item, lines, out| {
            let after = item.strip_prefix('-')?;
            let value = after.trim_matches(' ');
            (!value.is_empty()).then_some(())?;
            if key_line(value).is_none() {
                out.push(scalar(value)?);
                return Some(());
            }
            // `- key: value`: a mapping whose other keys line up under the first.
            mapping(Some(value), indent + 1 + indent_of(after), lines, out, depth)
        })?;
        out.push(Event::SequenceEnd);
    } else if indent > key_indent && body.starts_with(['[', '{']) {
        lines.next();
        crate::yaml_flow::collection(body, key_indent, lines, out)?;
    } else if indent > key_indent && key_line(body).is_none() {
        // Below a nested key, the lines would fold by the nested block's indent.
        if key_indent > 0 {
            return None;
        }
        out.push(plain_lines(None, lines)?);
    } else if indent > key_indent {
        mapping(None, indent, lines, out, depth)?;
    } else {
        out.push(plain(""));
    }
    Some(())
}

/// A nested mapping whose keys are at column `indent`: its `first` line when the caller
/// took it already (a list item's), then the lines below at that column.
fn mapping<'a>(
    first: Option<&'a str>,
    indent: usize,
    lines: &mut Lines<'a>,
    out: &mut Vec<Event<'a>>,
    depth: usize,
) -> Option<()> {
    out.push(Event::MappingStart(0, None));
    if let Some(first) = first {
        entry(first, indent, lines, out, depth)?;
    }
    block(lines, indent, false, out, |line, lines, out| {
        entry(line, indent, lines, out, depth)
    })?;
    out.push(Event::MappingEnd);
    Some(())
}

/// One `key: value` line of a nested mapping whose keys are at column `indent`, with
/// what its value takes from the lines below.
fn entry<'a>(
    line: &'a str,
    indent: usize,
    lines: &mut Lines<'a>,
    out: &mut Vec<Event<'a>>,
    depth: usize,
) -> Option<()> {
    let (key, rest) = key_line(line)?;
    out.push(plain(key));
    if rest.starts_with(['[', '{']) {
        crate::yaml_flow::collection(rest, indent, lines, out)
    } else if rest.is_empty() {
        nested(lines, indent, depth + 1, out)
    } else {
        out.push(scalar(rest)?);
        Some(())
    }
}

/// Reads the lines of one nested block, all at `indent`, each turned into events by
/// `item` (which may take more lines, as a nested block or a flow collection does); ends
/// before the first line indented less, or (for a list at its key's column, `indentless`)
/// before the first line at `indent` that is not one of its items. `None` for a line
/// indented more, a comment, or anything `item` refuses.
fn block<'a>(
    lines: &mut Lines<'a>,
    indent: usize,
    indentless: bool,
    out: &mut Vec<Event<'a>>,
    mut item: impl FnMut(&'a str, &mut Lines<'a>, &mut Vec<Event<'a>>) -> Option<()>,
) -> Option<()> {
    while let Some(line) = lines.peek().copied() {
        if is_blank(line) {
            lines.next();
            continue;
        }
        let at = indent_of(line);
        let body = &line[at..];
        if at < indent || (indentless && !is_item(body)) {
            return Some(());
        }
        if at > indent || body.starts_with('#') {
            return None;
        }
        lines.next();
        item(body, lines, out)?;
    }
    Some(())
}

fn is_item(body: &str) -> bool {
    body == "-" || body.starts_with("- ")
}

/// A block scalar (`|`, `|-`, `>`, `>-`) whose header was read: its content lines, all
/// indented at least as the first one; no leading empty line, no line more indented than
/// the first in a folded scalar (those fold by rules of their own).
fn block_scalar(lines: &mut Lines<'_>, folded: bool, strip: bool) -> Option<Event<'static>> {
    let first = lines.peek().filter(|l| !is_blank(l))?;
    let indent = indent_of(first);
    if indent == 0 {
        return None;
    }
    let mut text = String::new();
    let mut empties = 0usize;
    let mut any = false;
    while let Some(line) = lines.peek().copied() {
        if is_blank(line) {
            // Spaces on an empty line are content or not by rules of their own (and at
            // the end of the text, by the general parser's own reading).
            if !line.is_empty() {
                return None;
            }
            empties += 1;
            lines.next();
            continue;
        }
        let at = indent_of(line);
        if at < indent {
            break;
        }
        let content = &line[indent..];
        if folded && content.starts_with(' ') {
            return None;
        }
        if any {
            if folded && empties == 0 {
                text.push(' ');
            } else {
                let breaks = if folded { empties } else { empties + 1 };
                text.extend(std::iter::repeat_n('\n', breaks));
            }
        }
        text.push_str(content);
        empties = 0;
        any = true;
        lines.next();
    }
    if !strip {
        text.push('\n');
    }
    let style = if folded {
        ScalarStyle::Folded
    } else {
        ScalarStyle::Literal
    };
    Some(Event::Scalar(Cow::Owned(text), style, 0, None))
}

/// A plain scalar over several lines: `first` (on the key's line, when there) and the
/// indented lines after it, folded (one space per line break, one line break per empty
/// line). Each line must be plain on its own.
fn plain_lines(first: Option<&str>, lines: &mut Lines<'_>) -> Option<Event<'static>> {
    let mut text = first.unwrap_or_default().to_owned();
    let mut empties = 0usize;
    while let Some(line) = lines.peek().copied() {
        if is_blank(line) {
            empties += 1;
            lines.next();
            continue;
        }
        if !line.starts_with(' ') {
            break;
        }
        let content = line.trim_matches(' ');
        if !plain_ok(content) {
            return None;
        }
        if !text.is_empty() {
            if empties == 0 {
                text.push(' ');
            } else {
                text.extend(std::iter::repeat_n('\n', empties));
            }
        }
        text.push_str(content);
        empties = 0;
        lines.next();
    }
    Some(Event::Scalar(Cow::Owned(text), ScalarStyle::Plain, 0, None))
}

/// A quoted scalar that does not close on its key's line: `first` (from its opening
/// quote) and the indented lines after it up to the closing quote, folded as YAML folds
/// flow scalars: spaces around a line break dropped, the break read as one space, or as
/// one line break per empty line after it. In single quotes `''` is a quote; a double
/// quote, a backslash, a line at column 0 or text after the closing quote leave the
/// value to the general parser.
fn quoted_lines(first: &str, lines: &mut Lines<'_>) -> Option<Event<'static>> {
    let (quote, style) = match first.as_bytes().first() {
        Some(b'\'') => ('\'', ScalarStyle::SingleQuoted),
        Some(b'"') => ('"', ScalarStyle::DoubleQuoted),
        _ => return None,
    };
    if quote == '"' && first.contains('\\') {
        return None;
    }
    let unquote = |content| match quote {
        '\'' => unquote_single(content),
        _ => Cow::Borrowed(content),
    };
    let mut text = String::new();
    let mut line = &first[1..];
    let mut empties = None;
    loop {
        let close = closing_quote(line, quote);
        let content = &line[..close.unwrap_or(line.len())];
        let content = if empties.is_some() {
            content.trim_start_matches(' ')
        } else {
            content
        };
        match empties {
            Some(0) => text.push(' '),
            Some(n) => text.extend(std::iter::repeat_n('\n', n)),
            None => {}
        }
        if let Some(close) = close {
            text.push_str(&unquote(content));
            return line[close + 1..].trim_matches(' ').is_empty().then_some(Event::Scalar(
                Cow::Owned(text),
                style,
                0,
                None,
            ));
        }
        text.push_str(&unquote(content.trim_end_matches(' ')));
        let mut blank = 0;
        line = loop {
            let next = lines.next()?;
            if is_blank(next) {
                blank += 1;
            } else if next.starts_with(' ') && (quote == '\'' || !next.contains('\\')) {
                break next;
            } else {
                return None;
            }
        };
        empties = Some(blank);
    }
}

/// How many lines `src` has past its first.
fn line_breaks(src: &str) -> usize {
    memchr::memchr_iter(b'\n', src.as_bytes()).count()
}

/// `key: rest` or `key:` at the start of `line`: the key (ASCII letters, digits, `_`, and
/// `-`/`.` after the first character) and the rest without its surrounding spaces.
fn key_line(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    // The key's characters hold no `:`, so the first byte that is not one of them must
    // be the colon that ends it (a line without one is no `key:` line).
    let end = bytes
        .iter()
        .take(MAX_KEY + 1)
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))?;
    if bytes[end] != b':' {
        return None;
    }
    let (key, rest) = (&line[..end], &line[end + 1..]);
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_matches(' ')))
}

/// A one-line value: a plain scalar that needs no rule beyond "ends at the line's end",
/// a single-quoted one without inner quotes, or a double-quoted one whose escapes are
/// decoded (no unescaped inner quote).
fn scalar(value: &str) -> Option<Event<'_>> {
    for (quote, style) in [('\'', ScalarStyle::SingleQuoted), ('"', ScalarStyle::DoubleQuoted)] {
        if value.starts_with(quote) {
            let inner = value.strip_prefix(quote)?.strip_suffix(quote)?;
            if quote == '"' {
                return Some(Event::Scalar(crate::yaml_lines::unescape(inner)?, style, 0, None));
            }
            if inner.contains(quote) {
                return None;
            }
            return Some(Event::Scalar(Cow::Borrowed(inner), style, 0, None));
        }
    }
    plain_ok(value).then(|| plain(value))
}

fn plain(text: &str) -> Event<'_> {
    Event::Scalar(Cow::Borrowed(text), ScalarStyle::Plain, 0, None)
}

/// Characters YAML prints as themselves on one line, without the tab, the byte order
/// mark and the Unicode line separators.
#[cfg(test)]
fn printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
}

/// Whether every character of `src` is a line break or [`printable`], read from its
/// UTF-8 bytes without decoding: past ASCII, only the lead bytes of U+0080-U+009F
/// (`C2 80`-`C2 9F`), U+2028/U+2029 (`E2 80 A8`/`A9`), U+FEFF (`EF BB BF`) and
/// U+FFFE/U+FFFF (`EF BF BE`/`BF`) start something refused. A continuation byte
/// (`80`-`BF`) is never one of those lead bytes.
///
/// Checked 32 bytes at a time without a branch per byte (every frontmatter of a library
/// passes here): a chunk of printable ASCII and line breaks (most) is passed at once,
/// and so is one without an ASCII control, DEL or one of those three lead bytes,
/// whatever else it holds (accented letters, CJK, emoji); only a chunk with one of them
/// is read byte by byte.
fn all_printable(src: &str) -> bool {
    const CHUNK: usize = 32;
    let bytes = src.as_bytes();
    let mut chunks = bytes.chunks_exact(CHUNK);
    for (n, chunk) in chunks.by_ref().enumerate() {
        let plain = chunk
            .iter()
            .fold(true, |all, &b| all & ((b == b'\n') | (b' '..=b'~').contains(&b)));
        if !plain
            && chunk.iter().fold(false, |any, &b| any | maybe_refused(b))
            && (n * CHUNK..(n + 1) * CHUNK).any(|i| refused_at(bytes, i))
        {
            return false;
        }
    }
    let rest = bytes.len() - chunks.remainder().len();
    !(rest..bytes.len()).any(|i| refused_at(bytes, i))
}

/// Whether `b` may start something [`all_printable`] refuses (see [`refused_at`]).
#[inline]
fn maybe_refused(b: u8) -> bool {
    ((b < b' ') & (b != b'\n')) | (b == 0x7f) | (b == 0xc2) | (b == 0xe2) | (b == 0xef)
}

/// Whether the byte at `i` starts a character [`all_printable`] refuses.
fn refused_at(bytes: &[u8], i: usize) -> bool {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match bytes[i] {
        b'\n' | b' '..=b'~' => false,
        0..=0x7f => true,
        0xc2 => at(i + 1) < 0xa0,
        0xe2 => at(i + 1) == 0x80 && matches!(at(i + 2), 0xa8 | 0xa9),
        0xef => (at(i + 1) == 0xbb && at(i + 2) == 0xbf) || (at(i + 1) == 0xbf && matches!(at(i + 2), 0xbe | 0xbf)),
        _ => false,
    }
}

#[cfg(test)]
#[path = "yaml_simple_tests.rs"]
mod tests;

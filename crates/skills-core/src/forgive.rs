//! Reading YAML the way libyaml (PyYAML, the reference's reader) does where it is more
//! forgiving than YAML 1.2.
//!
//! Real `SKILL.md` files carry forms libyaml reads without a word and a strict parser
//! refuses, each of which would drop a whole skill:
//!
//! - continuation lines of a quoted value that are not indented under their key;
//! - a flow collection (`{ ... }`, `[ ... ]`) whose lines, or closing bracket, sit at
//!   column 0;
//! - a JSON-style surrogate-pair escape in a double-quoted value (`"\ud83d\udcb0"`, an
//!   emoji);
//! - a byte order mark inside the frontmatter.
//!
//! Each is repaired in the text at the place the parser stopped, and the text parsed
//! again. A repair never changes what the value says: indentation inside quoted scalars
//! and flow collections is folded away by YAML itself, a surrogate pair becomes the one
//! character it encodes, and a byte order mark is invisible. Anything else stays an error.

/// One repair of the YAML text, made where the parser stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repair {
    /// The text with the repair made.
    pub text: String,
    /// What was repaired, for a warning: `line 3: ...`.
    pub note: String,
}

/// Repairs `src` where the parser stopped with `info` at character `char_index`, when
/// the failure is one of the forms libyaml forgives.
pub(crate) fn repair(src: &str, info: &str, char_index: usize) -> Option<Repair> {
    let at = src.char_indices().nth(char_index).map(|(i, _)| i)?;
    let line = src[..at].matches('\n').count() + 1;
    let (text, what) = if info.contains("byte order mark") {
        drop_bom(src, at)?
    } else if info == "invalid indentation in quoted scalar" {
        indent_quoted(src, at)?
    } else if info.starts_with("invalid indentation") {
        indent_flow_line(src, at)?
    } else if info.contains("invalid Unicode character escape") {
        decode_surrogates(src, at)?
    } else {
        return None;
    };
    Some(Repair {
        text,
        note: format!("line {line}: {what}"),
    })
}

/// The byte offset where the line holding `at` starts.
fn line_start(src: &str, at: usize) -> usize {
    src[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn drop_bom(src: &str, at: usize) -> Option<(String, &'static str)> {
    let rest = src[at..].strip_prefix('\u{feff}')?;
    let text = format!("{}{rest}", &src[..at]);
    Some((text, "a byte order mark (U+FEFF) inside the frontmatter was dropped"))
}

/// A line of a flow collection at or left of its key's column: one more space, as often
/// as the parser asks (libyaml does not check indentation inside flow collections).
fn indent_flow_line(src: &str, at: usize) -> Option<(String, &'static str)> {
    let start = line_start(src, at);
    if !src[start..at].chars().all(|c| c == ' ') {
        return None;
    }
    let text = format!("{} {}", &src[..start], &src[start..]);
    Some((
        text,
        "a line inside `[...]` or `{...}` is not indented under its key; indent it",
    ))
}

/// The byte offset just past the quoted scalar that starts at `at`.
fn quoted_end(src: &str, at: usize) -> Option<usize> {
    let quote = src[at..].chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let mut chars = src[at + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        let i = at + 1 + i;
        match (quote, c) {
            ('"', '\\') => {
                chars.next();
            }
            ('\'', '\'') if src[i + 1..].starts_with('\'') => {
                chars.next();
            }
            (q, c) if q == c => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// Continuation lines of the quoted scalar at `at` indented one column past the line
/// it starts on. Leading blanks of continuation lines are folded away, so the value
/// is unchanged.
fn indent_quoted(src: &str, at: usize) -> Option<(String, &'static str)> {
    let end = quoted_end(src, at)?;
    let start = line_start(src, at);
    let key_indent = src[start..].chars().take_while(|c| *c == ' ').count();
    let want = key_indent + 1;
    let mut text = String::with_capacity(src.len() + 64);
    text.push_str(&src[..at]);
    let mut lines = src[at..end].split('\n');
    text.push_str(lines.next()?);
    for line in lines {
        text.push('\n');
        let blanks = line.chars().take_while(|c| matches!(c, ' ' | '\t')).count();
        if blanks < line.len() && blanks < want {
            text.extend(std::iter::repeat_n(' ', want - blanks));
        }
        text.push_str(line);
    }
    text.push_str(&src[end..]);
    Some((
        text,
        "the continuation lines of a quoted value are not indented under its key; indent them",
    ))
}

/// Surrogate-pair escapes (`\ud83d\udcb0`) in the double-quoted scalar at `at` written
/// as the character they encode, and a lone surrogate as U+FFFD.
fn decode_surrogates(src: &str, at: usize) -> Option<(String, &'static str)> {
    if !src[at..].starts_with('"') {
        return None;
    }
    let end = quoted_end(src, at)?;
    let scalar = &src[at..end];
    let mut out = String::with_capacity(scalar.len());
    let mut changed = false;
    let mut rest = scalar;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(high) = surrogate_escape(rest) else {
            // Another escape: copy it and the character it escapes.
            let escaped = rest[1..].chars().next().map_or(0, char::len_utf8);
            out.push_str(&rest[..1 + escaped]);
            rest = &rest[1 + escaped..];
            continue;
        };
        changed = true;
        let low = surrogate_escape(&rest[6..]).filter(|low| (0xdc00..0xe000).contains(low));
        match low {
            Some(low) if (0xd800..0xdc00).contains(&high) => {
                let code = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
                out.push_str(&format!("\\U{code:08x}"));
                rest = &rest[12..];
            }
            _ => {
                out.push_str("\\ufffd");
                rest = &rest[6..];
            }
        }
    }
    out.push_str(rest);
    changed.then(|| {
        (
            format!("{}{out}{}", &src[..at], &src[end..]),
            "a JSON-style surrogate-pair escape was read as the character it encodes; write `\\U` and eight hex digits",
        )
    })
}

/// The code unit of a `\uXXXX` escape at the start of `text`, when it is a surrogate.
fn surrogate_escape(text: &str) -> Option<u32> {
    let hex = text.strip_prefix("\\u")?.get(..4)?;
    let unit = u32::from_str_radix(hex, 16).ok()?;
    (0xd800..0xe000).contains(&unit).then_some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_scalars_end_at_their_closing_quote() {
        assert_eq!(quoted_end(r#""a\"b" c"#, 0), Some(6));
        assert_eq!(quoted_end("'it''s' c", 0), Some(7));
        assert_eq!(quoted_end("\"open", 0), None);
        assert_eq!(quoted_end("plain", 0), None);
    }

    #[test]
    fn surrogate_pairs_become_one_escape_and_lone_ones_a_replacement() {
        let (text, _) = decode_surrogates(r#"a: "\ud83d\udcb0 \n \udcb0 \ud83d x""#, 3).unwrap();
        assert_eq!(text, r#"a: "\U0001f4b0 \n \ufffd \ufffd x""#);
        assert_eq!(decode_surrogates(r#"a: "\u00e9""#, 3), None, "nothing to repair");
    }

    #[test]
    fn only_blank_prefixed_flow_lines_are_indented() {
        assert_eq!(indent_flow_line("a: {\n}\n", 5).unwrap().0, "a: {\n }\n");
        assert_eq!(indent_flow_line("a: {\nb }\n", 7), None);
    }

    #[test]
    fn quoted_continuations_are_indented_past_their_key() {
        let src = "  k: \"one\ntwo\n\n three\"\nnext: x\n";
        let (text, _) = indent_quoted(src, 5).unwrap();
        assert_eq!(text, "  k: \"one\n   two\n\n   three\"\nnext: x\n");
    }
}

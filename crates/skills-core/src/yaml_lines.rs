//! Line-level pieces shared by the common-shape YAML readers
//! ([`yaml_simple`](crate::yaml_simple) and [`yaml_flow`](crate::yaml_flow)).

use std::borrow::Cow;

/// How many spaces `line` starts with.
pub(crate) fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The lines of a frontmatter, read one at a time with a look at the next.
pub(crate) type Lines<'a> = std::iter::Peekable<LineSplit<'a>>;

/// The lines of `src`, as `src.split('\n')` gives them (a last empty one after a final
/// line break), found by a vectorized search for the line break.
pub(crate) fn lines(src: &str) -> Lines<'_> {
    LineSplit { rest: Some(src) }.peekable()
}

/// The iterator of [`lines`].
#[derive(Debug, Clone)]
pub(crate) struct LineSplit<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for LineSplit<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(at) => {
                self.rest = Some(&rest[at + 1..]);
                Some(&rest[..at])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

/// Where the quote closing a quoted scalar is in `line`, if it is there: in single
/// quotes a doubled quote is a quote; in double quotes (without escapes) the first one
/// closes.
pub(crate) fn closing_quote(line: &str, quote: char) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(found) = line[at..].find(quote) {
        let i = at + found;
        if quote == '\'' && bytes.get(i + 1) == Some(&b'\'') {
            at = i + 2;
            continue;
        }
        return Some(i);
    }
    None
}

/// The text of single-quoted content, in which `''` is a quote.
pub(crate) fn unquote_single(content: &str) -> Cow<'_, str> {
    if content.contains("''") {
        Cow::Owned(content.replace("''", "'"))
    } else {
        Cow::Borrowed(content)
    }
}

/// Whether `line` is empty or only spaces.
pub(crate) fn is_blank(line: &str) -> bool {
    line.bytes().all(|b| b == b' ')
}

/// Whether `text` reads as one plain scalar that ends at the line's end: no indicator
/// first, no `: ` or ` #` inside, no `:` last.
pub(crate) fn plain_ok(text: &str) -> bool {
    if text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c)) || text.ends_with(':') {
        return false;
    }
    // One pass over the value for both pairs (a description is most of the text read).
    let bytes = text.as_bytes();
    !memchr::memchr2_iter(b':', b'#', bytes).any(|at| match bytes[at] {
        b':' => bytes.get(at + 1) == Some(&b' '),
        _ => at > 0 && bytes[at - 1] == b' ',
    })
}

/// The text of a double-quoted scalar on one line, `inner` being what lies between its
/// quotes: its escapes decoded as YAML decodes them. `None` for a quote that is not
/// escaped, an unknown escape, or a code point that is no character (a surrogate: a
/// JSON-style pair is for the general parser and its repair, which says so).
pub(crate) fn unescape(inner: &str) -> Option<Cow<'_, str>> {
    if memchr::memchr2(b'\\', b'"', inner.as_bytes()).is_none() {
        return Some(Cow::Borrowed(inner));
    }
    let mut text = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {}
            _ => {
                text.push(c);
                continue;
            }
        }
        let decoded = match chars.next()? {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            kind @ ('x' | 'u' | 'U') => {
                let digits = match kind {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut code = 0u32;
                for _ in 0..digits {
                    code = code * 16 + chars.next()?.to_digit(16)?;
                }
                char::from_u32(code)?
            }
            _ => return None,
        };
        text.push(decoded);
    }
    Some(Cow::Owned(text))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::plain_ok;

    /// `plain_ok` as its documentation says it.
    fn plain_ok_as_said(text: &str) -> bool {
        !text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
            && !text.contains(": ")
            && !text.ends_with(':')
            && !text.contains(" #")
    }

    #[test]
    fn plain_ok_refuses_the_pairs_anywhere() {
        for (text, ok) in [
            ("a: b", false),
            ("a #b", false),
            ("#a", false),
            (": a", false),
            ("a:", false),
            ("a:b", true),
            ("a#b", true),
            ("é: b", false),
            ("aé #", false),
            ("http://x#y", true),
        ] {
            assert_eq!(plain_ok(text), ok, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn plain_ok_says_what_its_documentation_says(text in "[a :#é-]{0,12}") {
            prop_assert_eq!(plain_ok(&text), plain_ok_as_said(&text));
        }
    }
}

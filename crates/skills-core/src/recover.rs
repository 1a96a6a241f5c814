//! Reading the frontmatter line by line when YAML cannot: the three authoring mistakes
//! that drop real skills in every implementation, recovered with a hint that says how
//! to fix them.
//!
//! - `description: |- text`: text on the block-scalar header line.
//! - `description: Deploys apps: fast`: an unquoted `: ` inside a plain value.
//! - `description: **Bold** summary` / `description: #1 tool`: a value starting with `*`
//!   (an alias) or `#` (a comment, so YAML reads no value at all), and the reserved `@`
//!   and backtick.
//!
//! Only top-level `key: value` lines are read, and only values a person reads one way:
//! the rest of the line as written, with plain continuation lines. Quoted values that do
//! not close on their line, and keys whose value is a nested block, are left out (and
//! named), never guessed.

use crate::yaml::{self, Yaml};

/// What a line-by-line reading found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineReading {
    /// Top-level keys with the value a person reads, in file order.
    pub values: Vec<(String, String)>,
    /// Top-level keys whose value could not be read line by line (nested blocks, open
    /// quotes).
    pub unread: Vec<String>,
    /// How to fix what YAML refused, one hint per mistake found, in file order.
    pub hints: Vec<String>,
    /// The keys a hint is about: their lines and the value a person reads.
    pub mistakes: Vec<Mistake>,
    /// Top-level keys whose value is a flow list on one line, as written: YAML reads a
    /// list there, a person may read the text (`description: [TODO: ...]`).
    pub lists: Vec<(String, String)>,
}

/// A top-level key written with one of the mistakes, and what a person reads there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mistake {
    /// The lines of the frontmatter the key and its value take.
    pub lines: std::ops::Range<usize>,
    pub key: String,
    pub value: String,
}

impl LineReading {
    /// The value read for `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The one-line flow list written for `key`.
    pub fn list(&self, key: &str) -> Option<&str> {
        self.lists.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// The block-scalar header at the start of a value (`|`, `>-`, `|2+`) and the text after
/// it on the same line, when there is text.
fn header_with_text(value: &str) -> Option<(&str, &str)> {
    let first = value.chars().next()?;
    if first != '|' && first != '>' {
        return None;
    }
    let header_len = value[1..]
        .find(|c: char| !matches!(c, '-' | '+' | '0'..='9'))
        .map_or(value.len(), |i| i + 1);
    let (header, rest) = value.split_at(header_len);
    let text = rest.trim();
    (rest.starts_with(char::is_whitespace) && !text.is_empty() && !text.starts_with('#')).then_some((header, text))
}

/// Whether a key is a plain top-level mapping key (letters, digits, `-`, `_`).
fn is_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Reads the top-level `key: value` lines of `frontmatter`.
pub(crate) fn read_lines(frontmatter: &str) -> LineReading {
    let mut reading = LineReading::default();
    let lines: Vec<&str> = frontmatter.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with([' ', '\t', '#']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim_end();
        if !is_key(key) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            continue;
        }
        // The indented lines that follow belong to this key.
        let hints_before = reading.hints.len();
        let start = i;
        while i < lines.len() && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty()) {
            i += 1;
        }
        let continuation: Vec<&str> = lines[start..i]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let value = rest.trim();
        let read = if let Some((header, text)) = header_with_text(value) {
            reading.hints.push(format!(
                "`{key}`: text after `{header}` belongs on the next line, indented"
            ));
            let sep = if header.starts_with('|') { "\n" } else { " " };
            Some(std::iter::once(text).chain(continuation).collect::<Vec<_>>().join(sep))
        } else if value.starts_with('[') && value.ends_with(']') && continuation.is_empty() {
            // YAML's to read too; kept as written for a field that must be text.
            reading.lists.push((key.to_owned(), value.to_owned()));
            None
        } else if value.is_empty() || value.starts_with(['|', '>', '[', '{', '&', '!']) {
            // A nested block, a block scalar, a flow collection, an anchor or a tag: YAML's
            // to read, not ours.
            None
        } else if value.starts_with(['"', '\'']) {
            let quote = &value[..1];
            let inner = &value[1..];
            (!inner.is_empty()
                && inner.ends_with(quote)
                && continuation.is_empty()
                && !inner[..inner.len() - 1].contains(quote))
            .then(|| inner[..inner.len() - 1].to_owned())
        } else {
            if value.starts_with('#') {
                reading
                    .hints
                    .push(format!("`{key}`: `#` starts a comment: quote the value"));
            } else if value.starts_with('*') {
                reading.hints.push(format!(
                    "`{key}`: a value starting with `*` reads as an alias: quote the value"
                ));
            } else if let Some(reserved) = value.chars().next().filter(|c| matches!(c, '@' | '`' | '%')) {
                reading.hints.push(format!(
                    "`{key}`: `{reserved}` cannot start a plain value: quote the value"
                ));
            } else if value.contains(": ") || value.ends_with(':') {
                reading.hints.push(format!(
                    "`{key}`: the value holds `: `, which starts a mapping: quote the value"
                ));
            }
            let value = match value.find(" #") {
                // A comment after a plain value ends it, as in YAML.
                Some(at) if !value.starts_with('#') => value[..at].trim_end(),
                _ => value,
            };
            Some(std::iter::once(value).chain(continuation).collect::<Vec<_>>().join(" "))
        };
        match read {
            Some(value) if !value.trim().is_empty() => {
                if reading.hints.len() > hints_before {
                    reading.mistakes.push(Mistake {
                        lines: start - 1..i,
                        key: key.to_owned(),
                        value: value.clone(),
                    });
                }
                reading.values.push((key.to_owned(), value));
            }
            _ => reading.unread.push(key.to_owned()),
        }
    }
    reading
}

/// The frontmatter YAML refused (`error`), read line by line when the reason is one of
/// the common authoring mistakes and a name and a description can be read: the entries
/// and a `recovered` message that says how to fix it. Otherwise the `invalid-yaml`
/// message, with the hint when there is one.
pub(crate) fn recover(frontmatter: &str, error: &str) -> Result<(Vec<(Yaml<'static>, Yaml<'static>)>, String), String> {
    let reading = read_lines(frontmatter);
    let hints = reading.hints.join("; ");
    if reading.hints.is_empty() || reading.get("name").is_none() || reading.get("description").is_none() {
        let hint = if hints.is_empty() {
            String::new()
        } else {
            format!(" (hint: {hints})")
        };
        return Err(format!("invalid YAML in frontmatter: {error}{hint}"));
    }
    let mut message = format!("frontmatter is not valid YAML ({error}); read line by line. To fix: {hints}");
    // With the mistaken values quoted, YAML reads the rest as written.
    let quoted = quote_mistakes(frontmatter, &reading).map(|text| yaml::parse(&text).map(Yaml::into_owned));
    if let Some(Ok(Yaml::Map(entries))) = quoted {
        return Ok((entries, message));
    }
    if !reading.unread.is_empty() {
        message.push_str(&format!("; not read: {}", reading.unread.join(", ")));
    }
    let entries = reading
        .values
        .into_iter()
        .map(|(key, value)| (yaml::text_scalar(key), yaml::text_scalar(value)))
        .collect();
    Ok((entries, message))
}

/// The frontmatter with every mistaken value written as a double-quoted YAML string, so
/// that YAML can read the rest of it (nested `metadata`, lists) as written. `None` when
/// there is no mistake to rewrite.
pub(crate) fn quote_mistakes(frontmatter: &str, reading: &LineReading) -> Option<String> {
    if reading.mistakes.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(frontmatter.len() + 64);
    let mut mistakes = reading.mistakes.iter().peekable();
    let mut skip_to = 0;
    for (n, line) in frontmatter.lines().enumerate() {
        if n < skip_to {
            continue;
        }
        match mistakes.next_if(|m| m.lines.start == n) {
            Some(mistake) => {
                out.push_str(&mistake.key);
                out.push_str(": ");
                yaml::write_quoted(&mistake.value, &mut out);
                skip_to = mistake.lines.end;
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(frontmatter: &str, key: &str, expected: Option<&str>, hint: Option<&str>) {
        let reading = read_lines(frontmatter);
        assert_eq!(reading.get(key), expected, "{frontmatter:?}: {reading:?}");
        match hint {
            Some(hint) => assert!(
                reading.hints.iter().any(|h| h.contains(hint)),
                "{frontmatter:?}: {reading:?}"
            ),
            None => assert!(reading.hints.is_empty(), "{frontmatter:?}: {reading:?}"),
        }
    }

    #[test]
    fn each_mistake_reads_as_a_person_reads_it_with_its_hint() {
        check(
            "name: a\ndescription: |- Does things.\n  And more.\n",
            "description",
            Some("Does things.\nAnd more."),
            Some("belongs on the next line"),
        );
        check(
            "description: >- Folded text\n  goes on\n",
            "description",
            Some("Folded text goes on"),
            Some("next line"),
        );
        check(
            "description: Deploys apps: fast\n",
            "description",
            Some("Deploys apps: fast"),
            Some("quote the value"),
        );
        check(
            "description: **Bold** summary\n",
            "description",
            Some("**Bold** summary"),
            Some("alias"),
        );
        check(
            "description: #1 tool for PDFs\n",
            "description",
            Some("#1 tool for PDFs"),
            Some("comment"),
        );
        check(
            "description: @Observable state and `views`\n",
            "description",
            Some("@Observable state and `views`"),
            Some("`@` cannot start"),
        );
        check(
            "description: `code` first\n",
            "description",
            Some("`code` first"),
            Some("cannot start"),
        );
    }

    #[test]
    fn plain_and_quoted_values_read_as_yaml_reads_them() {
        check("name: web-research\n", "name", Some("web-research"), None);
        check(
            "description: Plain text # a comment\n",
            "description",
            Some("Plain text"),
            None,
        );
        check(
            "description: first\n  second\n",
            "description",
            Some("first second"),
            None,
        );
        check(
            "description: \"Quoted: fine\"\n",
            "description",
            Some("Quoted: fine"),
            None,
        );
        check("description: 'single'\n", "description", Some("single"), None);
    }

    #[test]
    fn what_a_person_could_read_two_ways_is_left_unread() {
        for frontmatter in [
            "description: \"open quote\n  continues\"\n",
            "description:\n  nested: map\n",
            "description: |\n  a proper block\n",
            "description: [a, b]\n",
            "description: &anchor text\n",
            "description: \"a\" and \"b\"\n",
        ] {
            let reading = read_lines(frontmatter);
            assert_eq!(reading.get("description"), None, "{frontmatter:?}");
            assert_eq!(reading.unread, ["description"], "{frontmatter:?}");
        }
        // Indented keys are not top-level keys.
        assert_eq!(read_lines("metadata:\n  name: inner\n").get("name"), None);
    }
}

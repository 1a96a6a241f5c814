//! A `SKILL.md`'s frontmatter: [`split_frontmatter`] finds it, [`frontmatter_json`] gives
//! it as JSON, every field as written (both re-exported from [`crate::parse`]).

use crate::file::DEFAULT_MAX_FILE_SIZE;
use crate::yaml::{self, ScalarKind, Yaml};

/// Largest `SKILL.md` that is parsed, in bytes (10 MiB).
pub const MAX_SKILL_FILE_SIZE: u64 = DEFAULT_MAX_FILE_SIZE;

/// Splits `SKILL.md` text into its YAML frontmatter and Markdown body.
///
/// The file must open with a `---` line (a UTF-8 byte-order mark before it is allowed);
/// the frontmatter ends at the next `---` line, which may be the last line of the file
/// with no newline after it. Trailing whitespace on either marker line and CRLF line
/// ends are accepted. Returns `None` when there is no such block.
///
/// ```
/// use skills_core::parse::split_frontmatter;
/// let (yaml, body) = split_frontmatter("---\nname: a\n---\n# A\n").unwrap();
/// assert_eq!((yaml, body), ("name: a", "# A\n"));
/// ```
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, rest) = next_line(text)?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = text.len() - rest.len();
    // Only a line that starts with `---` can close it: the text is searched for those
    // (one search, not one per line; most frontmatter has a dozen lines or more).
    let mut line_start = start;
    loop {
        if !text[line_start..].starts_with("---") {
            line_start += memchr::memmem::find(&text.as_bytes()[line_start..], b"\n---")? + 1;
        }
        let (line, after) = next_line(&text[line_start..])?;
        if line.trim_end() == "---" {
            // The frontmatter excludes the newline before the closing marker.
            let end = line_start.saturating_sub(1).max(start);
            let yaml = text[start..end].strip_suffix('\r').unwrap_or(&text[start..end]);
            return Some((yaml, after));
        }
        line_start = text.len() - after.len();
        if after.is_empty() {
            return None;
        }
    }
}

/// The first line of `text` (without its `\n`) and what follows; `None` at the end.
fn next_line(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() {
        return None;
    }
    Some(match memchr::memchr(b'\n', text.as_bytes()) {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    })
}

/// The frontmatter of a `SKILL.md` as JSON, with every field the author wrote and each
/// scalar resolved as YAML 1.2's core schema says (`true` a boolean, `1.10` the number
/// 1.1, `"1.10"` a string). This is the verbatim form protocols such as the MCP skills
/// extension carry; the catalog itself uses [`parse_skill_md`](crate::parse_skill_md).
///
/// `None` when the file is over [`MAX_SKILL_FILE_SIZE`], not UTF-8, has no frontmatter,
/// or its frontmatter is not a valid YAML mapping as a strict YAML 1.2 reader sees it
/// (what [`parse_skill_md`](crate::parse_skill_md) recovers or repairs is not valid here). Scalars JSON cannot hold (`.inf`,
/// `.nan`, integers beyond 64 bits) stay strings.
///
/// ```
/// let md = b"---\nname: pdf\ndescription: Read PDFs\nversion: 1.10\nbeta: true\ntags: [a, b]\n---\n";
/// let fields = skills_core::parse::frontmatter_json(md).unwrap();
/// assert_eq!(fields["version"], serde_json::json!(1.1));
/// assert_eq!(fields["beta"], serde_json::json!(true));
/// assert_eq!(fields["tags"], serde_json::json!(["a", "b"]));
/// ```
pub fn frontmatter_json(content: &[u8]) -> Option<serde_json::Map<String, serde_json::Value>> {
    if content.len() as u64 > MAX_SKILL_FILE_SIZE {
        return None;
    }
    let text = std::str::from_utf8(content).ok()?;
    let (frontmatter, _body) = split_frontmatter(text)?;
    match json_value(&yaml::parse_strict(frontmatter).ok()?) {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

fn json_value(node: &Yaml<'_>) -> serde_json::Value {
    use serde_json::Value;
    match node {
        Yaml::Null => Value::Null,
        Yaml::Scalar(s) => match s.kind {
            ScalarKind::Str => Value::String(s.text.to_string()),
            ScalarKind::Bool => Value::Bool(s.text.eq_ignore_ascii_case("true")),
            ScalarKind::Int => json_int(&s.text).unwrap_or_else(|| Value::String(s.text.to_string())),
            ScalarKind::Float => json_float(&s.text).unwrap_or_else(|| Value::String(s.text.to_string())),
        },
        Yaml::Seq(items) => Value::Array(items.iter().map(json_value).collect()),
        Yaml::Map(entries) => Value::Object(entries.iter().map(|(k, v)| (k.to_text(), json_value(v))).collect()),
    }
}

/// A core-schema integer (`42`, `-7`, `+3`, `0x1F`, `0o17`) as a JSON number.
fn json_int(text: &str) -> Option<serde_json::Value> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = if let Some(hex) = digits.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()?
    } else if let Some(octal) = digits.strip_prefix("0o") {
        u64::from_str_radix(octal, 8).ok()?
    } else {
        digits.parse::<u64>().ok()?
    };
    if negative {
        let value = 0i64.checked_sub_unsigned(magnitude)?;
        Some(value.into())
    } else {
        Some(magnitude.into())
    }
}

/// A finite core-schema float as a JSON number.
fn json_float(text: &str) -> Option<serde_json::Value> {
    let value: f64 = text.parse().ok()?;
    serde_json::Number::from_f64(value).map(serde_json::Value::Number)
}

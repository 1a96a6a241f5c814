//! A YAML node written back as text on one line (flow form), for values a person reads
//! as text: metadata values, unknown keys, quoted repairs.

use super::{ScalarKind, Yaml, is_null, resolve_plain};

pub(super) fn write_flow(node: &Yaml<'_>, out: &mut String) {
    match node {
        Yaml::Null => out.push_str("null"),
        Yaml::Scalar(s) => {
            if s.kind == ScalarKind::Str && needs_quotes(&s.text) {
                write_quoted(&s.text, out);
            } else {
                out.push_str(&s.text);
            }
        }
        Yaml::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow(item, out);
            }
            out.push(']');
        }
        Yaml::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow(k, out);
                out.push_str(": ");
                write_flow(v, out);
            }
            out.push('}');
        }
    }
}

fn needs_quotes(text: &str) -> bool {
    text.is_empty()
        || resolve_plain(text).is_some_and(|k| k != ScalarKind::Str)
        || is_null(text)
        || text.starts_with(|c: char| c.is_whitespace() || "-?:,[]{}#&*!|>'\"%@`".contains(c))
        || text.ends_with(char::is_whitespace)
        || text.contains(|c: char| c.is_control() || ",[]{}\"".contains(c))
        || text.contains(": ")
        || text.contains(" #")
}

/// `text` as a double-quoted YAML string.
pub(crate) fn write_quoted(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

//! The type a scalar resolves to under the YAML 1.2 core schema.

use std::borrow::Cow;

use saphyr_parser::ScalarStyle;

use super::{Scalar, ScalarKind, Yaml};

/// `tag` is `None` without a tag, `Some(Some(suffix))` for a core-schema tag (`!!str`)
/// and `Some(None)` for any other tag, which makes the scalar a string.
pub(super) fn resolve_scalar<'a>(value: Cow<'a, str>, style: ScalarStyle, tag: Option<Option<&str>>) -> Yaml<'a> {
    match resolve_kind(&value, style, tag) {
        None => Yaml::Null,
        Some(kind) => Yaml::Scalar(Scalar { text: value, kind }),
    }
}

/// What [`resolve_scalar`] makes of `value`: `None` for null.
fn resolve_kind(value: &str, style: ScalarStyle, tag: Option<Option<&str>>) -> Option<ScalarKind> {
    if let Some(Some(suffix)) = tag {
        return match suffix {
            "str" => Some(ScalarKind::Str),
            "null" => None,
            "bool" => Some(ScalarKind::Bool),
            "int" => Some(ScalarKind::Int),
            "float" => Some(ScalarKind::Float),
            _ => Some(ScalarKind::Str),
        };
    }
    if style != ScalarStyle::Plain || tag.is_some() {
        return Some(ScalarKind::Str);
    }
    if is_null(value) {
        return None;
    }
    Some(resolve_plain(value).unwrap_or(ScalarKind::Str))
}

pub(super) fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// YAML 1.2 core schema resolution of a plain scalar (`yes` stays a string).
pub(super) fn resolve_plain(text: &str) -> Option<ScalarKind> {
    if matches!(text, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") {
        return Some(ScalarKind::Bool);
    }
    // Numbers start with a digit, a sign or a dot; most text (every description) does
    // not, and is not scanned for an exponent.
    if !text
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.'))
    {
        return None;
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let all = |s: &str, f: fn(&u8) -> bool| !s.is_empty() && s.as_bytes().iter().all(f);
    if all(unsigned, u8::is_ascii_digit)
        || text
            .strip_prefix("0o")
            .is_some_and(|d| all(d, |b| (b'0'..=b'7').contains(b)))
        || text.strip_prefix("0x").is_some_and(|d| all(d, u8::is_ascii_hexdigit))
    {
        return Some(ScalarKind::Int);
    }
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Some(ScalarKind::Float);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac_part {
        Some(f) => digits(int_part) && digits(f) && !(int_part.is_empty() && f.is_empty()),
        None => all(int_part, u8::is_ascii_digit),
    };
    let exponent_ok = exponent.is_none_or(|e| all(e.strip_prefix(['-', '+']).unwrap_or(e), u8::is_ascii_digit));
    // A plain integer was handled above, so a float needs a dot or an exponent.
    if mantissa_ok && exponent_ok && (frac_part.is_some() || exponent.is_some()) {
        return Some(ScalarKind::Float);
    }
    None
}

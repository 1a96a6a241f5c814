//! Backend paths: POSIX strings, absolute within a backend.
//!
//! These are pure string functions; backends call [`normalize`] on every path they are
//! given before touching storage, so `..`, NUL and backslashes are refused in one place.

use crate::error::BackendError;

/// Checks a backend path and returns its canonical form: absolute, no `.` or empty
/// components, no trailing slash (`/` stays `/`).
///
/// Refused with [`BackendError::InvalidPath`]: relative paths, `..` components, NUL and
/// other control characters, backslashes (a Windows separator or an escape attempt), and
/// percent-encoded dots or slashes (`%2e`, `%2f`, `%5c`), which some layer might decode.
///
/// ```
/// use skills_core::path::normalize;
/// assert_eq!(normalize("/skills//user/./web/").unwrap(), "/skills/user/web");
/// assert!(normalize("/skills/../etc").is_err());
/// ```
pub fn normalize(path: &str) -> Result<String, BackendError> {
    let invalid = |reason: &str| Err(BackendError::invalid_path(path, reason));
    if !path.starts_with('/') {
        return invalid("path must be absolute");
    }
    // One pass over the bytes, with nothing allocated: every read of every backend
    // passes here.
    let refused = Refused::of(path.as_bytes());
    if refused.control {
        return invalid("path contains a control character");
    }
    if refused.backslash {
        return invalid("path contains a backslash");
    }
    if refused.encoded {
        return invalid("path contains a percent-encoded separator or dot");
    }
    let mut canonical = true;
    for part in path[1..].split('/') {
        match part {
            "" | "." => canonical = false,
            ".." => return invalid("path contains `..`"),
            _ => {}
        }
    }
    // A path already in its canonical form (every path discovery makes) is kept as is.
    if canonical {
        return Ok(path.to_owned());
    }
    let mut out = String::with_capacity(path.len());
    for part in path.split('/').filter(|part| !matches!(*part, "" | ".")) {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(out)
}

/// What [`normalize`] refuses anywhere in a path, found in one pass over its bytes.
struct Refused {
    /// A control character (general category Cc: U+0000-U+001F, U+007F-U+009F).
    control: bool,
    backslash: bool,
    /// `%2e`, `%2f`, `%5c` or `%00`, in either case.
    encoded: bool,
}

impl Refused {
    fn of(bytes: &[u8]) -> Self {
        let mut found = Refused {
            control: false,
            backslash: false,
            encoded: false,
        };
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                0..=0x1f | 0x7f => found.control = true,
                // U+0080-U+009F are `C2 80`-`C2 9F`; `C2` is never a continuation byte.
                0xc2 => found.control |= matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
                b'\\' => found.backslash = true,
                b'%' => {
                    let hex = bytes
                        .get(i + 1..i + 3)
                        .map(|h| [h[0].to_ascii_lowercase(), h[1].to_ascii_lowercase()]);
                    found.encoded |= matches!(hex, Some([b'2', b'e' | b'f'] | [b'5', b'c'] | [b'0', b'0']));
                }
                _ => {}
            }
        }
        found
    }
}

/// Joins a normalized directory path and a relative path (`/a` + `b/c` = `/a/b/c`).
pub fn join(dir: &str, rel: &str) -> String {
    let rel = rel.trim_start_matches('/');
    if rel.is_empty() {
        return dir.to_owned();
    }
    let mut out = String::with_capacity(dir.len() + rel.len() + 1);
    out.push_str(dir.trim_end_matches('/'));
    out.push('/');
    out.push_str(rel);
    out
}

/// The parent of a normalized path (`/a/b` -> `/a`, `/a` -> `/`, `/` -> `/`).
pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The last component of a normalized path (`/a/b` -> `b`, `/` -> ``).
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `path` is `dir` itself or lies under it (both normalized).
pub fn is_within(path: &str, dir: &str) -> bool {
    dir == "/" || path == dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_accepts_and_canonicalizes() {
        for (input, expected) in [
            ("/", "/"),
            ("//", "/"),
            ("/a", "/a"),
            ("/a/", "/a"),
            ("/a//b/./c", "/a/b/c"),
            ("/a/b..c/...", "/a/b..c/..."),
            ("/caf\u{e9}/\u{6280}\u{80fd}", "/caf\u{e9}/\u{6280}\u{80fd}"),
        ] {
            assert_eq!(normalize(input).as_deref(), Ok(expected), "{input:?}");
        }
    }

    #[test]
    fn normalize_refuses_escapes_in_every_form() {
        for input in [
            "",
            "a/b",
            "./a",
            "../a",
            "/..",
            "/a/..",
            "/a/../b",
            "/a/b/..",
            "/a\0b",
            "/a\\..\\b",
            "/a/%2e%2e/b",
            "/a/%2E%2E",
            "/a%2fb",
            "/a%5cb",
            "/a%00",
            "/a\nb",
        ] {
            assert!(
                matches!(normalize(input), Err(BackendError::InvalidPath { .. })),
                "{input:?} was accepted"
            );
        }
    }

    /// `normalize` as it was written first (four passes and two allocations), the
    /// reference the one-pass version must agree with.
    fn reference(path: &str) -> Option<String> {
        if !path.starts_with('/') || path.contains(|c: char| c.is_control()) || path.contains('\\') {
            return None;
        }
        let lower = path.to_ascii_lowercase();
        if ["%2e", "%2f", "%5c", "%00"].iter().any(|enc| lower.contains(enc)) {
            return None;
        }
        let mut out = String::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => return None,
                part => {
                    out.push('/');
                    out.push_str(part);
                }
            }
        }
        Some(if out.is_empty() { "/".to_owned() } else { out })
    }

    #[test]
    fn normalize_agrees_with_the_reference_on_every_short_path() {
        // Every sequence of up to four of these pieces, after a leading slash or not.
        let pieces = [
            "/",
            ".",
            "..",
            "a",
            "%",
            "%2",
            "%2E",
            "%2f",
            "%5C",
            "%00",
            "%3a",
            "\\",
            "\0",
            "\u{7f}",
            "\u{85}",
            "\u{9f}",
            "\u{a0}",
            "\u{c2}",
            "caf\u{e9}",
            "\u{6280}",
        ];
        let mut paths = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = paths
                .iter()
                .flat_map(|p| pieces.iter().map(move |piece| format!("{p}{piece}")))
                .collect();
            paths.extend(longer);
        }
        paths.sort();
        paths.dedup();
        let mut accepted = 0;
        for path in paths.iter().flat_map(|p| [p.clone(), format!("/{p}")]) {
            let ours = normalize(&path).ok();
            assert_eq!(ours, reference(&path), "{path:?}");
            accepted += usize::from(ours.is_some());
        }
        // Both answers occur often: the comparison is not of refusals only.
        assert!(accepted > 10_000, "{accepted} accepted");
    }

    #[test]
    fn join_parent_file_name_and_is_within() {
        assert_eq!(join("/", "a"), "/a");
        assert_eq!(join("/a/", "/b/c"), "/a/b/c");
        assert_eq!(join("/a", ""), "/a");
        assert_eq!(parent("/a/b"), "/a");
        assert_eq!(parent("/a"), "/");
        assert_eq!(parent("/"), "/");
        assert_eq!(file_name("/a/b"), "b");
        assert_eq!(file_name("/"), "");
        assert!(is_within("/a/b", "/a"));
        assert!(is_within("/a", "/a"));
        assert!(is_within("/a", "/"));
        assert!(!is_within("/ab", "/a"));
    }
}

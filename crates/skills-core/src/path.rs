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
    if path.contains(|c: char| c.is_control()) {
        return invalid("path contains a control character");
    }
    if path.contains('\\') {
        return invalid("path contains a backslash");
    }
    let lower = path.to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00"].iter().any(|enc| lower.contains(enc)) {
        return invalid("path contains a percent-encoded separator or dot");
    }
    let mut out = String::with_capacity(path.len());
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return invalid("path contains `..`"),
            part => {
                out.push('/');
                out.push_str(part);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(out)
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

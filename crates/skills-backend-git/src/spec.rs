//! What to serve: a ref (`GitRef`) and the source URL syntax
//! (`git+https://host/repo.git#ref=main&path=skills`).

use std::fmt;
use std::str::FromStr;

use skills_core::path;
use skills_core::url::redact_url as redact;

use crate::GitError;

/// Which commit a backend serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GitRef {
    /// The repository's `HEAD` (for a remote: its default branch).
    Head,
    /// A branch, followed as it moves.
    Branch(String),
    /// A tag (annotated or not), followed if it is moved.
    Tag(String),
    /// A full 40-hex commit id: pinned, never changes.
    Commit(String),
}

impl GitRef {
    /// Parses `ref=` values: a 40-hex id is a commit, `refs/tags/X` or `tags/X` a tag,
    /// `refs/heads/X` or `heads/X` a branch, `HEAD` the head, and any other name is
    /// resolved as a branch first, then as a tag.
    pub fn parse(text: &str) -> Result<Self, GitError> {
        let invalid = |reason: &str| GitError::InvalidSpec {
            spec: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.is_empty() {
            return Err(invalid("empty ref"));
        }
        if text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Self::Commit(text.to_ascii_lowercase()));
        }
        if text == "HEAD" {
            return Ok(Self::Head);
        }
        let valid = |name: &str| {
            !name.is_empty()
                && git2::Reference::is_valid_name(&format!("refs/heads/{name}"))
                && !name.contains(['\\', ' '])
        };
        let (make, name): (fn(String) -> Self, &str) =
            if let Some(tag) = text.strip_prefix("refs/tags/").or_else(|| text.strip_prefix("tags/")) {
                (Self::Tag, tag)
            } else if let Some(branch) = text.strip_prefix("refs/heads/").or_else(|| text.strip_prefix("heads/")) {
                (Self::Branch, branch)
            } else {
                (Self::Branch, text)
            };
        if !valid(name) {
            return Err(invalid("not a valid ref name"));
        }
        Ok(make(name.to_owned()))
    }

    /// Whether the commit served can never change.
    pub fn is_pinned(&self) -> bool {
        matches!(self, Self::Commit(_))
    }
}

impl fmt::Display for GitRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Head => f.write_str("HEAD"),
            Self::Branch(name) => f.write_str(name),
            Self::Tag(name) => write!(f, "tags/{name}"),
            Self::Commit(id) => f.write_str(id),
        }
    }
}

/// A git source: repository URL, ref and sub-directory.
///
/// ```
/// use skills_backend_git::{GitRef, GitSpec};
/// let spec: GitSpec = "git+https://example.com/team/skills.git#ref=v2&path=library".parse().unwrap();
/// assert_eq!(spec.url, "https://example.com/team/skills.git");
/// assert_eq!(spec.reference, GitRef::Branch("v2".into()));
/// assert_eq!(spec.path, "library");
/// let local: GitSpec = "git+file:///srv/skills.git".parse().unwrap();
/// assert_eq!(local.local_path().unwrap(), std::path::Path::new("/srv/skills.git"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GitSpec {
    /// The repository: `file:///...`, `git://...`, `https://...`, `ssh://...`.
    pub url: String,
    /// What to serve (`#ref=`, default `HEAD`).
    pub reference: GitRef,
    /// The sub-directory of the tree that is the backend's root (`#path=`, default the
    /// whole tree), without leading or trailing `/`.
    pub path: String,
}

impl GitSpec {
    /// The directory of a `file://` repository.
    pub fn local_path(&self) -> Option<std::path::PathBuf> {
        self.url.strip_prefix("file://").map(std::path::PathBuf::from)
    }
}

impl FromStr for GitSpec {
    type Err = GitError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: String| GitError::InvalidSpec {
            spec: redact(spec),
            reason,
        };
        let rest = spec
            .strip_prefix("git+")
            .ok_or_else(|| invalid("expected git+file://, git+https://, git+ssh:// or git+git://".into()))?;
        let (url, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let scheme_ok = ["file:///", "https://", "http://", "ssh://", "git://"]
            .iter()
            .any(|scheme| url.starts_with(scheme) && url.len() > scheme.len());
        if !scheme_ok {
            return Err(invalid(
                "unsupported URL (file:///path, https://, ssh://, git://)".into(),
            ));
        }
        let mut reference = GitRef::Head;
        let mut sub = String::new();
        for pair in fragment.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("ref", value)) => reference = GitRef::parse(value)?,
                Some(("path", value)) => {
                    let normalized = path::normalize(&format!("/{value}")).map_err(|e| invalid(e.to_string()))?;
                    sub = normalized.trim_start_matches('/').to_owned();
                }
                _ => return Err(invalid(format!("unknown fragment {pair:?} (expected ref= and path=)"))),
            }
        }
        Ok(Self {
            url: url.to_owned(),
            reference,
            path: sub,
        })
    }
}

impl fmt::Display for GitSpec {
    /// The spec with any password in the URL replaced by `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "git+{}#ref={}", redact(&self.url), self.reference)?;
        if !self.path.is_empty() {
            write!(f, "&path={}", self.path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_parse_by_form() {
        let id = "0123456789abcdef0123456789ABCDEF01234567";
        assert_eq!(GitRef::parse(id).unwrap(), GitRef::Commit(id.to_ascii_lowercase()));
        assert_eq!(GitRef::parse("HEAD").unwrap(), GitRef::Head);
        assert_eq!(GitRef::parse("main").unwrap(), GitRef::Branch("main".into()));
        assert_eq!(GitRef::parse("refs/heads/a/b").unwrap(), GitRef::Branch("a/b".into()));
        assert_eq!(GitRef::parse("tags/v1.0").unwrap(), GitRef::Tag("v1.0".into()));
        assert_eq!(GitRef::parse("refs/tags/v1.0").unwrap(), GitRef::Tag("v1.0".into()));
        for bad in ["", "a..b", "a b", "-x/..", "a\\b", "refs/tags/", "x.lock", "a~1", "a:b"] {
            assert!(GitRef::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn specs_parse_and_print() {
        let spec: GitSpec = "git+ssh://git@example.com/team/skills.git#path=/a//b/&ref=tags/v1"
            .parse()
            .unwrap();
        assert_eq!(spec.url, "ssh://git@example.com/team/skills.git");
        assert_eq!(
            (spec.reference.clone(), spec.path.as_str()),
            (GitRef::Tag("v1".into()), "a/b")
        );
        assert_eq!(
            spec.to_string(),
            "git+ssh://git@example.com/team/skills.git#ref=tags/v1&path=a/b"
        );
        for bad in [
            "https://example.com/x.git",
            "git+ftp://example.com/x",
            "git+file://relative",
            "git+https://",
            "git+https://example.com/x.git#path=../etc",
            "git+https://example.com/x.git#branch=main",
            "git+https://example.com/x.git#ref=a..b",
        ] {
            assert!(bad.parse::<GitSpec>().is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn passwords_are_redacted() {
        let error = "git+https://me:tok3n@example.com/r.git#ref=a..b"
            .parse::<GitSpec>()
            .unwrap_err();
        assert!(!error.to_string().contains("tok3n"), "{error}");
        let spec: GitSpec = "git+https://me:tok3n@example.com/r.git".parse().unwrap();
        assert!(!spec.to_string().contains("tok3n"));
    }
}

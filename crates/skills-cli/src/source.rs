//! Source specifications (`./dir`, `file:///dir`, `s3://bucket/prefix`, `label=...`) and
//! opening them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use skills_backend_fs::FilesystemBackend;
use skills_backend_git::{GitBackend, GitSpec};
use skills_backend_s3::S3BackendBuilder;
use skills_core::BackendProtocol;

/// A source ready to be listed.
#[derive(Debug, Clone)]
pub struct Source {
    /// Short name shown in listings.
    pub label: String,
    /// Where it is, for people.
    pub location: String,
    /// The backend serving it.
    pub backend: Arc<dyn BackendProtocol>,
    /// The source's path in the backend.
    pub path: String,
}

/// Parses and opens `--source` values; with none, the default chain.
pub fn open_sources(specs: &[String]) -> anyhow::Result<Vec<Source>> {
    if specs.is_empty() {
        return Ok(default_sources());
    }
    specs.iter().map(|spec| open(spec)).collect()
}

/// The default chain: shipped examples, then the user's, then the project's skills.
/// Missing directories are skipped.
fn default_sources() -> Vec<Source> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".agents/skills"));
    let project = PathBuf::from(".agents/skills");
    [("examples", Some(examples)), ("user", home), ("project", Some(project))]
        .into_iter()
        .filter_map(|(label, dir)| open_dir(label.to_owned(), &dir?).ok())
        .collect()
}

/// Opens one source specification.
pub fn open(spec: &str) -> anyhow::Result<Source> {
    let (label, location) = split_label(spec);
    if location.starts_with("s3://") {
        return open_s3(label, location).with_context(|| format!("source {spec:?}"));
    }
    if location.starts_with("git+") {
        return open_git(label, location).with_context(|| format!("source {:?}", skills_backend_git::redact(spec)));
    }
    let dir = if let Some(rest) = location.strip_prefix("file://") {
        let Some(path) = rest.strip_prefix('/').map(|p| format!("/{p}")) else {
            bail!("source {spec:?}: a file URL needs an absolute path (file:///...)");
        };
        PathBuf::from(percent_decode(&path).with_context(|| format!("source {spec:?}"))?)
    } else if location.contains("://") {
        bail!("source {spec:?}: unknown scheme (expected a path or file:///...)");
    } else {
        PathBuf::from(location)
    };
    let label = match label {
        Some(label) => label.to_owned(),
        None => default_label(&dir),
    };
    open_dir(label, &dir).with_context(|| format!("source {spec:?}"))
}

/// An S3 source: the bucket and credentials from the `AWS_*` environment; nothing is
/// sent until the source is read.
fn open_s3(label: Option<&str>, location: &str) -> anyhow::Result<Source> {
    let builder = S3BackendBuilder::new(location)?;
    let location = builder.location().clone();
    let label = match label {
        Some(label) => label.to_owned(),
        None => location
            .prefix()
            .rsplit('/')
            .next()
            .filter(|l| !l.is_empty())
            .unwrap_or(location.bucket())
            .to_owned(),
    };
    Ok(Source {
        label,
        location: location.to_string(),
        backend: Arc::new(builder.build()?),
        path: "/".to_owned(),
    })
}

/// A git source: a `file://` repository is read in place, others are cloned into (and
/// fetched from) the cache directory; the resolved commit is part of the location.
fn open_git(label: Option<&str>, location: &str) -> anyhow::Result<Source> {
    let spec: GitSpec = location.parse()?;
    let backend = GitBackend::from_spec(&spec, git_cache_dir())?.open()?;
    let label = match label {
        Some(label) => label.to_owned(),
        None => spec
            .path
            .rsplit('/')
            .next()
            .filter(|l| !l.is_empty())
            .or_else(|| {
                spec.url
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .map(|r| r.trim_end_matches(".git"))
            })
            .unwrap_or("git")
            .to_owned(),
    };
    Ok(Source {
        label,
        location: format!("{spec} @ {}", backend.commit_id()),
        backend: Arc::new(backend),
        path: "/".to_owned(),
    })
}

/// Where remotes are cloned: `SKILLS_GIT_CACHE`, else `$XDG_CACHE_HOME/agent-skills/git`,
/// else `~/.cache/agent-skills/git`.
fn git_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SKILLS_GIT_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("agent-skills/git")
}

fn open_dir(label: String, dir: &Path) -> anyhow::Result<Source> {
    let backend = FilesystemBackend::new(dir)?.with_virtual_mode(false)?;
    let path = backend.root_path().to_owned();
    Ok(Source {
        label,
        location: path.clone(),
        backend: Arc::new(backend),
        path,
    })
}

/// `label=location` when the part before `=` is a plain word.
fn split_label(spec: &str) -> (Option<&str>, &str) {
    match spec.split_once('=') {
        Some((label, location))
            if !label.is_empty()
                && !location.is_empty()
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            (Some(label), location)
        }
        _ => (None, spec),
    }
}

/// The last component of the directory, as deepagents names sources.
fn default_label(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn percent_decode(text: &str) -> anyhow::Result<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3).context("truncated %-escape")?;
            out.push(u8::from_str_radix(hex, 16).with_context(|| format!("bad %-escape %{hex}"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).context("%-escapes do not form UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_split_only_on_plain_words() {
        assert_eq!(split_label("team=./skills"), (Some("team"), "./skills"));
        assert_eq!(split_label("./a=b"), (None, "./a=b"));
        assert_eq!(split_label("=x"), (None, "=x"));
        assert_eq!(split_label("x="), (None, "x="));
        assert_eq!(split_label("./skills"), (None, "./skills"));
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/a%20b/c").unwrap(), "/a b/c");
        assert!(percent_decode("/a%2").is_err());
        assert!(percent_decode("/a%zz").is_err());
    }

    #[test]
    fn s3_sources_are_labelled_by_their_last_prefix_component() {
        let source = open("s3://team-skills/shared/library/").unwrap();
        assert_eq!(
            (source.label.as_str(), source.location.as_str()),
            ("library", "s3://team-skills/shared/library")
        );
        assert_eq!(source.path, "/");
        assert_eq!(open("s3://team-skills").unwrap().label, "team-skills");
        assert_eq!(open("team=s3://team-skills/x").unwrap().label, "team");
        let err = format!("{:#}", open("s3://Bad_Bucket/x").unwrap_err());
        assert!(err.contains("bucket name"), "{err}");
    }

    #[test]
    fn remote_and_unknown_schemes_are_refused_clearly() {
        let err = format!("{:#}", open("git+ftp://example.invalid/r.git").unwrap_err());
        assert!(err.contains("unsupported URL"), "{err}");
        assert!(open("ftp://x/y").unwrap_err().to_string().contains("unknown scheme"));
        assert!(open("file://host/x").unwrap_err().to_string().contains("absolute path"));
    }
}

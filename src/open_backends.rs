//! Opening each kind of source location into a [`SkillSource`]: a folder, S3, git, an
//! HTTP registry, an MCP server.

use std::path::Path;
#[cfg(any(feature = "fs", feature = "s3", feature = "git", feature = "http", feature = "mcp"))]
use std::sync::Arc;

use skills_catalog::SkillSource;
#[cfg(any(feature = "fs", feature = "s3", feature = "git", feature = "http", feature = "mcp"))]
use skills_core::BackendProtocol;

use crate::open_options::OpenOptions;

#[cfg(feature = "fs")]
pub(crate) fn open_dir(dir: &Path, options: &OpenOptions) -> Result<(String, SkillSource), String> {
    let backend = crate::fs::FilesystemBackend::new(dir)
        .and_then(|b| b.with_virtual_mode(false))
        .map_err(|e| e.to_string())?
        .with_hard_links(options.hard_links);
    let path = backend.root_path().to_owned();
    let label = Path::new(&path)
        .file_name()
        .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
    Ok((label, opened(path.clone(), Arc::new(backend), path)))
}

#[cfg(not(feature = "fs"))]
pub(crate) fn open_dir(_dir: &Path, _options: &OpenOptions) -> Result<(String, SkillSource), String> {
    Err("local directories need the `fs` feature of skills-runtime".into())
}

#[cfg(feature = "s3")]
pub(crate) fn open_s3(location: &str, options: &OpenOptions) -> Result<(String, SkillSource), String> {
    let builder = crate::s3::S3BackendBuilder::new(location).map_err(|e| e.to_string())?;
    let parsed = builder.location().clone();
    let label = parsed
        .prefix()
        .rsplit('/')
        .next()
        .filter(|l| !l.is_empty())
        .unwrap_or(parsed.bucket())
        .to_owned();
    // A library that publishes an index is polled through it (see `skills publish`).
    let mut backend = builder.build().map_err(|e| e.to_string())?.with_index(true);
    if let Some(interval) = options.poll_interval {
        backend = backend.with_poll_interval(interval);
    }
    Ok((label, opened(parsed.to_string(), Arc::new(backend), "/".into())))
}

#[cfg(feature = "http")]
pub(crate) fn open_http(location: &str, options: &OpenOptions) -> Result<(String, SkillSource), String> {
    let mut backend = crate::http::HttpRegistryBackend::new(location).map_err(|e| e.to_string())?;
    if let Some(interval) = options.poll_interval {
        backend = backend.with_poll_interval(interval);
    }
    let label = backend.index_url().host_str().unwrap_or("registry").to_owned();
    let shown = backend.index_url().to_string();
    Ok((label, opened(shown, Arc::new(backend), "/".into())))
}

#[cfg(not(feature = "http"))]
pub(crate) fn open_http(_location: &str, _options: &OpenOptions) -> Result<(String, SkillSource), String> {
    Err("https:// registries need the `http` feature of skills-runtime".into())
}

#[cfg(not(feature = "s3"))]
pub(crate) fn open_s3(_location: &str, _options: &OpenOptions) -> Result<(String, SkillSource), String> {
    Err("s3:// sources need the `s3` feature of skills-runtime".into())
}

#[cfg(feature = "git")]
pub(crate) fn open_git(
    location: &str,
    given: Option<&str>,
    options: &OpenOptions,
) -> Result<(String, SkillSource), String> {
    let mut spec: crate::git::GitSpec = location.parse().map_err(|e: crate::git::GitError| e.to_string())?;
    let repo_name = spec
        .url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .map(|r| r.trim_end_matches(".git"));
    let label = spec
        .path
        .rsplit('/')
        .next()
        .filter(|l| !l.is_empty())
        .or(repo_name)
        .unwrap_or("git")
        .to_owned();
    if let Some(commit) = options.pinned_commits.get(given.unwrap_or(&label)) {
        spec.reference = crate::git::GitRef::Commit(commit.clone());
    }
    let mut builder = crate::git::GitBackend::from_spec(&spec, &options.git_cache).map_err(|e| e.to_string())?;
    if let Some(interval) = options.poll_interval {
        builder = builder.fetch_interval(interval);
    }
    let backend = builder.open().map_err(|e| e.to_string())?;
    let shown = format!("{spec} @ {}", backend.commit_id());
    Ok((label, opened(shown, Arc::new(backend), "/".into())))
}

#[cfg(not(feature = "git"))]
pub(crate) fn open_git(
    _location: &str,
    _given: Option<&str>,
    _options: &OpenOptions,
) -> Result<(String, SkillSource), String> {
    Err("git+ sources need the `git` feature of skills-runtime".into())
}

#[cfg(any(feature = "fs", feature = "s3", feature = "git", feature = "http", feature = "mcp"))]
fn opened(location: String, backend: Arc<dyn BackendProtocol>, path: String) -> SkillSource {
    SkillSource::new(backend, path).with_location(location)
}

/// How an MCP server is reached: the location's URL, or a command started on stdio.
#[derive(Debug, Clone, Copy)]
pub(crate) enum McpWay<'a> {
    /// `mcp+http://` or `mcp+https://`, with a bearer token when one is given.
    Http(&'a str, Option<&'a str>),
    /// A command and its arguments (a `[[source]]` of skills.toml).
    Stdio(&'a str, &'a [String]),
}

#[cfg(feature = "mcp")]
pub(crate) fn open_mcp(way: McpWay<'_>, options: &OpenOptions) -> Result<(String, SkillSource), String> {
    use crate::mcp::{McpBackend, McpTarget};
    let (target, label) = match way {
        McpWay::Http(location, token) => {
            let target = McpTarget::http(location).map_err(|e| e.to_string())?;
            let label = match &target {
                McpTarget::Http { url, .. } => match (url.host_str(), url.port()) {
                    (Some(host), Some(port)) => format!("{host}:{port}"),
                    (Some(host), None) => host.to_owned(),
                    (None, _) => "mcp".to_owned(),
                },
                McpTarget::Stdio { .. } => "mcp".to_owned(),
            };
            (target.with_token(token.map(str::to_owned)), label)
        }
        McpWay::Stdio(command, args) => {
            let label = Path::new(command)
                .file_name()
                .map_or_else(|| "mcp".to_owned(), |n| n.to_string_lossy().into_owned());
            (McpTarget::stdio(command, args.iter().cloned()), label)
        }
    };
    let mut backend = McpBackend::new(target);
    if let Some(interval) = options.poll_interval {
        backend = backend.with_poll_interval(interval);
    }
    let shown = backend.identity();
    Ok((label, opened(shown, Arc::new(backend), "/".into())))
}

#[cfg(not(feature = "mcp"))]
pub(crate) fn open_mcp(_way: McpWay<'_>, _options: &OpenOptions) -> Result<(String, SkillSource), String> {
    Err("MCP servers as sources need the `mcp` feature of skills-runtime".into())
}

//! [`OpenOptions`]: where a source's relative paths and git caches resolve, and how it
//! is opened.

use std::path::PathBuf;

/// Where relative paths and git caches resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions {
    /// Relative directory paths are taken from here (a config file's directory, or the
    /// current directory for the command line).
    pub base_dir: PathBuf,
    /// Where git remotes are cloned.
    pub git_cache: PathBuf,
    /// Which multiply-linked files local directories read.
    #[cfg(feature = "fs")]
    pub hard_links: crate::fs::HardLinks,
    /// The depth of every source opened, over the one a source sets (`None`: the
    /// source's own, or 1).
    pub depth: Option<usize>,
    /// Git sources to open at a commit whatever their ref says, by label (a frozen
    /// library serves the commit its lock pins).
    pub pinned_commits: std::collections::BTreeMap<String, String>,
    /// How often a watch asks a remote source for changes (a git fetch, an S3 listing,
    /// an HTTP registry's index); `None`: each backend's default (git 60 s, S3 and HTTP
    /// 30 s).
    pub poll_interval: Option<std::time::Duration>,
}

impl OpenOptions {
    /// Paths relative to `base_dir`; the git cache from `SKILLS_GIT_CACHE`, else
    /// `$XDG_CACHE_HOME/agent-skills/git`, else `~/.cache/agent-skills/git`; the default
    /// hard-link policy; the poll interval from `SKILLS_POLL_INTERVAL` (whole seconds,
    /// at least 1) when it is set.
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        Self {
            base_dir: base_dir.into(),
            git_cache: default_git_cache(),
            #[cfg(feature = "fs")]
            hard_links: crate::fs::HardLinks::default(),
            depth: None,
            pinned_commits: std::collections::BTreeMap::new(),
            poll_interval: poll_interval_from_env(),
        }
    }
}

fn default_git_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("SKILLS_GIT_CACHE") {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("agent-skills/git")
}

fn poll_interval_from_env() -> Option<std::time::Duration> {
    let seconds: u64 = std::env::var("SKILLS_POLL_INTERVAL").ok()?.trim().parse().ok()?;
    Some(std::time::Duration::from_secs(seconds.max(1)))
}

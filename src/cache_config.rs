//! The `[cache]` table of a `skills.toml`: whether discovery keeps what it parsed
//! between processes ([`PersistentCache`](skills_catalog::PersistentCache)).

/// The `[cache]` table of a `skills.toml`.
///
/// ```toml
/// [cache]
/// enabled = false   # read and parse every SKILL.md on every start (default: true)
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// assert!(SourcesConfig::parse("")?.cache.enabled());
/// assert!(!SourcesConfig::parse("[cache]\nenabled = false\n")?.cache.enabled());
/// assert!(SourcesConfig::parse("[cache]\nenable = false\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CacheConfig {
    /// Whether the command line and `skills serve` keep each source's parses in the
    /// user's cache folder ([`PersistentCache::default_dir`](skills_catalog::PersistentCache::default_dir)).
    pub enabled: Option<bool>,
}

impl CacheConfig {
    /// Whether the cache is used (the default: yes).
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
}

//! The `[lock]` table of a `skills.toml`: whether the library is served frozen on its
//! `skills.lock`, and with which key its signature is checked.

use std::path::{Path, PathBuf};

use skills_catalog::lock::LOCK_FILE;

/// The `[lock]` table of a `skills.toml`.
///
/// ```toml
/// [lock]
/// frozen = true                      # serve only what skills.lock pins
/// file = "skills.lock"               # the lockfile (default: next to skills.toml)
/// trusted-key = "keys/skills.pub"    # refuse a lock without a good signature by this key
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// let config = SourcesConfig::parse("[lock]\nfrozen = true\ntrusted-key = \"k.pub\"\n")?;
/// assert!(config.lock.frozen);
/// assert_eq!(config.lock.lock_path(std::path::Path::new("/lib")), std::path::Path::new("/lib/skills.lock"));
/// assert!(SourcesConfig::parse("[lock]\nfrozn = true\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LockConfig {
    /// Serve only the skills `skills.lock` pins, as it pins them.
    #[serde(default)]
    pub frozen: bool,
    /// The lockfile, relative to the `skills.toml`'s directory (default `skills.lock`).
    pub file: Option<PathBuf>,
    /// A minisign public key file: a lock without a good signature by it is refused.
    pub trusted_key: Option<PathBuf>,
}

impl LockConfig {
    /// The lockfile of a `skills.toml` in `base_dir`.
    pub fn lock_path(&self, base_dir: &Path) -> PathBuf {
        base_dir.join(self.file.as_deref().unwrap_or(Path::new(LOCK_FILE)))
    }
}

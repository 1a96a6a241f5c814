//! The `[limits]` table of a `skills.toml`: the bounds of each source's discovery.

use skills_core::DiscoveryLimits;

/// The `[limits]` table of a `skills.toml`:
///
/// ```toml
/// [limits]
/// max-skills = 500000        # skill folders per source
/// max-dir-entries = 600000   # entries per directory
/// max-bytes = 8589934592     # bytes of SKILL.md per source
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LimitsConfig {
    /// Skill folders per source.
    pub max_skills: Option<usize>,
    /// Entries per directory.
    pub max_dir_entries: Option<usize>,
    /// Bytes of `SKILL.md` per source.
    pub max_bytes: Option<u64>,
}

impl LimitsConfig {
    /// `limits` with every value this table sets replaced.
    pub fn apply(&self, mut limits: DiscoveryLimits) -> DiscoveryLimits {
        if let Some(n) = self.max_skills {
            limits = limits.with_max_skills(n);
        }
        if let Some(n) = self.max_dir_entries {
            limits = limits.with_max_dir_entries(n);
        }
        if let Some(n) = self.max_bytes {
            limits = limits.with_max_bytes(n);
        }
        limits
    }
}

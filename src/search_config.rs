//! The `[search]` table of a `skills.toml`: what the search index behind
//! `search_skills` and `skills search` reads.

/// The `[search]` table of a `skills.toml`.
///
/// ```toml
/// [search]
/// instructions = false   # rank by names and descriptions only (default: true)
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// assert!(SourcesConfig::parse("")?.search.instructions());
/// assert!(!SourcesConfig::parse("[search]\ninstructions = false\n")?.search.instructions());
/// assert!(SourcesConfig::parse("[search]\ninstruction = false\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SearchConfig {
    /// Whether the index reads the opening of each skill's instructions, one more read
    /// of every `SKILL.md` after discovery
    /// ([`SkillCatalog::with_search_instructions`](skills_catalog::SkillCatalog::with_search_instructions)).
    pub instructions: Option<bool>,
}

impl SearchConfig {
    /// Whether the index reads each skill's instructions (the default: yes).
    pub fn instructions(&self) -> bool {
        self.instructions.unwrap_or(true)
    }
}

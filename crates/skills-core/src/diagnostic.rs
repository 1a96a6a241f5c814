//! Typed diagnostics: every skipped skill, every warning and every source failure is
//! returned to the caller (and logged), never only logged.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Something discovery or parsing found wrong, tied to a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The file or directory concerned.
    pub path: String,
    /// What went wrong; decides the [`Severity`].
    pub kind: DiagnosticKind,
    /// A sentence for people.
    pub message: String,
    /// For a `limit-exceeded` diagnostic: which limit, and how much it left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<LimitCut>,
}

impl Diagnostic {
    /// A diagnostic of `kind` about `path`.
    pub fn new(path: impl Into<String>, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        let mut message = message.into();
        // A formatted message has room to spare (`to_string` grows by doubling: a
        // 162-byte message in 256 bytes), and a library's diagnostics are held for as
        // long as it is (9,350 of them at thereisnotime).
        message.shrink_to_fit();
        Self {
            path: path.into(),
            kind,
            message,
            cut: None,
        }
    }

    /// A `limit-exceeded` diagnostic about `path`: `cut` says which limit and how much.
    pub fn limit(path: impl Into<String>, cut: LimitCut, message: impl Into<String>) -> Self {
        Self {
            cut: Some(cut),
            ..Self::new(path, DiagnosticKind::LimitExceeded, message)
        }
    }

    /// How serious the diagnostic is (derived from its kind).
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Diagnostic {
    /// `path: kind: message`, the format of `skills validate`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path, self.kind.as_str(), self.message)
    }
}

/// One of the [`DiscoveryLimits`](crate::DiscoveryLimits), by the name people set it
/// with (`max-skills` in `skills.toml`, `--max-skills` on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// Skill folders (`SKILL.md` files) per source.
    MaxSkills,
    /// Entries per directory.
    MaxDirEntries,
    /// Bytes of `SKILL.md` per source.
    MaxBytes,
}

impl Limit {
    /// The kebab-case name: `max-skills`, `max-dir-entries`, `max-bytes`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxSkills => "max-skills",
            Self::MaxDirEntries => "max-dir-entries",
            Self::MaxBytes => "max-bytes",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a limit left out of a discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LimitCut {
    /// The limit that was reached.
    pub limit: Limit,
    /// Its value.
    pub max: u64,
    /// How many were left out: skill folders (`max-skills`, `max-bytes`) or directory
    /// entries (`max-dir-entries`).
    pub left_out: u64,
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The skill was loaded, but something in it does not follow the specification or
    /// was changed (cut, ignored) on the way in.
    Warning,
    /// The skill was not loaded.
    Skip,
    /// A whole source (or part of it) could not be read.
    Error,
}

macro_rules! diagnostic_kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $severity:ident,)*) => {
        /// The kinds of [`Diagnostic`]s; serialized in kebab-case.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        #[non_exhaustive]
        pub enum DiagnosticKind {
            $($(#[$doc])* $variant,)*
        }

        impl DiagnosticKind {
            /// The kebab-case name (`no-frontmatter`, ...).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// The kind whose [`as_str`](Self::as_str) is `name`.
            ///
            /// ```
            /// use skills_core::DiagnosticKind;
            /// assert_eq!(DiagnosticKind::from_name("name-mismatch"), Some(DiagnosticKind::NameMismatch));
            /// assert_eq!(DiagnosticKind::from_name("nonsense"), None);
            /// ```
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// How serious a diagnostic of this kind is.
            pub fn severity(self) -> Severity {
                match self {
                    $(Self::$variant => Severity::$severity,)*
                }
            }
        }
    };
}

diagnostic_kinds! {
    /// `SKILL.md` is larger than the size limit; it was not read.
    TooLarge = "too-large" => Skip,
    /// `SKILL.md` is not valid UTF-8.
    InvalidUtf8 = "invalid-utf8" => Skip,
    /// `SKILL.md` does not start with a `---` frontmatter block.
    NoFrontmatter = "no-frontmatter" => Skip,
    /// The frontmatter is not valid YAML (or exceeds the YAML limits).
    InvalidYaml = "invalid-yaml" => Skip,
    /// The source has no skill folder within the discovery's depth, but has some deeper;
    /// the message says how deep.
    DeeperSkills = "deeper-skills" => Warning,
    /// The source has no skill folder, and is itself one (a `SKILL.md` at its root): a
    /// source is a folder of skill folders. The message says what to read instead.
    SourceIsASkill = "source-is-a-skill" => Warning,
    /// The source has no skill folder outside hidden folders (which discovery does not
    /// search), but some in them; the message names the folders to give as sources.
    HiddenSkills = "hidden-skills" => Warning,
    /// The frontmatter holds a common authoring mistake (text after `|-`, an unquoted
    /// `: `, a value starting with `*` or `#`); it was read line by line and the skill
    /// loaded. The message says how to fix it.
    Recovered = "recovered" => Warning,
    /// The frontmatter is valid YAML but not a mapping.
    FrontmatterNotMapping = "frontmatter-not-mapping" => Skip,
    /// `name` is missing, empty or not a scalar.
    MissingName = "missing-name" => Skip,
    /// `description` is missing, empty or not a scalar.
    MissingDescription = "missing-description" => Skip,
    /// `SKILL.md` exists but could not be read.
    ReadFailed = "read-failed" => Skip,
    /// `name` holds a line break, a control or bidirectional character, `<`, `>` or a
    /// backtick: it cannot be shown in a prompt as it is (see
    /// [`is_prompt_safe_name`](crate::name::is_prompt_safe_name)).
    UnsafeName = "unsafe-name" => Skip,
    /// The source goes beyond one of the [`DiscoveryLimits`](crate::DiscoveryLimits)
    /// (skills, entries of a directory, bytes); what lies beyond was not read.
    LimitExceeded = "limit-exceeded" => Skip,
    /// `name` breaks the specification's character or length rules.
    InvalidName = "invalid-name" => Warning,
    /// `name` differs from the skill's directory name.
    NameMismatch = "name-mismatch" => Warning,
    /// `description` was longer than 1024 characters and was cut.
    DescriptionTruncated = "description-truncated" => Warning,
    /// `compatibility` was longer than 500 characters and was cut.
    CompatibilityTruncated = "compatibility-truncated" => Warning,
    /// `allowed-tools` was neither a string nor a list and was ignored.
    AllowedToolsIgnored = "allowed-tools-ignored" => Warning,
    /// An `allowed-tools` list entry that is not a string was dropped.
    AllowedToolsEntryDropped = "allowed-tools-entry-dropped" => Warning,
    /// `metadata` was not a mapping and was ignored.
    MetadataIgnored = "metadata-ignored" => Warning,
    /// `license` or `compatibility` was a collection and was ignored.
    FieldIgnored = "field-ignored" => Warning,
    /// A frontmatter key appears more than once in one mapping; the last one is used,
    /// as PyYAML does.
    DuplicateKey = "duplicate-key" => Warning,
    /// The frontmatter is not valid YAML 1.2 but libyaml (PyYAML) reads it: quoted
    /// continuation lines or a flow collection not indented under their key, a
    /// surrogate-pair escape, a byte order mark inside. It was repaired and read as
    /// PyYAML reads it; the message says what to fix.
    NonStandardYaml = "non-standard-yaml" => Warning,
    /// A top-level frontmatter key the Agent Skills specification does not define; the
    /// skill loads and keeps it (`SkillMetadata::extra`). Reported by `validate
    /// --profile spec`, which fails on it.
    UnknownField = "unknown-field" => Warning,
    /// The skill's folder holds more files or bytes than the MCP skills extension lets a
    /// skill hold (512 files, 16 MiB); `skills serve` does not publish it. Reported by
    /// `validate`; fails under `--profile spec`.
    OverSpecLimits = "over-spec-limits" => Warning,
    /// The folder's skill file is named `skill.md`, not `SKILL.md`; it is read as the
    /// skill (as the specification's reference library reads it), and the message says
    /// to rename it. Failed by no profile.
    LowercaseSkillFile = "lowercase-skill-file" => Warning,
    /// The description is still a placeholder (it starts with `TODO`, as the one `skills
    /// new` writes): a model cannot tell when to use the skill. Reported by `validate`
    /// under every profile, failed by none.
    PlaceholderDescription = "placeholder-description" => Warning,
    /// A skill depends on a skill no source has (`dependencies.skills`); the message
    /// names it. Reported by `validate`; the skill still loads.
    MissingDependency = "missing-dependency" => Warning,
    /// Skills depend on each other in a circle; the message names it. Reported by
    /// `validate`; the skills still load.
    DependencyCycle = "dependency-cycle" => Warning,
    /// A standard resource directory of a skill could not be listed; the skill loads
    /// without those resources.
    ResourcesUnlisted = "resources-unlisted" => Warning,
    /// Two directories of one source declare the same name; the later one is kept.
    DuplicateName = "duplicate-name" => Warning,
    /// A skill declares command hooks and the agent has no hook runner: they are
    /// ignored (nothing ever runs them).
    HooksIgnored = "hooks-ignored" => Warning,
    /// Under a frozen lock (`skills.lock`), the skill's files differ from the lock, or
    /// the lock does not name it, or names a skill that is gone; the message names the
    /// files. The skill is not served.
    LockMismatch = "lock-mismatch" => Skip,
    /// An edit broke a skill that loaded before; its last good version is still served.
    KeptLastGood = "kept-last-good" => Warning,
    /// The backend serves an older version of the source than its origin holds (a failed
    /// fetch, a deleted branch); the message says why.
    SourceStale = "source-stale" => Warning,
    /// The source's origin offers something the backend does not serve (an MCP server's
    /// file URI outside its skill, a skill over the extension's limits, a skill without
    /// digests); the message says what and why.
    Withheld = "withheld" => Warning,
    /// The source directory does not exist.
    SourceNotFound = "source-not-found" => Error,
    /// The source path is a file, not a directory.
    SourceNotADirectory = "source-not-a-directory" => Error,
    /// The source could not be read (invalid path, permission, I/O or network).
    SourceUnreadable = "source-unreadable" => Error,
    /// A directory inside the source could not be listed; its skills may be missing.
    ListingFailed = "listing-failed" => Error,
    /// A folder given to check holds no skill folder at all.
    NoSkills = "no-skills" => Error,
}

impl fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_keeps_no_room_to_spare() {
        let mut message = String::with_capacity(256);
        message.push_str("name does not match its folder");
        let diagnostic = Diagnostic::new("/s/a/SKILL.md", DiagnosticKind::NameMismatch, message);
        assert_eq!(diagnostic.message, "name does not match its folder");
        assert_eq!(diagnostic.message.capacity(), diagnostic.message.len());
    }
}

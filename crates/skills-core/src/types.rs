//! The data types shared by every crate, named and shaped like deepagents' so that a
//! user can map one to the other.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// Metadata of one skill, parsed from the YAML frontmatter of its `SKILL.md`.
///
/// Field names follow the Agent Skills specification as deepagents exposes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillMetadata {
    /// Backend path of the `SKILL.md` file (`/skills/user/web-research/SKILL.md`).
    pub path: String,
    /// Skill identifier; by the specification 1-64 lowercase alphanumeric characters and
    /// single hyphens, equal to the directory name.
    pub name: String,
    /// What the skill does and when to use it (at most 1024 characters).
    pub description: String,
    /// License name or reference to a bundled license file.
    pub license: Option<String>,
    /// Environment requirements (at most 500 characters).
    pub compatibility: Option<String>,
    /// Free-form key-value pairs; values are kept as their YAML text.
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// Tools the skill recommends (`allowed-tools` in the frontmatter).
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    /// Frontmatter keys this version does not interpret, kept instead of dropped.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, FrontmatterValue>,
}

impl SkillMetadata {
    /// The backend path of the skill's directory (the parent of `SKILL.md`).
    pub fn dir(&self) -> &str {
        crate::path::parent(&self.path)
    }
}

/// A frontmatter value this version does not interpret, with every scalar kept as its
/// YAML text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FrontmatterValue {
    /// `~`, `null` or an empty value.
    Null,
    /// A scalar's YAML text (`1.10`, `true`, `hello`).
    Text(String),
    /// A sequence.
    List(Vec<FrontmatterValue>),
    /// A mapping; keys are their YAML text.
    Map(BTreeMap<String, FrontmatterValue>),
}

/// The kind of a resource file, from the standard directory it lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A file in `scripts/`.
    Script,
    /// A file in `references/`.
    Reference,
    /// A file in `assets/`.
    Asset,
    /// Any other file at the skill's root, next to `SKILL.md`.
    Other,
}

impl ResourceKind {
    /// The kind of files in a standard resource directory (`scripts`, `references`,
    /// `assets`), or `None` for any other directory name.
    pub fn from_dir_name(name: &str) -> Option<Self> {
        match name {
            "scripts" => Some(Self::Script),
            "references" => Some(Self::Reference),
            "assets" => Some(Self::Asset),
            _ => None,
        }
    }

    /// The lowercase label used in prompts and listings (`script`, `reference`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Script => "script",
            Self::Reference => "reference",
            Self::Asset => "asset",
            Self::Other => "other",
        }
    }
}

/// A resource file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    /// Backend path of the file.
    pub path: String,
    /// What kind of resource it is (serialized as `type`, as in deepagents).
    #[serde(rename = "type")]
    pub kind: ResourceKind,
    /// Name of the skill the file belongs to.
    pub skill_name: String,
}

/// The skills part of an agent's state, serializable so that a conversation can be
/// checkpointed and resumed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillsState {
    /// The discovered skills; `None` until discovery ran (setting it back to `None` asks
    /// for a new discovery).
    pub skills_metadata: Option<Vec<SkillMetadata>>,
    /// Names of the skills loaded with `load_skill`, in load order.
    #[serde(default)]
    pub skills_loaded: Vec<String>,
    /// Resource files by skill name.
    #[serde(default)]
    pub skill_resources: BTreeMap<String, Vec<ResourceMetadata>>,
    /// What went wrong or looked wrong during discovery.
    #[serde(default)]
    pub skills_load_errors: Vec<Diagnostic>,
}

/// One entry of a backend listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    /// Backend path of the entry.
    pub path: String,
    /// Whether the entry is a directory.
    pub is_dir: bool,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Last modification time, when the backend knows it.
    pub modified_at: Option<SystemTime>,
    /// A fingerprint of the content (S3 ETag, git blob id, size + mtime + inode on disk):
    /// equal fingerprints mean the file need not be read again.
    pub etag: Option<String>,
}

impl FileInfo {
    /// A directory's entry: no size, time or fingerprint (listings need none of them for
    /// a directory).
    pub fn directory(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            is_dir: true,
            size: 0,
            modified_at: None,
            etag: None,
        }
    }
}

/// The answer for one path of [`download_files`](crate::BackendProtocol::download_files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDownloadResponse {
    /// The path as it was asked for.
    pub path: String,
    /// The file's bytes, when it could be read.
    pub content: Option<Vec<u8>>,
    /// Why it could not be read.
    pub error: Option<FileError>,
}

impl FileDownloadResponse {
    /// A successful answer.
    pub fn ok(path: impl Into<String>, content: Vec<u8>) -> Self {
        Self {
            path: path.into(),
            content: Some(content),
            error: None,
        }
    }

    /// A failed answer.
    pub fn err(path: impl Into<String>, kind: FileErrorKind, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            content: None,
            error: Some(FileError {
                kind,
                message: message.into(),
            }),
        }
    }

    /// The content, or why there is none (an answer with neither is an `Other` error).
    pub fn into_result(self) -> Result<Vec<u8>, FileError> {
        match (self.content, self.error) {
            (_, Some(error)) => Err(error),
            (Some(content), None) => Ok(content),
            (None, None) => Err(FileError {
                kind: FileErrorKind::Other,
                message: "the backend returned no content".into(),
            }),
        }
    }
}

/// Why one file could not be downloaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileError {
    /// The kind callers match on.
    pub kind: FileErrorKind,
    /// The backend's own explanation.
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// The kinds of per-file download errors (deepagents' `FileOperationError` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileErrorKind {
    /// Nothing exists at the path.
    FileNotFound,
    /// The backend may not read the path.
    PermissionDenied,
    /// The path is a directory.
    IsDirectory,
    /// The path is malformed or leads outside the backend's root.
    InvalidPath,
    /// The file is larger than the backend's size limit; it was not read.
    TooLarge,
    /// Any other failure (I/O, network); the message says what.
    Other,
}

impl FileErrorKind {
    /// The snake_case name (`file_not_found`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FileNotFound => "file_not_found",
            Self::PermissionDenied => "permission_denied",
            Self::IsDirectory => "is_directory",
            Self::InvalidPath => "invalid_path",
            Self::TooLarge => "too_large",
            Self::Other => "other",
        }
    }
}

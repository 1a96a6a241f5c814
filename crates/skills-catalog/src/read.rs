//! One file of a skill, read through its source's backend and contained in the skill's
//! folder: what `read_skill_resource` (MCP, rig) answers with.

use std::fmt;

use skills_core::{BackendExt, FileErrorKind, path};

use crate::snapshot::CatalogSnapshot;

/// A file of a skill, as [`read_skill_file`] read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// The file's path in its backend's namespace.
    pub path: String,
    /// The file's path inside the skill's folder (`scripts/run.py`).
    pub rel: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Why [`read_skill_file`] read nothing. Every text names the file inside the skill
/// (never a host path) and is bounded, so it can go to a model as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFileError {
    /// No skill of that name in the snapshot.
    UnknownSkill(String),
    /// The path asked for is not a file inside the skill's folder (`..`, an absolute
    /// path elsewhere, the folder itself).
    Outside(String),
    /// No such file in the skill's folder.
    NotFound(String),
    /// The path is a folder.
    IsDirectory(String),
    /// The backend refused it (a link out of the source, a bad path, no permission).
    Refused {
        /// The file inside the skill.
        rel: String,
        /// The backend's reason.
        reason: String,
    },
    /// Larger than the backend's file size limit.
    TooLarge {
        /// The file inside the skill.
        rel: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The backend failed to read it.
    Failed {
        /// The file inside the skill.
        rel: String,
        /// The backend's reason.
        reason: String,
    },
}

impl fmt::Display for ReadFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownSkill(name) => write!(f, "no skill named {:?}", shorten(name)),
            Self::Outside(message) => f.write_str(message),
            Self::NotFound(rel) => write!(f, "{rel} does not exist"),
            Self::IsDirectory(rel) => write!(f, "{rel} is a directory"),
            Self::Refused { rel, reason } => write!(f, "{rel} cannot be served: {reason}"),
            Self::TooLarge { rel, limit } => write!(f, "{rel} exceeds the maximum file size ({limit} bytes)"),
            Self::Failed { rel, reason } => write!(f, "{rel} could not be read: {reason}"),
        }
    }
}

impl std::error::Error for ReadFileError {}

/// At most 200 characters of a name or path a caller sent, for messages.
fn shorten(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The path `asked` names inside the skill folder `skill_dir`: relative to the folder or
/// absolute, normalized (no `.`, `..`, empty segments, backslashes, NUL or
/// percent-encoded separators), and inside the folder, not the folder itself. Links are
/// the backend's to contain: one that leads out of the source's root is never followed.
///
/// ```
/// use skills_catalog::contained_path;
/// assert_eq!(contained_path("/lib/pdf", "scripts/run.py").as_deref(), Ok("/lib/pdf/scripts/run.py"));
/// assert!(contained_path("/lib/pdf", "../other/SKILL.md").is_err());
/// assert!(contained_path("/lib/pdf", "/lib/pdf-other/SKILL.md").is_err());
/// ```
pub fn contained_path(skill_dir: &str, asked: &str) -> Result<String, String> {
    let full = if asked.starts_with('/') {
        asked.to_owned()
    } else {
        path::join(skill_dir, asked)
    };
    let normalized = path::normalize(&full).map_err(|e| e.to_string())?;
    let dir = skill_dir.trim_end_matches('/');
    if normalized == dir || !path::is_within(&normalized, dir) {
        return Err(format!("{:?} is not a file inside the skill's folder", shorten(asked)));
    }
    Ok(normalized)
}

/// What a `read_skill_resource` tool says it does (MCP's and rig's tools offer it).
pub const READ_SKILL_RESOURCE_DESCRIPTION: &str =
    "Read one file of a skill (a script, reference or asset), by its path inside the skill's folder.";

/// The JSON Schema of a `read_skill_resource` tool's arguments: the skill's name under
/// `name_key` (MCP's tool says `name`, as its other tools do; rig's says `skill_name`, as
/// its `load_skill` does), and the file's `path`.
///
/// ```
/// let schema = skills_catalog::read_skill_resource_schema("name");
/// assert_eq!(schema["required"], serde_json::json!(["name", "path"]));
/// ```
pub fn read_skill_resource_schema(name_key: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            name_key: { "type": "string", "description": "Name of the skill." },
            "path": {
                "type": "string",
                "description": "Path inside the skill's folder, such as references/guide.md, or a resource path as load_skill lists it."
            }
        },
        "required": [name_key, "path"],
        "additionalProperties": false
    })
}

/// Reads `asked` (relative to the folder of skill `name`, or absolute inside it) from
/// the skill's source, within the backend's file size limit.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{ReadFileError, SkillCatalog, SkillSource, read_skill_file};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs\n---\n")?;
/// backend.insert("/skills/pdf/forms.md", "Fill forms.")?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills")]);
/// let snapshot = catalog.ensure_loaded().await;
/// let file = read_skill_file(&snapshot, "pdf", "forms.md").await?;
/// assert_eq!((file.rel.as_str(), file.bytes.as_slice()), ("forms.md", &b"Fill forms."[..]));
/// let outside = read_skill_file(&snapshot, "pdf", "../x").await;
/// assert!(matches!(outside, Err(ReadFileError::Outside(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub async fn read_skill_file(snapshot: &CatalogSnapshot, name: &str, asked: &str) -> Result<SkillFile, ReadFileError> {
    let (Some(skill), Some(source)) = (snapshot.get(name), snapshot.source_for(name)) else {
        return Err(ReadFileError::UnknownSkill(name.to_owned()));
    };
    let full = contained_path(skill.dir(), asked).map_err(ReadFileError::Outside)?;
    let rel = full
        .strip_prefix(skill.dir())
        .unwrap_or(&full)
        .trim_start_matches('/')
        .to_owned();
    let backend = source.backend();
    match backend.download_file(&full).await {
        Ok(bytes) => Ok(SkillFile { path: full, rel, bytes }),
        Err(error) => Err(match error.kind {
            FileErrorKind::FileNotFound => ReadFileError::NotFound(rel),
            FileErrorKind::IsDirectory => ReadFileError::IsDirectory(rel),
            FileErrorKind::InvalidPath | FileErrorKind::PermissionDenied => ReadFileError::Refused {
                rel,
                reason: error.message,
            },
            FileErrorKind::TooLarge => ReadFileError::TooLarge {
                rel,
                limit: backend.max_file_size(),
            },
            _ => ReadFileError::Failed {
                rel,
                reason: error.message,
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::contained_path;

    #[test]
    fn containment() {
        let dir = "/lib/pdf";
        for (asked, expected) in [
            ("scripts/run.py", "/lib/pdf/scripts/run.py"),
            ("/lib/pdf/scripts/run.py", "/lib/pdf/scripts/run.py"),
            ("./scripts//run.py", "/lib/pdf/scripts/run.py"),
        ] {
            assert_eq!(contained_path(dir, asked).as_deref(), Ok(expected), "{asked:?}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../other/SKILL.md",
            "scripts/../../other/SKILL.md",
            "scripts/..",
            "scripts/%2e%2e/x",
            "/etc/passwd",
            "/lib/pdf-other/SKILL.md",
            "/lib/pdf",
            "/lib/pdf/../x",
            "..\\x",
            "a\0b",
        ] {
            assert!(contained_path(dir, bad).is_err(), "{bad:?} was accepted");
        }
    }
}

//! The published index of a library (`skills-index.json` at a source's root): every
//! skill's name, description, frontmatter and files with their digests, and a version.
//! A backend that finds one can serve listings from it (one conditional GET per poll
//! instead of a listing of every object) and check every file it reads against it.

use serde::{Deserialize, Serialize};

/// The index's file name, at the root of a source.
pub const INDEX_FILE: &str = "skills-index.json";
/// The format this version writes and reads.
pub const INDEX_FORMAT: u32 = 1;

/// A library's published index.
///
/// ```
/// use skills_core::index::{IndexedFile, IndexedSkill, LibraryIndex};
/// let index = LibraryIndex::new(vec![IndexedSkill {
///     name: "web".into(),
///     description: "Search".into(),
///     frontmatter: serde_json::Map::new(),
///     files: vec![IndexedFile { path: "web/SKILL.md".into(), digest: "sha256:00".into(), size: 3 }],
/// }]);
/// let text = index.to_json();
/// assert_eq!(LibraryIndex::parse(text.as_bytes()).unwrap(), index);
/// assert!(index.version.starts_with("sha256:"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryIndex {
    /// [`INDEX_FORMAT`].
    pub format: u32,
    /// A digest of every file's path, digest and size: equal versions, equal libraries.
    pub version: String,
    /// The skills, by name.
    pub skills: Vec<IndexedSkill>,
}

/// One skill of an index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedSkill {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its `SKILL.md` frontmatter as JSON (empty when it does not parse strictly).
    #[serde(default)]
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Every file of its folder, paths relative to the source's root
    /// (`web/scripts/run.py`).
    pub files: Vec<IndexedFile>,
}

/// One file of an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedFile {
    /// Path relative to the source's root.
    pub path: String,
    /// `sha256:<hex>`.
    pub digest: String,
    /// Bytes.
    pub size: u64,
}

/// Why an index cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{INDEX_FILE} cannot be used: {0}")]
pub struct IndexError(pub String);

impl LibraryIndex {
    /// An index of `skills` (sorted by name, files by path), with its version computed.
    pub fn new(mut skills: Vec<IndexedSkill>) -> Self {
        skills.sort_by(|a, b| a.name.cmp(&b.name));
        for skill in &mut skills {
            skill.files.sort_by(|a, b| a.path.cmp(&b.path));
        }
        let mut index = Self {
            format: INDEX_FORMAT,
            version: String::new(),
            skills,
        };
        index.version = index.content_version();
        index
    }

    /// The version the content says: a digest over every file, in order.
    pub fn content_version(&self) -> String {
        crate::digest::files_digest(self.files().map(|f| (f.path.as_str(), f.digest.as_str(), f.size)))
    }

    /// Every file of every skill.
    pub fn files(&self) -> impl Iterator<Item = &IndexedFile> {
        self.skills.iter().flat_map(|s| s.files.iter())
    }

    /// The index as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads an index: the format must be known, the version must match the content,
    /// every path must be relative and stay inside the source, and no path may appear
    /// twice.
    pub fn parse(bytes: &[u8]) -> Result<Self, IndexError> {
        let index: Self = serde_json::from_slice(bytes).map_err(|e| IndexError(e.to_string()))?;
        if index.format != INDEX_FORMAT {
            return Err(IndexError(format!(
                "format {} (this version reads {INDEX_FORMAT})",
                index.format
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for file in index.files() {
            let safe = !file.path.is_empty()
                && !file.path.starts_with('/')
                && crate::path::normalize(&format!("/{}", file.path)).is_ok_and(|p| p == format!("/{}", file.path));
            if !safe {
                return Err(IndexError(format!(
                    "the path {:?} is not a file inside the source",
                    file.path
                )));
            }
            if !seen.insert(file.path.as_str()) {
                return Err(IndexError(format!("{} is listed twice", file.path)));
            }
        }
        if index.version != index.content_version() {
            return Err(IndexError("its version does not match its content".into()));
        }
        Ok(index)
    }
}

//! The discovery index a site publishes at `/.well-known/agent-skills/index.json`
//! (Agent Skills Discovery, schema 0.2.0): each skill's name, description, artifact type
//! (`skill-md` or `archive`), URL and `sha256:` digest.

use serde::Deserialize;

/// The index's file name under the well-known prefix.
pub const WELL_KNOWN_INDEX: &str = ".well-known/agent-skills/index.json";

/// What a skill's artifact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ArtifactType {
    /// The skill's `SKILL.md`, alone.
    #[serde(rename = "skill-md")]
    SkillMd,
    /// The skill's folder as a `.tar.gz` or `.zip` archive.
    #[serde(rename = "archive")]
    Archive,
}

/// One skill of the index.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IndexEntry {
    /// The skill's name (a folder name: 1-64 lowercase letters, digits and hyphens).
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: String,
    /// Its artifact.
    #[serde(rename = "type")]
    pub kind: ArtifactType,
    /// Where the artifact is, relative to the index's URL or absolute.
    pub url: String,
    /// `sha256:<hex>` of the artifact's bytes.
    pub digest: String,
}

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    skills: Vec<serde_json::Value>,
}

/// Reads an index: the entries that can be used, and a note for each one left out (an
/// unknown type, a name that is not a folder name, a digest that is not `sha256:` and 64
/// hex digits). The entries are sorted by name, one per name.
pub fn parse_index(bytes: &[u8]) -> Result<(Vec<IndexEntry>, Vec<String>), String> {
    let document: Document = serde_json::from_slice(bytes).map_err(|e| format!("not a discovery index: {e}"))?;
    let mut entries: Vec<IndexEntry> = Vec::new();
    let mut names = std::collections::HashSet::new();
    let mut notes = Vec::new();
    for value in document.skills {
        let shown: String = value
            .get("name")
            .map(ToString::to_string)
            .unwrap_or_default()
            .chars()
            .take(80)
            .collect();
        let entry: IndexEntry = match serde_json::from_value(value) {
            Ok(entry) => entry,
            Err(error) => {
                notes.push(format!("skipping entry {shown}: {error}"));
                continue;
            }
        };
        if !usable_name(&entry.name) {
            notes.push(format!("skipping entry {shown}: its name cannot be a folder name"));
            continue;
        }
        let hex = entry.digest.strip_prefix("sha256:").unwrap_or_default();
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            notes.push(format!(
                "skipping {}: its digest is not sha256: and 64 hex digits",
                entry.name
            ));
            continue;
        }
        if !names.insert(entry.name.clone()) {
            notes.push(format!("skipping a second entry named {}", entry.name));
            continue;
        }
        entries.push(entry);
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, notes))
}

/// Whether a name can be a skill's folder: one path segment (not `.` or `..`, no `/` or
/// `\\`), at most 255 bytes, and safe to show in a prompt. Names that break the
/// specification's rules (`My Skill`) are served, as from every other source, with the
/// catalog's usual warning.
fn usable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && skills_core::name::is_prompt_safe_name(name)
}

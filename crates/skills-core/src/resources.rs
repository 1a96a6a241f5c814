//! Resource discovery: the files a skill offers next to its `SKILL.md`.

use tracing::warn;

use crate::backend::BackendProtocol;
use crate::file::FileInfo;
use crate::path;
use crate::skill::{ResourceKind, ResourceMetadata};

/// The placeholder file that keeps an empty folder in a git repository.
pub const KEEP_FILE: &str = ".gitkeep";

/// Picks a skill's resources out of listing entries under its directory (any depth,
/// sorted by path), following the Agent Skills layout:
///
/// - files directly in `scripts/`, `references/` and `assets/` are scripts, references
///   and assets (one level: `scripts/lib/x.py` is not offered);
/// - other files at the skill's root, except `SKILL.md` (or `skill.md`), are `other`;
/// - any other directory is ignored, and so is a `.gitkeep` (the empty file that keeps
///   an empty folder in git, as `skills new` leaves in each resource folder).
///
/// The result keeps the entries' path order.
pub fn resources_from_entries(skill_dir: &str, skill_name: &str, entries: &[FileInfo]) -> Vec<ResourceMetadata> {
    let skill_dir = skill_dir.trim_end_matches('/');
    let mut resources = Vec::new();
    for entry in entries
        .iter()
        .filter(|e| !e.is_dir && path::file_name(&e.path) != KEEP_FILE)
    {
        let parent = path::parent(&entry.path);
        let kind = if parent == skill_dir {
            if crate::is_skill_file_name(path::file_name(&entry.path)) {
                continue;
            }
            ResourceKind::Other
        } else if path::parent(parent) == skill_dir {
            match ResourceKind::from_dir_name(path::file_name(parent)) {
                Some(kind) => kind,
                None => continue,
            }
        } else {
            continue;
        };
        resources.push(ResourceMetadata {
            path: entry.path.clone(),
            kind,
            skill_name: skill_name.to_owned(),
        });
    }
    resources
}

/// Lists the resources of one skill (see [`resources_from_entries`]) with one
/// two-level [`walk`](BackendProtocol::walk) of its directory.
///
/// Listing failures degrade, as in deepagents: a skill directory that cannot be listed
/// has no resources, and a resource directory that cannot be listed contributes none;
/// both are logged. Discovery of a whole source uses
/// [`Discovery::resources`](crate::Discovery::resources) instead, which also reports them as
/// diagnostics.
pub async fn discover_resources(
    backend: &dyn BackendProtocol,
    skill_dir: &str,
    skill_name: &str,
) -> Vec<ResourceMetadata> {
    match backend.walk(skill_dir, 2).await {
        Ok(walk) => {
            for error in &walk.errors {
                warn!(skill = skill_name, path = error.path(), %error, "could not list skill resources");
            }
            resources_from_entries(skill_dir, skill_name, &walk.entries)
        }
        Err(error) => {
            warn!(skill = skill_name, path = skill_dir, %error, "could not list skill directory for resources");
            Vec::new()
        }
    }
}

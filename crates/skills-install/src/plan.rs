//! What installing a skill would do, decided before anything is written, so that a
//! command can print it (`--dry-run`) and apply it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::write::{SkillFile, WriteError, digests_of, digests_of_files};

/// What installing one skill does to its folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Not there yet: written.
    Install,
    /// There as it was installed, and the source has a new version: replaced.
    Update,
    /// Already the same files: nothing to do.
    Unchanged,
    /// There with files that differ from what was installed (a person edited it, or it
    /// was not installed by us): left alone.
    KeepLocalEdit,
    /// As [`KeepLocalEdit`](Self::KeepLocalEdit), but forced: replaced, the edited
    /// version kept as a backup.
    ReplaceLocalEdit,
}

impl Action {
    /// Whether the action writes the skill's folder.
    pub fn writes(self) -> bool {
        matches!(self, Self::Install | Self::Update | Self::ReplaceLocalEdit)
    }
}

/// The files a new version adds, changes and removes, by path inside the skill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files the new version has and the folder does not.
    pub added: Vec<String>,
    /// Files whose content differs.
    pub changed: Vec<String>,
    /// Files the folder has and the new version does not.
    pub removed: Vec<String>,
}

impl Changes {
    /// The differences between what is in a folder and what would be written.
    pub fn between(now: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> Self {
        let mut changes = Self::default();
        for (rel, digest) in new {
            match now.get(rel) {
                None => changes.added.push(rel.clone()),
                Some(old) if old != digest => changes.changed.push(rel.clone()),
                Some(_) => {}
            }
        }
        changes.removed = now.keys().filter(|rel| !new.contains_key(*rel)).cloned().collect();
        changes
    }

    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

impl fmt::Display for Changes {
    /// `2 added, 1 changed (SKILL.md), 1 removed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for (list, what) in [
            (&self.added, "added"),
            (&self.changed, "changed"),
            (&self.removed, "removed"),
        ] {
            if list.is_empty() {
                continue;
            }
            let shown: Vec<&str> = list.iter().take(3).map(String::as_str).collect();
            let more = if list.len() > 3 { ", ..." } else { "" };
            parts.push(format!("{} {what} ({}{more})", list.len(), shown.join(", ")));
        }
        if parts.is_empty() {
            f.write_str("no change")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// One skill's step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The skill.
    pub name: String,
    /// What happens to its folder.
    pub action: Action,
    /// What differs between the folder and the new version.
    pub changes: Changes,
}

/// Decides what installing `files` as `dir/name` does. `installed` is what was
/// installed there last (each file's digest, as `skills.lock` keeps them); a folder
/// that differs from it, or that is there without it, was edited here and is kept
/// unless `force`.
pub fn plan_skill(
    dir: &Path,
    name: &str,
    files: &[SkillFile],
    installed: Option<&BTreeMap<String, String>>,
    force: bool,
) -> Result<Step, WriteError> {
    crate::write::check(name, files)?;
    let new = digests_of_files(files);
    let step = |action, changes| Step {
        name: name.to_owned(),
        action,
        changes,
    };
    let Some(now) = digests_of(&dir.join(name))? else {
        return Ok(step(Action::Install, Changes::between(&BTreeMap::new(), &new)));
    };
    let changes = Changes::between(&now, &new);
    let action = if changes.is_empty() {
        Action::Unchanged
    } else if installed == Some(&now) {
        Action::Update
    } else if force {
        Action::ReplaceLocalEdit
    } else {
        Action::KeepLocalEdit
    };
    Ok(step(action, changes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{files, replace};

    #[test]
    fn a_local_edit_is_kept_unless_forced_and_an_untouched_install_is_updated() {
        let dir = tempfile::tempdir().unwrap();
        let v1 = files(&[("SKILL.md", "v1"), ("notes.md", "n")]);
        let v2 = files(&[("SKILL.md", "v2"), ("new.md", "x")]);
        let plan = |installed, force| plan_skill(dir.path(), "web", &v2, installed, force).unwrap();
        assert_eq!(plan(None, false).action, Action::Install);
        replace(dir.path(), "web", &v1, None).unwrap();
        let as_installed = digests_of_files(&v1);
        let step = plan(Some(&as_installed), false);
        assert_eq!(step.action, Action::Update);
        assert_eq!(
            step.changes.to_string(),
            "1 added (new.md), 1 changed (SKILL.md), 1 removed (notes.md)"
        );
        // A person edits the installed skill: it is kept, or replaced with a backup.
        std::fs::write(dir.path().join("web/SKILL.md"), "my own words").unwrap();
        assert_eq!(plan(Some(&as_installed), false).action, Action::KeepLocalEdit);
        assert_eq!(plan(Some(&as_installed), true).action, Action::ReplaceLocalEdit);
        // A folder we did not install counts as an edit too.
        assert_eq!(plan(None, false).action, Action::KeepLocalEdit);
        replace(dir.path(), "web", &v2, None).unwrap();
        assert_eq!(plan(None, false).action, Action::Unchanged);
    }
}

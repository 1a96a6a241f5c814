//! Making an installed skill visible in an agent's own folder: a relative symbolic
//! link to the canonical copy (`.claude/skills/web -> ../../.agents/skills/web`), or a
//! copy where links cannot be made or are not wanted.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::write::{SkillFile, WriteError, replace};

/// What linking one skill into one agent's folder did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Linked {
    /// A link was made (or pointed at the canonical copy again).
    Linked(PathBuf),
    /// The link was there already.
    Unchanged(PathBuf),
    /// A copy was written.
    Copied(PathBuf),
    /// Something that is not our link is there (a folder of the agent's own, or a copy
    /// that differs from the one to write): left alone.
    Occupied(PathBuf),
}

/// `to` as a path relative to the folder `from` (both absolute, or both relative to
/// the same folder).
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to[common..] {
        out.push(part.as_os_str());
    }
    out
}

/// Whether `agent_dir/name` is the link [`link_skill`] makes to the installed `name` of
/// the canonical folder `canonical`.
pub fn is_our_link(agent_dir: &Path, canonical: &Path, name: &str) -> bool {
    let entry = agent_dir.join(name);
    entry.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
        && std::fs::read_link(&entry).is_ok_and(|t| t == relative(agent_dir, &canonical.join(name)))
}

/// How an agent's folder shows an installed skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shown {
    /// By the link [`link_skill`] makes.
    Link,
    /// By a copy with the installed files.
    Copy,
}

/// How `agent_dir/name` shows the skill `name` installed in `canonical` with the files
/// `installed` (each file's digest): our link, a copy of those files, or not at all
/// (nothing there, or something that is not ours).
pub fn shown(
    agent_dir: &Path,
    canonical: &Path,
    name: &str,
    installed: Option<&BTreeMap<String, String>>,
) -> Option<Shown> {
    if is_our_link(agent_dir, canonical, name) {
        return Some(Shown::Link);
    }
    let copy =
        installed.is_some() && crate::write::digests_of(&agent_dir.join(name)).ok().flatten().as_ref() == installed;
    copy.then_some(Shown::Copy)
}

/// The agents' folders under `root` (a project, or the home directory with `global`)
/// other than the canonical one that show the installed `name` ([`shown`]), each once.
pub fn shown_in(
    root: &Path,
    global: bool,
    canonical: &Path,
    name: &str,
    installed: Option<&BTreeMap<String, String>>,
) -> Vec<(PathBuf, Shown)> {
    let mut found: Vec<(PathBuf, Shown)> = crate::agents::AGENTS
        .iter()
        .map(|agent| agent.dir(root, global))
        .filter(|dir| dir != canonical)
        .filter_map(|dir| shown(&dir, canonical, name, installed).map(|how| (dir, how)))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// Makes skill `name` of the canonical folder `canonical` visible in the agent folder
/// `agent_dir`: a relative link, or with `copy` (or where a link cannot be made) a copy
/// of `files`. A copy there already is replaced when it is the version installed before
/// (`previous`: each file's digest); an entry that is neither our link nor such a copy
/// is left alone.
pub fn link_skill(
    agent_dir: &Path,
    canonical: &Path,
    name: &str,
    files: &[SkillFile],
    copy: bool,
    previous: Option<&BTreeMap<String, String>>,
) -> Result<Linked, WriteError> {
    let entry = agent_dir.join(name);
    let target = relative(agent_dir, &canonical.join(name));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError::Io { path, source }
    };
    // A copy there stays a copy (a person chose it, or links could not be made).
    let mut copy = copy;
    match entry.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {
            if !copy && is_our_link(agent_dir, canonical, name) {
                return Ok(Linked::Unchanged(entry));
            }
            std::fs::remove_file(&entry).map_err(io(&entry))?;
        }
        // A folder there is left alone unless it is this very copy or the copy of the
        // version before: it may be the agent's own skill, or a copy a person edited.
        Ok(_) => {
            let here = crate::write::digests_of(&entry)?;
            if here == Some(crate::write::digests_of_files(files)) {
                return Ok(Linked::Unchanged(entry));
            }
            if here.is_none() || here.as_ref() != previous {
                return Ok(Linked::Occupied(entry));
            }
            copy = true;
        }
        Err(_) => {}
    }
    std::fs::create_dir_all(agent_dir).map_err(io(agent_dir))?;
    if !copy {
        #[cfg(unix)]
        if std::os::unix::fs::symlink(&target, &entry).is_ok() {
            return Ok(Linked::Linked(entry));
        }
    }
    replace(agent_dir, name, files, None).map(Linked::Copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(
            relative(Path::new("/p/.claude/skills"), Path::new("/p/.agents/skills/web")),
            Path::new("../../.agents/skills/web")
        );
        assert_eq!(
            relative(Path::new("/h/.config/goose/skills"), Path::new("/h/.agents/skills/web")),
            Path::new("../../../.agents/skills/web")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_made_once_and_a_folder_of_the_agents_own_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().join(".agents/skills");
        let files = vec![SkillFile {
            rel: "SKILL.md".into(),
            bytes: b"---\nname: web\ndescription: d\n---\n".to_vec(),
        }];
        replace(&canonical, "web", &files, None).unwrap();
        let claude = dir.path().join(".claude/skills");
        let made = link_skill(&claude, &canonical, "web", &files, false, None).unwrap();
        assert_eq!(made, Linked::Linked(claude.join("web")));
        assert_eq!(std::fs::read(claude.join("web/SKILL.md")).unwrap(), files[0].bytes);
        assert_eq!(
            link_skill(&claude, &canonical, "web", &files, false, None).unwrap(),
            Linked::Unchanged(claude.join("web"))
        );
        std::fs::create_dir_all(claude.join("mine")).unwrap();
        assert_eq!(
            link_skill(&claude, &canonical, "mine", &files, false, None).unwrap(),
            Linked::Occupied(claude.join("mine"))
        );
        let goose = dir.path().join(".goose/skills");
        assert_eq!(
            link_skill(&goose, &canonical, "web", &files, true, None).unwrap(),
            Linked::Copied(goose.join("web"))
        );
        assert!(!goose.join("web").symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(
            link_skill(&goose, &canonical, "web", &files, true, None).unwrap(),
            Linked::Unchanged(goose.join("web"))
        );
        // The copy of the version before is replaced; an edited copy is not.
        let v2 = vec![SkillFile {
            rel: "SKILL.md".into(),
            bytes: b"---\nname: web\ndescription: v2\n---\n".to_vec(),
        }];
        let v1 = crate::write::digests_of_files(&files);
        assert_eq!(
            link_skill(&goose, &canonical, "web", &v2, true, Some(&v1)).unwrap(),
            Linked::Copied(goose.join("web"))
        );
        assert_eq!(std::fs::read(goose.join("web/SKILL.md")).unwrap(), v2[0].bytes);
        std::fs::write(goose.join("web/SKILL.md"), "edited").unwrap();
        assert_eq!(
            link_skill(&goose, &canonical, "web", &files, true, Some(&v1)).unwrap(),
            Linked::Occupied(goose.join("web"))
        );
    }
}

//! Writing one skill into a folder, atomically: the new files are written into a
//! staging folder beside the target (same file system), then renamed into place, the
//! old version moved aside first and removed last. A run killed at any point leaves the
//! old version or the new one, never a mix; the next run puts a version left aside back
//! ([`recover`]). Nothing a person edited is replaced unless asked, and then it is kept
//! as a backup.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use skills_core::digest::sha256_text;

/// Most files of one skill (the MCP skills extension's limit).
pub const MAX_FILES: usize = 512;
/// Most bytes of one skill's files together (the MCP skills extension's limit).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The folder beside the installed skills where staging copies, versions moved aside
/// and backups live (hidden, and outside the skills folder so no agent reads it).
pub const WORK_DIR: &str = ".skills-install";

/// One file of a skill: its path inside the skill's folder (`/`-separated) and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// The path inside the skill's folder.
    pub rel: String,
    /// The content.
    pub bytes: Vec<u8>,
}

/// Why a skill could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A file's path would leave the skill's folder, or is not a plain relative path.
    #[error("skill {skill}: refused path {rel:?}: {reason}")]
    BadPath {
        /// The skill.
        skill: String,
        /// The path as given.
        rel: String,
        /// Why.
        reason: &'static str,
    },
    /// The skill's name cannot be a folder name.
    #[error("skill {0:?}: its name cannot be a folder name")]
    BadName(String),
    /// Over [`MAX_FILES`] or [`MAX_BYTES`].
    #[error("skill {skill}: {what}, over the limit of {limit}")]
    TooLarge {
        /// The skill.
        skill: String,
        /// What was counted.
        what: String,
        /// The limit.
        limit: u64,
    },
    /// Another run is installing into the same folder.
    #[error("another skills run is installing here (remove {} if none is)", .0.display())]
    Busy(PathBuf),
    /// The disk refused.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Checks that `files` may be written as skill `name`: a folder name, contained
/// relative paths (no `..`, no absolute path, no empty or `.` segment, no backslash, no
/// NUL), each path once, within [`MAX_FILES`] and [`MAX_BYTES`].
pub fn check(name: &str, files: &[SkillFile]) -> Result<(), WriteError> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) || name.starts_with('.') {
        return Err(WriteError::BadName(name.to_owned()));
    }
    let bad = |rel: &str, reason| WriteError::BadPath {
        skill: name.to_owned(),
        rel: rel.chars().take(200).collect(),
        reason,
    };
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0u64;
    for file in files {
        let rel = file.rel.as_str();
        if rel.starts_with('/') {
            return Err(bad(rel, "an absolute path"));
        }
        if rel.contains(['\\', '\0']) {
            return Err(bad(rel, "a backslash or NUL"));
        }
        if rel.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
            return Err(bad(rel, "an empty, `.` or `..` segment"));
        }
        if !seen.insert(rel) {
            return Err(bad(rel, "given twice"));
        }
        bytes += file.bytes.len() as u64;
    }
    if files.len() > MAX_FILES {
        let what = format!("{} files", files.len());
        return Err(WriteError::TooLarge {
            skill: name.to_owned(),
            what,
            limit: MAX_FILES as u64,
        });
    }
    if bytes > MAX_BYTES {
        return Err(WriteError::TooLarge {
            skill: name.to_owned(),
            what: format!("{bytes} bytes"),
            limit: MAX_BYTES,
        });
    }
    Ok(())
}

/// The digests of the regular files under `dir` by relative path (`None` when `dir`
/// does not exist). Links and other special files count as a change: they get a digest
/// no file has.
pub fn digests_of(dir: &Path) -> Result<Option<BTreeMap<String, String>>, WriteError> {
    if !dir.exists() {
        return Ok(None);
    }
    let mut out = BTreeMap::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&path).map_err(io_error(&path))? {
            let entry = entry.map_err(io_error(&path))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let kind = entry.file_type().map_err(io_error(&entry.path()))?;
            if kind.is_dir() {
                stack.push((entry.path(), rel));
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path()).map_err(io_error(&entry.path()))?;
                out.insert(rel, sha256_text(&bytes));
            } else {
                out.insert(rel, "special".to_owned());
            }
        }
    }
    Ok(Some(out))
}

/// The digests `files` would have on disk.
pub fn digests_of_files(files: &[SkillFile]) -> BTreeMap<String, String> {
    files.iter().map(|f| (f.rel.clone(), sha256_text(&f.bytes))).collect()
}

/// Writes `files` as `dir/name`, replacing what is there atomically. With `backup`,
/// the version replaced is kept at that path instead of removed. Returns the target.
pub fn replace(dir: &Path, name: &str, files: &[SkillFile], backup: Option<&Path>) -> Result<PathBuf, WriteError> {
    check(name, files)?;
    let work = work_dir(dir);
    std::fs::create_dir_all(&work).map_err(io_error(&work))?;
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let stamp = std::process::id();
    let staging = work.join(format!("{name}.staging-{stamp}"));
    let aside = work.join(format!("{name}.old-{stamp}"));
    let _ = std::fs::remove_dir_all(&staging);
    for file in files {
        let path = staging.join(&file.rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        std::fs::write(&path, &file.bytes).map_err(io_error(&path))?;
    }
    let target = dir.join(name);
    let had = target.symlink_metadata().is_ok();
    if had {
        std::fs::rename(&target, &aside).map_err(io_error(&target))?;
    }
    if let Err(source) = std::fs::rename(&staging, &target) {
        if had {
            let _ = std::fs::rename(&aside, &target);
        }
        return Err(WriteError::Io { path: target, source });
    }
    if had {
        match backup {
            Some(backup) => {
                if let Some(parent) = backup.parent() {
                    std::fs::create_dir_all(parent).map_err(io_error(parent))?;
                }
                std::fs::rename(&aside, backup).map_err(io_error(backup))?;
            }
            None => std::fs::remove_dir_all(&aside).map_err(io_error(&aside))?,
        }
    }
    Ok(target)
}

/// The work folder of the skills folder `dir`: beside it, not in it.
pub fn work_dir(dir: &Path) -> PathBuf {
    dir.parent().unwrap_or(Path::new(".")).join(WORK_DIR)
}

/// Finishes what a killed run left in `dir`'s work folder: a version moved aside whose
/// target is missing is put back; staging copies are removed. Returns the skills put
/// back.
pub fn recover(dir: &Path) -> Result<Vec<String>, WriteError> {
    let work = work_dir(dir);
    let Ok(entries) = std::fs::read_dir(&work) else {
        return Ok(Vec::new());
    };
    let mut restored = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error(&work))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if let Some((name, _)) = file_name.rsplit_once(".old-") {
            let target = dir.join(name);
            if target.symlink_metadata().is_err() {
                std::fs::rename(entry.path(), &target).map_err(io_error(&target))?;
                restored.push(name.to_owned());
            } else {
                std::fs::remove_dir_all(entry.path()).map_err(io_error(&entry.path()))?;
            }
        } else if file_name.contains(".staging-") {
            std::fs::remove_dir_all(entry.path()).map_err(io_error(&entry.path()))?;
        }
    }
    Ok(restored)
}

/// Writes one file atomically: a temporary file beside it, renamed over it (a reader
/// sees the old text or the new one, never part of it).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(io_error(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_error(path))
}

/// Where `--force` keeps the edited version of skill `name` it replaces or removes.
pub fn backup_path(dir: &Path, name: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    work_dir(dir).join("backup").join(format!("{name}-{secs}"))
}

/// Skill files from `(path, text)` pairs, for tests.
#[cfg(test)]
pub(crate) fn files(pairs: &[(&str, &str)]) -> Vec<SkillFile> {
    pairs
        .iter()
        .map(|(rel, text)| SkillFile {
            rel: (*rel).to_owned(),
            bytes: text.as_bytes().to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_paths_names_and_sizes_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        for rel in ["../escape", "/etc/passwd", "a/../../b", "a\\b", "", "a//b", "./a"] {
            let error = replace(&skills, "web", &files(&[(rel, "x")]), None).unwrap_err();
            assert!(matches!(error, WriteError::BadPath { .. }), "{rel:?}: {error}");
        }
        for name in ["", "..", "a/b", ".hidden"] {
            assert!(matches!(check(name, &[]), Err(WriteError::BadName(_))), "{name:?}");
        }
        let many: Vec<SkillFile> = (0..=MAX_FILES)
            .map(|i| SkillFile {
                rel: format!("f{i}"),
                bytes: Vec::new(),
            })
            .collect();
        assert!(matches!(check("web", &many), Err(WriteError::TooLarge { .. })));
        let big = vec![SkillFile {
            rel: "big".into(),
            bytes: vec![0; MAX_BYTES as usize + 1],
        }];
        assert!(matches!(check("web", &big), Err(WriteError::TooLarge { .. })));
        assert!(!skills.join("web").exists());
    }

    #[test]
    fn a_replacement_is_whole_and_keeps_a_backup_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        replace(&skills, "web", &files(&[("SKILL.md", "v1"), ("old.md", "o")]), None).unwrap();
        let backup = dir.path().join("backup/web");
        replace(
            &skills,
            "web",
            &files(&[("SKILL.md", "v2"), ("scripts/new.sh", "n")]),
            Some(&backup),
        )
        .unwrap();
        let now = digests_of(&skills.join("web")).unwrap().unwrap();
        assert_eq!(
            now,
            digests_of_files(&files(&[("SKILL.md", "v2"), ("scripts/new.sh", "n")]))
        );
        assert_eq!(std::fs::read_to_string(backup.join("old.md")).unwrap(), "o");
        // Nothing is left in the work folder.
        assert_eq!(std::fs::read_dir(work_dir(&skills)).unwrap().count(), 0);
    }

    #[test]
    fn a_run_killed_between_the_renames_is_recovered_to_the_old_version() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        replace(&skills, "web", &files(&[("SKILL.md", "v1")]), None).unwrap();
        // As a run killed after moving the old version aside, before the new one landed.
        let work = work_dir(&skills);
        std::fs::rename(skills.join("web"), work.join("web.old-99")).unwrap();
        std::fs::create_dir_all(work.join("web.staging-99")).unwrap();
        assert_eq!(recover(&skills).unwrap(), ["web"]);
        assert_eq!(std::fs::read_to_string(skills.join("web/SKILL.md")).unwrap(), "v1");
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    }
}

//! Listings: `ls_info`, the directories of walks, and the lookup of one name per
//! sub-directory, with entries made from `stat` results.

use std::fs::Metadata;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use skills_core::{BackendError, FileInfo, LOWERCASE_SKILL_FILE, SKILL_FILE, Walk, file_name_matches, path};

use crate::Inner;
use crate::at::Kind;
use crate::names::Names;
use crate::resolve::{self, map_io_error};

/// A directory of a walk: its backend path, its path on the host, and the level of its
/// entries (the root's own entries are level 1, so a child of the root is at 2).
pub(crate) type Dir = (String, PathBuf, usize);

impl Inner {
    pub(crate) fn ls_info(&self, asked: &str) -> Result<Vec<FileInfo>, BackendError> {
        let (normalized, dir) = self.resolve_dir(asked)?;
        self.list_dir(&normalized, &dir, &mut Vec::new())
            .map(|entries| entries.into_iter().map(|e| e.info).collect())
    }

    /// Lists a resolved directory. Entries whose name is not UTF-8, special files, and
    /// links leading out of the root (or nowhere) are left out, and said in `left_out`
    /// (`path: why`).
    pub(crate) fn list_dir(
        &self,
        dir_path: &str,
        dir: &Path,
        left_out: &mut Vec<String>,
    ) -> Result<Vec<Entry>, BackendError> {
        self.list_dir_keeping(dir_path, dir, None, left_out)
    }

    /// [`list_dir`](Self::list_dir), keeping only the files named `only` when it is
    /// given (directories are all kept): the other files are never `stat`ed.
    fn list_dir_keeping(
        &self,
        dir_path: &str,
        dir: &Path,
        only: Option<&str>,
        left_out: &mut Vec<String>,
    ) -> Result<Vec<Entry>, BackendError> {
        let keep_file = |name: &str| only.is_none_or(|only| file_name_matches(name, only));
        let names = Names::read(dir, dir_path, keep_file, left_out).map_err(|e| map_io_error(e, dir_path))?;
        let mut out = Vec::with_capacity(names.iter().len());
        for (name, kind) in names.iter() {
            let entry_path = path::join(dir_path, name);
            let host = host_join(dir, name);
            // A directory's metadata says nothing discovery uses, and a link is followed:
            // neither is `stat`ed as it is.
            let kind = match kind {
                Kind::Dir | Kind::Link => kind,
                _ => match names.stat(name, &host) {
                    Some(stated) if stated.kind == Kind::File => {
                        // A file whose kind only the `stat` told is filtered here.
                        if keep_file(name) {
                            out.push(Entry {
                                info: stated.entry(entry_path),
                                host,
                            });
                        }
                        continue;
                    }
                    Some(stated) => stated.kind,
                    // Deleted since it was listed.
                    None => continue,
                },
            };
            match kind {
                Kind::Dir => out.push(Entry {
                    host,
                    info: FileInfo::directory(entry_path),
                }),
                Kind::Link => out.extend(self.followed(host, entry_path, left_out)),
                _ => left_out.push(format!("{entry_path}: not a regular file")),
            }
        }
        Ok(out)
    }

    /// The entry a link at `host` stands for, followed within the root: its target's,
    /// under the link's path; `None` (said in `left_out`) for a link out of the source,
    /// to nothing, or to a special file.
    pub(crate) fn followed(&self, host: PathBuf, entry_path: String, left_out: &mut Vec<String>) -> Option<Entry> {
        let resolved = match resolve::contained(&self.root, &host, &entry_path) {
            Ok(resolved) => resolved,
            Err(e) => {
                tracing::debug!(path = entry_path, "skipping a link: {e}");
                left_out.push(format!("{entry_path}: a link leading out of the source"));
                return None;
            }
        };
        match std::fs::metadata(&resolved) {
            Ok(meta) if meta.is_dir() || meta.is_file() => Some(Entry {
                info: file_info(entry_path, &meta),
                host: resolved,
            }),
            Ok(_) => {
                left_out.push(format!("{entry_path}: not a regular file"));
                None
            }
            Err(_) => {
                left_out.push(format!("{entry_path}: a link to nothing"));
                None
            }
        }
    }

    /// Lists the first level of a walk: the root's entries (none when there are at most
    /// `listed_over` of them), and the sub-directories to descend into when `max_depth`
    /// goes deeper.
    pub(crate) fn walk_first(
        &self,
        asked: &str,
        max_depth: usize,
        listed_over: usize,
    ) -> Result<(Walk, Vec<Dir>), BackendError> {
        let (normalized, dir) = self.resolve_dir(asked)?;
        let mut walk = Walk::default();
        let mut below = Vec::new();
        if max_depth == 0 {
            return Ok((walk, below));
        }
        let listed = self.list_dir(&normalized, &dir, &mut walk.left_out)?;
        let keep = listed.len() > listed_over;
        if keep {
            walk.entries.reserve(listed.len());
        }
        if max_depth > 1 {
            below.reserve(listed.len());
        }
        for entry in listed {
            let descend = entry.info.is_dir && max_depth > 1;
            if !keep {
                // Not kept: the entry's path moves to the directory below.
                if descend {
                    below.push((entry.info.path, entry.host, 2));
                }
                continue;
            }
            if descend {
                below.push((entry.info.path.clone(), entry.host, 2));
            }
            walk.entries.push(entry.info);
        }
        Ok((walk, below))
    }

    /// Lists one directory of a walk down to `max_depth`: its entries go to `walk`, its
    /// sub-directories above `max_depth` to `below`; an unlisted directory is an error of
    /// the walk.
    pub(crate) fn walk_dir(
        &self,
        (dir_path, dir, depth): Dir,
        max_depth: usize,
        walk: &mut Walk,
        below: &mut Vec<Dir>,
    ) {
        let entries = match self.list_dir(&dir_path, &dir, &mut walk.left_out) {
            Ok(entries) => entries,
            Err(e) => {
                walk.errors.push(e);
                return;
            }
        };
        for entry in entries {
            if entry.info.is_dir && depth < max_depth {
                below.push((entry.info.path.clone(), entry.host, depth + 1));
            }
            walk.entries.push(entry.info);
        }
    }

    /// One directory of a walk for `BackendProtocol::find_files`, down to `max_depth`:
    /// the directory is first asked for `<dir>/<file_name>` with one `stat`; one that
    /// holds it is a skill folder and is not listed, and neither is a hidden directory or
    /// `node_modules`; the others are listed for their sub-directories only.
    pub(crate) fn find_in_dir(
        &self,
        (dir_path, dir, depth): Dir,
        max_depth: usize,
        file_name: &str,
        walk: &mut Walk,
        below: &mut Vec<Dir>,
    ) {
        let errors = walk.errors.len();
        let holds = self.one_child_file(&dir_path, &dir, file_name, walk);
        // A folder that cannot be looked into is reported once, not listed as well.
        let unreadable = walk.errors.len() > errors;
        let name = path::file_name(&dir_path);
        let lowercase = file_name == SKILL_FILE;
        if holds || unreadable || depth >= max_depth || name.starts_with('.') || name == "node_modules" {
            // A folder not listed may still hold the skill file under its lowercase name.
            if !holds && !unreadable && lowercase {
                self.one_child_file(&dir_path, &dir, LOWERCASE_SKILL_FILE, walk);
            }
            return;
        }
        // The listing keeps the files `file_name` stands for: a lowercase skill file
        // makes this a skill folder without one more `stat`.
        let entries = match self.list_dir_keeping(&dir_path, &dir, Some(file_name), &mut Vec::new()) {
            Ok(entries) => entries,
            Err(e) => {
                walk.errors.push(e);
                return;
            }
        };
        let skill_file = entries
            .iter()
            .find(|e| lowercase && !e.info.is_dir && path::file_name(&e.info.path) == LOWERCASE_SKILL_FILE);
        if let Some(skill_file) = skill_file {
            walk.entries.push(skill_file.info.clone());
            return;
        }
        for entry in entries.into_iter().filter(|e| e.info.is_dir) {
            below.push((entry.info.path.clone(), entry.host, depth + 1));
            walk.entries.push(entry.info);
        }
    }

    /// Adds `<dir>/<file_name>` to `walk` when it is there (or an error under the
    /// directory's path when the directory cannot be looked into); whether it was there.
    /// `source`, when given, is the folder the directory lies in, held open: a plain
    /// sub-directory of it is asked relative to it (see [`crate::at`]).
    pub(crate) fn child_file(
        &self,
        source: Option<&crate::at::SourceDir>,
        dir_path: &str,
        dir: &Path,
        file_name: &str,
        walk: &mut Walk,
    ) -> bool {
        self.skill_file_of(file_name, walk, |name, walk| {
            match source.and_then(|s| s.child_file(dir_path, dir, name, walk)) {
                Some(found) => found,
                None => self.one_child_file(dir_path, dir, name, walk),
            }
        })
    }

    /// Asks a folder for `file_name` with `one` (which adds what it finds to `walk` and
    /// says whether it was there); a folder without `SKILL.md` is asked for the skill
    /// file under its lowercase name, when it could be looked into.
    pub(crate) fn skill_file_of(
        &self,
        file_name: &str,
        walk: &mut Walk,
        mut one: impl FnMut(&str, &mut Walk) -> bool,
    ) -> bool {
        let errors = walk.errors.len();
        one(file_name, walk)
            || (file_name == SKILL_FILE && walk.errors.len() == errors && one(LOWERCASE_SKILL_FILE, walk))
    }

    pub(crate) fn one_child_file(&self, dir_path: &str, dir: &Path, file_name: &str, walk: &mut Walk) -> bool {
        let entry_path = path::join(dir_path, file_name);
        let host = host_join(dir, file_name);
        let meta = match std::fs::symlink_metadata(&host) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = resolve::contained(&self.root, &host, &entry_path)
                    .and_then(|resolved| std::fs::metadata(resolved).map_err(|e| map_io_error(e, &entry_path)));
                match target {
                    Ok(meta) => meta,
                    Err(e) => {
                        tracing::debug!(path = entry_path, "skipping a link: {e}");
                        return false;
                    }
                }
            }
            Ok(meta) => meta,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => return false,
            Err(e) => {
                walk.errors.push(map_io_error(e, dir_path));
                return false;
            }
        };
        if meta.is_dir() {
            walk.entries.push(FileInfo::directory(entry_path));
        } else if meta.is_file() {
            walk.entries.push(file_info(entry_path, &meta));
        } else {
            return false;
        }
        true
    }
}

/// `dir/name` on the host, allocated once at its final size (`Path::join` grows it).
fn host_join(dir: &Path, name: &str) -> PathBuf {
    let mut host = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    host.push(dir);
    host.push(name);
    host
}

pub(crate) struct Entry {
    host: PathBuf,
    info: FileInfo,
}

impl Entry {
    /// Its backend path, its path on the host, and whether it is a directory.
    pub(crate) fn into_parts(self) -> (String, PathBuf, bool) {
        (self.info.path, self.host, self.info.is_dir)
    }
}

fn file_info(path: String, meta: &Metadata) -> FileInfo {
    if meta.is_dir() {
        return FileInfo {
            path,
            is_dir: true,
            size: 0,
            modified_at: meta.modified().ok(),
            etag: None,
            changed_at: None,
        };
    }
    crate::at::Stated::of_metadata(meta).entry(path)
}

//! Reads from the served tree: path lookup, listings, walks and blob downloads, straight
//! from the object database.

use std::collections::HashMap;
use std::time::SystemTime;

use git2::{ObjectType, Oid, Repository, Tree, TreeEntry};
use skills_core::path;
use skills_core::{BackendError, FileDownloadResponse, FileErrorKind, FileInfo, Walk};

use super::GitBackend;

/// Trees with more entries than this get a name index the first time a path is looked
/// up in them.
const INDEXED_TREE_ENTRIES: usize = 256;

/// Most entries all the indexes together hold (about 100 bytes each) before they are
/// dropped and built again as lookups need them.
const MAX_INDEXED_ENTRIES: usize = 1_000_000;

/// An entry of a tree: its object, file mode and kind.
type Child = (Oid, i32, Option<ObjectType>);

/// Name indexes of large trees, by tree id (a tree's content never changes, so an index
/// never goes stale).
///
/// libgit2 caches only small trees (up to 4 KiB), so every path lookup in a folder of
/// thousands of skills read and parsed that folder's tree again: discovery was quadratic
/// in the skills of one folder. With the index each lookup is one hash probe per large
/// tree on the path.
#[derive(Default)]
pub(crate) struct TreeIndexes {
    trees: HashMap<Oid, HashMap<Box<str>, Child>>,
    entries: usize,
}

impl GitBackend {
    /// The tree entry at a normalized backend path.
    fn lookup<'r>(&self, repo: &'r Repository, normalized: &str) -> Result<Node<'r>, BackendError> {
        let served = self.served();
        let not_found = || BackendError::NotFound {
            path: normalized.to_owned(),
        };
        let root = served.root.ok_or_else(not_found)?;
        let rel = normalized.trim_start_matches('/');
        let (mut id, mut mode, mut kind) = (root, 0o040000, Some(ObjectType::Tree));
        if !rel.is_empty() {
            for name in rel.split('/') {
                if kind != Some(ObjectType::Tree) {
                    return Err(not_found());
                }
                (id, mode, kind) = self.child(repo, id, name, normalized)?.ok_or_else(not_found)?;
            }
        }
        match (kind, mode) {
            (Some(ObjectType::Tree), _) => {
                let tree = repo.find_tree(id).map_err(|e| self.error(normalized, &e))?;
                Ok(Node::Tree(tree, served.time))
            }
            (Some(ObjectType::Blob), 0o100644 | 0o100755) => Ok(Node::Blob(id)),
            _ => Ok(Node::Unserved),
        }
    }

    /// The entry `name` of tree `id`, through its index when the tree is large.
    fn child(&self, repo: &Repository, id: Oid, name: &str, path: &str) -> Result<Option<Child>, BackendError> {
        let mut indexes = self.inner.trees.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = indexes.trees.get(&id) {
            return Ok(index.get(name).copied());
        }
        let tree = repo.find_tree(id).map_err(|e| self.error(path, &e))?;
        let found = tree
            .get_name(name)
            .map(|entry| (entry.id(), entry.filemode(), entry.kind()));
        if tree.len() > INDEXED_TREE_ENTRIES {
            if indexes.entries + tree.len() > MAX_INDEXED_ENTRIES {
                *indexes = TreeIndexes::default();
            }
            let index: HashMap<Box<str>, Child> = tree
                .iter()
                .filter_map(|entry| Some((entry.name().ok()?.into(), (entry.id(), entry.filemode(), entry.kind()))))
                .collect();
            indexes.entries += index.len();
            indexes.trees.insert(id, index);
        }
        Ok(found)
    }

    pub(super) fn ls_blocking(&self, normalized: &str) -> Result<Vec<FileInfo>, BackendError> {
        let repo = self.repo();
        let odb = repo.odb().map_err(|e| self.error(normalized, &e))?;
        match self.lookup(&repo, normalized)? {
            Node::Tree(tree, time) => {
                let mut entries: Vec<FileInfo> = tree
                    .iter()
                    .filter_map(|entry| self.info(&odb, &path::join(normalized, name_of(&entry)?), &entry, time))
                    .collect();
                entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                Ok(entries)
            }
            Node::Blob(..) | Node::Unserved => Err(BackendError::NotADirectory {
                path: normalized.to_owned(),
            }),
        }
    }

    /// The object database and the tree at `normalized`, with the served commit's time,
    /// for a walk.
    fn walk_start<'r>(
        &self,
        repo: &'r Repository,
        normalized: &str,
    ) -> Result<(git2::Odb<'r>, Tree<'r>, SystemTime), BackendError> {
        let odb = repo.odb().map_err(|e| self.error(normalized, &e))?;
        match self.lookup(repo, normalized)? {
            Node::Tree(tree, time) => Ok((odb, tree, time)),
            Node::Blob(..) | Node::Unserved => Err(BackendError::NotADirectory {
                path: normalized.to_owned(),
            }),
        }
    }

    pub(super) fn walk_blocking(&self, normalized: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let repo = self.repo();
        let (odb, tree, time) = self.walk_start(&repo, normalized)?;
        let mut walk = Walk::default();
        let mut stack = vec![(tree, normalized.to_owned(), 1usize)];
        while let Some((tree, dir, depth)) = stack.pop() {
            if depth > max_depth {
                continue;
            }
            for entry in tree.iter() {
                let Some(name) = name_of(&entry) else { continue };
                let child = path::join(&dir, name);
                let Some(info) = self.info(&odb, &child, &entry, time) else {
                    walk.left_out.push(unserved(&child, &entry));
                    continue;
                };
                if info.is_dir && depth < max_depth {
                    match repo.find_tree(entry.id()) {
                        Ok(sub) => stack.push((sub, child, depth + 1)),
                        Err(e) => walk.errors.push(self.error(&info.path, &e)),
                    }
                }
                walk.entries.push(info);
            }
        }
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// What [`child_files`](skills_core::BackendProtocol::child_files) (`first_level`:
    /// every entry of the first level, and the files named `file_name` of the second) or
    /// [`find_files`](skills_core::BackendProtocol::find_files) (the files named
    /// `file_name` down to `max_depth`, and the folders on the way; not inside a folder
    /// that holds one, a hidden folder or `node_modules`) answer. Only the files kept
    /// have their size read: a blob's size can cost resolving its deltas in a pack, and
    /// a walk of every file read it for each (tomevault-io/skills-registry: 129,091 files
    /// for 40,304 skill files).
    pub(super) fn find_blocking(
        &self,
        normalized: &str,
        file_name: &str,
        max_depth: usize,
        first_level: bool,
    ) -> Result<Walk, BackendError> {
        let repo = self.repo();
        let (odb, tree, time) = self.walk_start(&repo, normalized)?;
        let mut walk = Walk::default();
        let keep = |walk: &mut Walk, child: String, entry: &TreeEntry<'_>| match self.info(&odb, &child, entry, time) {
            Some(info) => walk.entries.push(info),
            None => walk.left_out.push(unserved(&child, entry)),
        };
        // Each folder with the depth of its entries.
        let mut stack = vec![(tree, normalized.to_owned(), 1usize)];
        while let Some((tree, dir, depth)) = stack.pop() {
            if depth > max_depth {
                continue;
            }
            let whole = first_level && depth == 1;
            let mut holds = false;
            for entry in tree.iter() {
                let Some(name) = name_of(&entry) else { continue };
                if whole || skills_core::file_name_matches(name, file_name) {
                    holds |= !whole;
                    keep(&mut walk, path::join(&dir, name), &entry);
                }
            }
            let inner = depth > 1 || !first_level;
            let name = path::file_name(&dir);
            let not_below =
                !first_level && dir != normalized && (holds || name.starts_with('.') || name == "node_modules");
            if depth >= max_depth || not_below || (first_level && depth > 1) {
                continue;
            }
            for entry in tree.iter().filter(|e| e.kind() == Some(ObjectType::Tree)) {
                let Some(name) = name_of(&entry).filter(|n| !skills_core::file_name_matches(n, file_name)) else {
                    continue;
                };
                let child = path::join(&dir, name);
                if inner {
                    keep(&mut walk, child.clone(), &entry);
                }
                match repo.find_tree(entry.id()) {
                    Ok(sub) => stack.push((sub, child, depth + 1)),
                    Err(e) => walk.errors.push(self.error(&child, &e)),
                }
            }
        }
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// A listing entry, or `None` for what is not served (links, submodules, names that
    /// are not valid backend path components).
    fn info(&self, odb: &git2::Odb<'_>, path: &str, entry: &TreeEntry<'_>, time: SystemTime) -> Option<FileInfo> {
        match (entry.kind()?, entry.filemode()) {
            (ObjectType::Tree, _) => Some(FileInfo {
                path: path.to_owned(),
                is_dir: true,
                size: 0,
                modified_at: Some(time),
                etag: None,
                changed_at: None,
            }),
            (ObjectType::Blob, 0o100644 | 0o100755) => {
                // A damaged or missing blob is still listed (size 0), so reading it fails
                // with a typed error and a skill it belongs to keeps its last good
                // version, instead of vanishing from the listing as if deleted.
                let size = odb.read_header(entry.id()).map_or(0, |(size, _)| size as u64);
                Some(FileInfo {
                    path: path.to_owned(),
                    is_dir: false,
                    size,
                    modified_at: Some(time),
                    etag: Some(entry.id().to_string()),
                    changed_at: None,
                })
            }
            _ => None,
        }
    }

    pub(super) fn download_blocking(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let repo = self.repo();
        let odb = repo.odb();
        paths
            .iter()
            .map(|asked| {
                let normalized = match path::normalize(asked) {
                    Ok(normalized) => normalized,
                    Err(e) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, e.to_string()),
                };
                let id = match self.lookup(&repo, &normalized) {
                    Ok(Node::Blob(id)) => id,
                    Ok(Node::Tree(..)) => {
                        return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory");
                    }
                    Ok(Node::Unserved) => {
                        return FileDownloadResponse::err(
                            asked,
                            FileErrorKind::InvalidPath,
                            "symbolic links and submodules are not served",
                        );
                    }
                    Err(e) => return FileDownloadResponse::err(asked, e.file_error_kind(), e.to_string()),
                };
                let header = match &odb {
                    Ok(odb) => odb.read_header(id),
                    Err(e) => Err(git2::Error::from_str(e.message())),
                };
                let size = match header {
                    Ok((size, _)) => size as u64,
                    Err(e) => {
                        let message = self.error(asked, &e).to_string();
                        return FileDownloadResponse::err(asked, FileErrorKind::Other, message);
                    }
                };
                if size > self.inner.max_file_size {
                    return FileDownloadResponse::err(
                        asked,
                        FileErrorKind::TooLarge,
                        format!("{size} bytes is over the {} byte limit", self.inner.max_file_size),
                    );
                }
                match repo.find_blob(id) {
                    Ok(blob) => FileDownloadResponse::ok(asked, blob.content().to_vec()),
                    Err(e) => FileDownloadResponse::err(asked, FileErrorKind::Other, self.error(asked, &e).to_string()),
                }
            })
            .collect()
    }
}

enum Node<'r> {
    Tree(Tree<'r>, SystemTime),
    Blob(Oid),
    Unserved,
}

/// Why the entry at `path` is not served, for [`Walk::left_out`].
fn unserved(path: &str, entry: &TreeEntry<'_>) -> String {
    let what = if entry.filemode() == 0o120000 {
        "a symbolic link"
    } else {
        "a submodule or special entry"
    };
    format!("{path}: {what} (not served from git)")
}

/// An entry's name when it is a valid backend path component.
fn name_of<'a>(entry: &'a TreeEntry<'_>) -> Option<&'a str> {
    let name = entry.name().ok()?;
    let valid = path::normalize(&format!("/{name}")).is_ok_and(|p| p.len() == name.len() + 1);
    valid.then_some(name)
}

//! Moving the served commit: fetch (remotes), resolve the ref, refuse a target that shares
//! no history with what is served, and name the files that changed.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use git2::{ErrorCode, ObjectType, Oid, Repository};

use super::{GitBackend, Refreshed, Served};
use crate::GitError;
use crate::remote;
use crate::spec::GitRef;

impl GitBackend {
    /// Fetches (for a remote) and resolves the ref again. `Ok(None)`: still the same
    /// commit. On failure the last good commit stays served and the reason is kept in
    /// [`problem`](Self::problem). Blocking.
    pub fn refresh(&self) -> Result<Option<Refreshed>, GitError> {
        // One refresh at a time, on a handle of its own: reads go on during a fetch.
        let _one = self.inner.refreshing.lock().unwrap_or_else(|e| e.into_inner());
        let repo = match Repository::open(&self.inner.git_dir) {
            Ok(repo) => repo,
            Err(e) => return Err(self.keep_serving(format!("cannot open the repository: {}", e.message()))),
        };
        let next = self.next_served(&repo).map_err(|reason| self.keep_serving(reason))?;
        let mut served = self.inner.served.write().unwrap_or_else(|e| e.into_inner());
        if next.commit == served.commit {
            served.problem = None;
            return Ok(None);
        }
        let changed = changed_paths(&repo, served.root, next.root).map_err(|e| GitError::git(&self.inner.name, &e))?;
        let refreshed = Refreshed {
            from: served.commit.to_string(),
            to: next.commit.to_string(),
            changed,
        };
        *served = next;
        Ok(Some(refreshed))
    }

    /// Records why a refresh keeps the served commit, and returns that as the error.
    fn keep_serving(&self, reason: String) -> GitError {
        let mut served = self.inner.served.write().unwrap_or_else(|e| e.into_inner());
        served.problem = Some(format!("{reason}; serving {}", served.commit));
        GitError::Resolve {
            name: self.inner.name.clone(),
            reason,
        }
    }

    /// Fetches (a remote) and resolves the ref on `repo`: what to serve next.
    fn next_served(&self, repo: &Repository) -> Result<Served, String> {
        if let Some(remote) = &self.inner.remote {
            remote::fetch(repo, remote).map_err(|e| format!("fetch failed: {e}"))?;
        }
        let next = resolve(
            repo,
            self.inner.remote.is_some(),
            &self.inner.reference,
            &self.inner.subdir,
        )?;
        let current = self.served().commit;
        if next.commit != current && repo.merge_base(next.commit, current).is_err() {
            return Err(format!(
                "{} moved to {}, which shares no history with the served commit (force-pushed?)",
                self.inner.reference, next.commit
            ));
        }
        Ok(next)
    }
}

/// The commit a ref names now, and its sub-directory tree.
pub(super) fn resolve(repo: &Repository, is_remote: bool, reference: &GitRef, subdir: &str) -> Result<Served, String> {
    let branch_ref = |name: &str| {
        if is_remote {
            format!("refs/remotes/origin/{name}")
        } else {
            format!("refs/heads/{name}")
        }
    };
    let find = |name: &str| repo.find_reference(name).and_then(|r| r.peel_to_commit());
    let commit = match reference {
        GitRef::Head if is_remote => find("refs/remotes/origin/HEAD"),
        GitRef::Head => repo.head().and_then(|r| r.peel_to_commit()),
        GitRef::Branch(name) => find(&branch_ref(name)).or_else(|_| find(&format!("refs/tags/{name}"))),
        GitRef::Tag(name) => find(&format!("refs/tags/{name}")),
        GitRef::Commit(id) => Oid::from_str(id).and_then(|oid| repo.find_commit(oid)),
    }
    .map_err(|e| match e.code() {
        ErrorCode::NotFound | ErrorCode::UnbornBranch => format!("{reference} does not exist"),
        _ => format!("cannot resolve {reference}: {}", e.message()),
    })?;
    let tree = commit.tree().map_err(|e| e.message().to_owned())?;
    let root = if subdir.is_empty() {
        Some(tree.id())
    } else {
        tree.get_path(Path::new(subdir))
            .ok()
            .filter(|entry| entry.kind() == Some(ObjectType::Tree))
            .map(|entry| entry.id())
    };
    let seconds = u64::try_from(commit.time().seconds()).unwrap_or(0);
    Ok(Served {
        commit: commit.id(),
        root,
        time: UNIX_EPOCH + Duration::from_secs(seconds),
        problem: None,
    })
}

/// Backend paths of the blobs that differ between two sub-directory trees.
fn changed_paths(repo: &Repository, old: Option<Oid>, new: Option<Oid>) -> Result<Vec<String>, git2::Error> {
    let old = old.map(|id| repo.find_tree(id)).transpose()?;
    let new = new.map(|id| repo.find_tree(id)).transpose()?;
    let diff = repo.diff_tree_to_tree(old.as_ref(), new.as_ref(), None)?;
    let mut paths: Vec<String> = diff
        .deltas()
        .flat_map(|delta| [delta.old_file().path(), delta.new_file().path()])
        .flatten()
        .filter_map(|p| p.to_str())
        .map(|p| format!("/{p}"))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    Ok(paths)
}

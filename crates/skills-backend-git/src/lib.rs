//! The git backend of agent-skills: a [`BackendProtocol`](skills_core::BackendProtocol)
//! over the tree of a branch, tag or commit, read straight from the object database
//! (no checkout), with hot reload when the ref moves.
//!
//! - [`GitBackend::open`] serves a local repository (bare or not);
//!   [`GitBackend::remote`] clones a `file://`, `git://`, `https://` or `ssh://` remote
//!   into a cache directory and fetches it again on [`refresh`](GitBackend::refresh).
//! - [`GitSpec`] parses the source syntax `git+https://host/repo.git#ref=main&path=skills`.
//! - `etag` is the blob id: a catalog re-reads only the skills a commit changed.
//! - Its [`Watch`](skills_core::Watch) follows the ref (notify on a local repository's
//!   refs, periodic fetch for a remote) and reports the files that changed.
//!
//! Credentials for remotes: https uses `SKILLS_GIT_TOKEN` (with `SKILLS_GIT_USERNAME`,
//! default `x-access-token`) or git's configured credential helper; ssh uses
//! `SKILLS_GIT_SSH_KEY` (a private key file) or the ssh agent. They are never logged, and
//! passwords in URLs are shown as `***`.
//!
//! ```
//! use std::path::Path;
//! use git2::{Repository, Signature};
//! use skills_backend_git::{GitBackend, GitRef};
//! use skills_core::list_skills;
//!
//! // A repository with one commit on `main` (no working-tree files needed).
//! let dir = tempfile::tempdir().unwrap();
//! let repo = Repository::init_bare(dir.path()).unwrap();
//! let blob = repo.blob(b"---\nname: web\ndescription: Search\n---\n").unwrap();
//! let mut skill = repo.treebuilder(None).unwrap();
//! skill.insert("SKILL.md", blob, 0o100644).unwrap();
//! let mut skills = repo.treebuilder(None).unwrap();
//! skills.insert("web", skill.write().unwrap(), 0o040000).unwrap();
//! let mut root = repo.treebuilder(None).unwrap();
//! root.insert("skills", skills.write().unwrap(), 0o040000).unwrap();
//! let tree = repo.find_tree(root.write().unwrap()).unwrap();
//! let me = Signature::now("me", "me@example.com").unwrap();
//! repo.commit(Some("refs/heads/main"), &me, &me, "skills", &tree, &[]).unwrap();
//!
//! let backend = GitBackend::open(dir.path())
//!     .reference(GitRef::Branch("main".into()))
//!     .subdir("skills").unwrap()
//!     .open().unwrap();
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let listing = list_skills(&backend, "/").await.unwrap();
//! assert_eq!(listing.skills[0].path, "/web/SKILL.md");
//! # });
//! assert_eq!(backend.commit_id().len(), 40);
//! ```

#![warn(missing_docs)]

mod remote;
mod repo;
mod spec;
#[cfg(feature = "test-support")]
pub mod test_support;
mod watch;

use std::path::PathBuf;

pub use git2;
pub use remote::{
    SSH_KEY_ENV, TOKEN_ENV, USERNAME_ENV, load_certificates_on_first_fetch, set_network_timeouts,
    skip_hash_checks_on_reads,
};
pub use repo::{DEFAULT_FETCH_INTERVAL, GitBackend, GitBackendBuilder, Refreshed};
pub use spec::{GitRef, GitSpec};

/// Why a git backend could not be opened or refreshed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// A source, ref or sub-directory that does not parse.
    #[error("invalid git source {spec:?}: {reason}")]
    InvalidSpec {
        /// What was given (passwords hidden).
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// libgit2 failed (open, fetch, read).
    #[error("{name}: {message}")]
    Git {
        /// The repository (passwords hidden).
        name: String,
        /// libgit2's explanation.
        message: String,
    },
    /// The ref could not be resolved to a commit, or moved somewhere it may not.
    #[error("{name}: {reason}")]
    Resolve {
        /// The source (passwords hidden).
        name: String,
        /// Why.
        reason: String,
    },
    /// The cache directory could not be created.
    #[error("{}: {message}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
}

impl GitError {
    pub(crate) fn git(name: impl Into<String>, error: &git2::Error) -> Self {
        Self::Git {
            name: name.into(),
            message: redact_all(error.message()),
        }
    }
}

/// Hides passwords of any URL inside a message.
fn redact_all(message: &str) -> String {
    message
        .split(' ')
        .map(skills_core::url::redact_url)
        .collect::<Vec<_>>()
        .join(" ")
}

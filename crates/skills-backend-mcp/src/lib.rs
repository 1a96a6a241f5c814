//! Agent Skills from any MCP server that publishes them with the MCP skills extension
//! (SEP-2640), as a read-only [`BackendProtocol`]: an agent on `SkillsMiddleware` merges
//! a vendor's MCP-served skills with its own, `skills sync` installs them, `skills serve`
//! serves them again.
//!
//! - [`McpBackend`] connects over streamable HTTP (`mcp+http://` on loopback,
//!   `mcp+https://` anywhere) or stdio (a command and its arguments), with the rmcp
//!   client.
//! - `skills/list` (every page, bounded) gives the skills and their file manifests:
//!   skill `skill://PATH/SKILL.md` is the folder `/PATH`, each manifest entry a file in
//!   it, with the manifest's size and digest as size and etag. A file URI outside its
//!   skill, a skill over 512 files or 16 MiB, or two skills at one path are left out and
//!   said ([`McpBackend::problems`]).
//! - `resources/read` gives each file; a file over the size limit is never asked for,
//!   and bytes that do not match the manifest's SHA-256 digest are never served (the
//!   read fails, and discovery reports `read-failed` naming the file). A skill whose
//!   resources are `"dynamic"` is served without digests: its `SKILL.md` and what
//!   `resources/directory/read` lists in it, when the server offers that.
//! - A server that cannot be reached when a listing starts is an error (discovery's
//!   `source-unreadable`); one that fails later keeps the last listing served
//!   ([`stale`](BackendProtocol::stale)) and is connected again, at most once per
//!   backoff step (1 s doubling to 30 s). Every request has a timeout.
//! - [`Watch`](skills_core::Watch): `notifications/resources/list_changed` asks for the
//!   list again at once; otherwise it is polled, never before the server's `ttlMs`.
//!
//! ```
//! use skills_backend_mcp::{McpBackend, McpTarget};
//! let http = McpBackend::new(McpTarget::http("http://127.0.0.1:8000/mcp").unwrap());
//! assert_eq!(http.identity(), "http://127.0.0.1:8000/mcp");
//! assert!(McpTarget::http("http://example.com/mcp").is_err(), "plain HTTP off loopback");
//! let stdio = McpBackend::new(McpTarget::stdio("skills", ["serve"]));
//! assert_eq!(stdio.identity(), "skills serve");
//! ```

#![warn(missing_docs)]

mod connection;
mod failure;
mod target;
mod tree;
mod watch;

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::StreamExt as _;
use skills_core::digest::sha256_text;
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo, path,
};

pub use connection::McpLifecycle;
pub use target::{McpTarget, TargetError};
pub use tree::{MAX_SKILL_BYTES, MAX_SKILL_FILES, MAX_SKILLS};

use crate::connection::Connector;
use crate::tree::{Tree, shown};

/// The most pages of `skills/list` read in one listing.
pub const MAX_PAGES: usize = 1_000;
/// How long one request may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a watch asks for the list when the server gives no `ttlMs` and sends no
/// notification.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// How many files are read at once.
const CONCURRENT_READS: usize = 4;

/// A read-only backend over the skills an MCP server publishes.
#[derive(Clone)]
pub struct McpBackend {
    inner: Arc<Inner>,
}

struct Inner {
    connector: Connector,
    max_file_size: u64,
    poll_interval: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    tree: Option<Arc<Tree>>,
    /// When the last listing was read, and for how long the server said it is fresh.
    fresh_until: Option<Instant>,
    /// What the last listing left out.
    problems: Vec<String>,
    /// Why the tree served is not the server's current one.
    stale: Option<String>,
}

impl fmt::Debug for McpBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpBackend")
            .field("server", &self.identity())
            .finish_non_exhaustive()
    }
}

impl McpBackend {
    /// A backend over the server `target` names; nothing is connected until the first
    /// request.
    pub fn new(target: McpTarget) -> Self {
        Self {
            inner: Arc::new(Inner {
                connector: Connector::new(target, DEFAULT_TIMEOUT),
                max_file_size: DEFAULT_MAX_FILE_SIZE,
                poll_interval: DEFAULT_POLL_INTERVAL,
                state: Mutex::default(),
            }),
        }
    }

    /// With another timeout per request (default [`DEFAULT_TIMEOUT`]).
    pub fn with_timeout(self, timeout: Duration) -> Self {
        self.rebuilt(|inner| inner.connector = inner.connector.with_timeout(timeout))
    }

    /// With another way to start sessions (default [`McpLifecycle::Auto`]).
    pub fn with_lifecycle(self, lifecycle: McpLifecycle) -> Self {
        self.rebuilt(|inner| inner.connector = inner.connector.with_lifecycle(lifecycle))
    }

    /// The protocol version of the last session (`2026-07-28`, `2025-11-25`, ...), once
    /// one was made.
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.connector.protocol()
    }

    /// With another polling interval for a watch of a server that sends no
    /// notifications and no `ttlMs` (default [`DEFAULT_POLL_INTERVAL`]).
    pub fn with_poll_interval(self, interval: Duration) -> Self {
        self.rebuilt(|inner| inner.poll_interval = interval)
    }

    fn rebuilt(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                connector: shared.connector.clone(),
                max_file_size: shared.max_file_size,
                poll_interval: shared.poll_interval,
                state: Mutex::default(),
            },
        };
        change(&mut inner);
        Self { inner: Arc::new(inner) }
    }

    /// Who serves the skills: the server's URL, or its command line (never a token).
    /// A skill's identity is this and its URI.
    pub fn identity(&self) -> String {
        self.inner.connector.target().to_string()
    }

    /// What the last listing left out, and why (a file URI outside its skill, a skill
    /// over the limits, ...).
    pub fn problems(&self) -> Vec<String> {
        self.state().problems.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The tree to answer from: listed again when `refresh` and the last listing is no
    /// longer fresh, or when there is none. A server that fails keeps the last tree
    /// (marked stale); with none, the failure is the answer.
    async fn tree(&self, refresh: bool) -> Result<Arc<Tree>, BackendError> {
        {
            let state = self.state();
            if let Some(tree) = &state.tree {
                let fresh = state.fresh_until.is_some_and(|until| Instant::now() < until);
                if !refresh || fresh {
                    return Ok(tree.clone());
                }
            }
        }
        match self.list().await {
            Ok(tree) => Ok(tree),
            Err(message) => {
                let mut state = self.state();
                match state.tree.clone() {
                    Some(tree) => {
                        state.stale = Some(format!(
                            "{} cannot be listed ({message}); serving its last listing",
                            self.identity()
                        ));
                        Ok(tree)
                    }
                    None => Err(BackendError::Other {
                        path: "/".to_owned(),
                        message: format!("{}: {message}", self.identity()),
                    }),
                }
            }
        }
    }

    /// Lists every page of `skills/list` and keeps the tree.
    async fn list(&self) -> Result<Arc<Tree>, String> {
        let (skills, ttl) = self.inner.connector.list_skills(MAX_PAGES, MAX_SKILLS).await?;
        let mut problems = Vec::new();
        let mut tree = Tree::build(skills, &mut problems);
        if !tree.dynamic.is_empty() && self.inner.connector.reads_directories().await {
            self.list_dynamic(&mut tree, &mut problems).await;
        }
        let tree = Arc::new(tree);
        for problem in &problems {
            tracing::warn!(server = %self.identity(), "{problem}");
        }
        let mut state = self.state();
        state.tree = Some(tree.clone());
        state.fresh_until = ttl.map(|ttl| Instant::now() + ttl);
        state.problems = problems;
        state.stale = None;
        Ok(tree)
    }

    /// The files of each dynamic skill, by `resources/directory/read` (breadth first,
    /// at most [`MAX_SKILL_FILES`] entries and 8 levels): served without digests.
    async fn list_dynamic(&self, tree: &mut Tree, problems: &mut Vec<String>) {
        let folders: Vec<String> = tree.dynamic.iter().cloned().collect();
        for folder in folders {
            let Some(base) = tree
                .files
                .get(&format!("{folder}/{}", skills_core::SKILL_FILE))
                .map(|e| e.uri[..e.uri.len() - skills_core::SKILL_FILE.len()].to_owned())
            else {
                continue;
            };
            let mut queue = vec![(base.clone(), 0usize)];
            let mut seen = 0usize;
            while let Some((dir, depth)) = queue.pop() {
                let entries = match self.inner.connector.read_directory(&dir, MAX_SKILL_FILES).await {
                    Ok(entries) => entries,
                    Err(message) => {
                        problems.push(format!("{}: {message}", shown(&dir)));
                        break;
                    }
                };
                for (uri, is_dir, size) in entries {
                    seen += 1;
                    if seen > MAX_SKILL_FILES {
                        problems.push(format!("{} holds more than {MAX_SKILL_FILES} files", shown(&base)));
                        break;
                    }
                    if is_dir {
                        if depth < 8 && uri.starts_with(&base) {
                            let dir_uri = if uri.ends_with('/') { uri } else { format!("{uri}/") };
                            queue.push((dir_uri, depth + 1));
                        }
                    } else if !tree.add_dynamic_file(&folder, &base, &uri, size.unwrap_or(0)) {
                        problems.push(format!(
                            "{}: {} is outside the skill; not served",
                            shown(&base),
                            shown(&uri)
                        ));
                    }
                }
            }
        }
    }

    /// The fingerprints of a fresh listing (a watch's poll).
    pub(crate) async fn fresh_fingerprints(&self) -> Result<std::collections::BTreeMap<String, String>, BackendError> {
        let tree = self.tree(true).await?;
        if let Some(stale) = self.state().stale.clone() {
            return Err(BackendError::Other {
                path: "/".to_owned(),
                message: stale,
            });
        }
        Ok(tree.fingerprints())
    }

    /// The fingerprints known now.
    pub(crate) fn known_fingerprints(&self) -> std::collections::BTreeMap<String, String> {
        self.state().tree.as_ref().map(|t| t.fingerprints()).unwrap_or_default()
    }

    /// How long a watch waits between two listings.
    /// The poll interval, or longer when the server said its list stays fresh longer
    /// (`ttlMs`); never shorter: a server answering `ttlMs: 0` is not asked ten times a
    /// second.
    pub(crate) fn poll_wait(&self) -> Duration {
        let state = self.state();
        let ttl = state
            .fresh_until
            .map(|until| until.saturating_duration_since(Instant::now()));
        ttl.map_or(self.inner.poll_interval, |ttl| ttl.max(self.inner.poll_interval))
    }

    pub(crate) fn connector(&self) -> &Connector {
        &self.inner.connector
    }

    async fn download_one(&self, asked: &str, tree: &Tree) -> FileDownloadResponse {
        let normalized = match path::normalize(asked) {
            Ok(normalized) => normalized,
            Err(error) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, error.to_string()),
        };
        let Some(entry) = tree.files.get(&normalized) else {
            if tree.dirs.contains(&normalized) {
                return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory");
            }
            return FileDownloadResponse::err(asked, FileErrorKind::FileNotFound, "not in the server's manifests");
        };
        let limit = self.inner.max_file_size;
        if entry.size > limit {
            return FileDownloadResponse::err(asked, FileErrorKind::TooLarge, format!("over the {limit}-byte limit"));
        }
        let bytes = match self.inner.connector.read(&entry.uri).await {
            Ok(bytes) => bytes,
            Err(message) => return FileDownloadResponse::err(asked, FileErrorKind::Other, message),
        };
        if bytes.len() as u64 > limit {
            return FileDownloadResponse::err(asked, FileErrorKind::TooLarge, format!("over the {limit}-byte limit"));
        }
        if let Some(digest) = &entry.digest
            && (bytes.len() as u64 != entry.size || sha256_text(&bytes) != *digest)
        {
            let message = format!(
                "{} does not match the digest the server's manifest gives; not served",
                shown(&entry.uri)
            );
            return FileDownloadResponse::err(asked, FileErrorKind::Other, message);
        }
        FileDownloadResponse::ok(asked, bytes)
    }
}

#[async_trait]
impl BackendProtocol for McpBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let normalized = path::normalize(path)?;
        let tree = self.tree(normalized == "/").await?;
        if tree.files.contains_key(&normalized) {
            return Err(BackendError::NotADirectory { path: normalized });
        }
        if !tree.dirs.contains(&normalized) {
            return Err(BackendError::NotFound { path: normalized });
        }
        Ok(tree.children(&normalized))
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let tree = match self.tree(false).await {
            Ok(tree) => tree,
            Err(error) => {
                return paths
                    .iter()
                    .map(|p| FileDownloadResponse::err(p, FileErrorKind::Other, error.to_string()))
                    .collect();
            }
        };
        let reads: Vec<_> = paths.iter().map(|p| self.download_one(p, &tree)).collect();
        futures_util::stream::iter(reads)
            .buffered(CONCURRENT_READS)
            .collect()
            .await
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size
    }

    fn as_watch(&self) -> Option<&dyn skills_core::Watch> {
        Some(self)
    }

    fn stale(&self) -> Option<String> {
        self.state().stale.clone()
    }

    /// What the last listing left out or serves without digests.
    fn withheld(&self) -> Vec<String> {
        self.problems()
    }

    /// A skill is identified by its server and URI: two skills of one server with one
    /// name are both kept.
    fn skills_by_path(&self) -> bool {
        true
    }
}

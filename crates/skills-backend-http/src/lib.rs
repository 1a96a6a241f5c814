//! Agent Skills from an HTTP registry: the discovery index a site publishes at
//! `https://HOST/.well-known/agent-skills/index.json`, read-only, every download checked
//! against the digest the index gives (a file that does not match is not served).
//!
//! - [`HttpRegistryBackend`] is a [`BackendProtocol`]: each `skill-md` entry is the
//!   folder `/<name>` holding `SKILL.md`; each `archive` entry (`.tar.gz` or `.zip`) is
//!   the folder its files unpack into, in memory, with the containment rules of every
//!   source (regular files only, no `..`, no absolute paths, at most 512 files and 16
//!   MiB).
//! - The index is fetched with a conditional GET (`If-None-Match`), at the start of
//!   each listing of the root: an unchanged registry costs one request answered `304`.
//! - Discovery walks the index alone (an archive is downloaded when its files are read):
//!   each `SKILL.md`'s etag is made of the digest its entry gives, so parses cached by
//!   etag hold until the artifact changes.
//! - Plain `http://` is accepted only on a loopback address, as for S3 endpoints.
//!
//! ```
//! use skills_backend_http::HttpRegistryBackend;
//! let backend = HttpRegistryBackend::new("https://skills.example.com/.well-known/agent-skills/").unwrap();
//! assert_eq!(backend.index_url().as_str(), "https://skills.example.com/.well-known/agent-skills/index.json");
//! assert!(HttpRegistryBackend::new("http://example.com/").is_err(), "plain HTTP off loopback");
//! ```

#![warn(missing_docs)]

mod archive;
mod index;
mod poll;
#[cfg(feature = "test-server")]
pub mod test_server;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use skills_core::digest::sha256_text;
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, FileDownloadResponse, FileErrorKind, FileInfo,
    LOWERCASE_SKILL_FILE, SKILL_FILE, Walk, path,
};
use url::Url;

pub use index::{ArtifactType, IndexEntry, WELL_KNOWN_INDEX, parse_index};
pub use poll::DEFAULT_POLL_INTERVAL;

/// The largest index read.
pub const MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// The largest archive downloaded (compressed).
pub const MAX_ARCHIVE_BYTES: u64 = 32 * 1024 * 1024;
/// How many artifacts one batch downloads at a time. Four, not more: a small static
/// server keeps a short queue of connections (Python's `http.server` five), and the
/// connections past it are dropped and retried a second later; at 8 or 16, listing a
/// 2,811-skill registry from `python3 -m http.server` took 130 s instead of 2.
pub const CONCURRENT_DOWNLOADS: usize = 4;
/// How long a request may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a registry cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid skills registry {url}: {reason}")]
pub struct RegistryError {
    /// The URL as given.
    pub url: String,
    /// What is wrong with it.
    pub reason: String,
}

/// A read-only backend over an HTTP registry's discovery index.
#[derive(Clone)]
pub struct HttpRegistryBackend {
    client: reqwest::Client,
    index_url: Url,
    max_file_size: u64,
    pub(crate) poll_interval: Duration,
    state: Arc<Mutex<State>>,
}

/// An archive's files, or why it cannot be unpacked.
type Unpacking = Result<Arc<archive::Unpacked>, String>;

#[derive(Debug, Default)]
struct State {
    etag: Option<String>,
    entries: Option<Arc<Vec<IndexEntry>>>,
    /// Verified artifacts by digest, with their size.
    sizes: BTreeMap<String, u64>,
    /// Unpacked archives by digest, or why they cannot be; a cell is set once, by the
    /// first request for it, while others for the same archive wait for it.
    archives: BTreeMap<String, Arc<tokio::sync::OnceCell<Unpacking>>>,
    problem: Option<String>,
}

impl fmt::Debug for HttpRegistryBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRegistryBackend")
            .field("index_url", &self.index_url.as_str())
            .finish_non_exhaustive()
    }
}

impl fmt::Display for HttpRegistryBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.index_url.as_str())
    }
}

impl HttpRegistryBackend {
    /// A backend over the registry at `url`: the well-known prefix
    /// (`https://HOST/.well-known/agent-skills/`), its `index.json`, or the site
    /// (`https://HOST`). `https://` always; `http://` only on a loopback address.
    pub fn new(url: &str) -> Result<Self, RegistryError> {
        let fail = |reason: &str| RegistryError {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let parsed = Url::parse(url).map_err(|e| fail(&e.to_string()))?;
        let credentials = !parsed.username().is_empty() || parsed.password().is_some();
        skills_core::url::check_remote(parsed.scheme(), parsed.host_str(), credentials)
            .map_err(|reason| fail(reason.unwrap_or("expected an https:// URL")))?;
        let path = parsed.path();
        let index_path = if path.ends_with("/index.json") {
            path.to_owned()
        } else if path.trim_end_matches('/').ends_with(".well-known/agent-skills") {
            format!("{}/index.json", path.trim_end_matches('/'))
        } else {
            format!("{}/{WELL_KNOWN_INDEX}", path.trim_end_matches('/'))
        };
        let mut index_url = parsed.clone();
        index_url.set_path(&index_path);
        index_url.set_query(None);
        index_url.set_fragment(None);
        let client = reqwest::Client::builder()
            .timeout(DEFAULT_TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::limited(5))
            .build()
            .map_err(|e| fail(&e.to_string()))?;
        Ok(Self {
            client,
            index_url,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            poll_interval: DEFAULT_POLL_INTERVAL,
            state: Arc::default(),
        })
    }

    /// The index's URL.
    pub fn index_url(&self) -> &Url {
        &self.index_url
    }

    /// How often a [watch](skills_core::Watch) asks for the index (default
    /// [`DEFAULT_POLL_INTERVAL`]).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The entries known now, by skill folder (a poll's baseline).
    pub(crate) fn known_entries(&self) -> BTreeMap<String, String> {
        self.state()
            .entries
            .as_deref()
            .map(|e| entry_texts(e))
            .unwrap_or_default()
    }

    /// The entries after a conditional GET of the index, by skill folder.
    pub(crate) async fn fresh_entries(&self) -> Result<BTreeMap<String, String>, BackendError> {
        let entries = self.entries(true).await?;
        if let Some(problem) = self.state().problem.clone() {
            return Err(BackendError::Other {
                path: "/".to_owned(),
                message: problem,
            });
        }
        Ok(entry_texts(&entries))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The index's entries: fetched again (conditionally) when `refresh`, or when none
    /// is known.
    async fn entries(&self, refresh: bool) -> Result<Arc<Vec<IndexEntry>>, BackendError> {
        let etag = {
            let state = self.state();
            if let (Some(entries), false) = (&state.entries, refresh) {
                return Ok(entries.clone());
            }
            state.etag.clone()
        };
        let failed = |message: String| BackendError::Other {
            path: "/".to_owned(),
            message: format!("{}: {message}", self.index_url),
        };
        let mut request = self.client.get(self.index_url.clone());
        if let Some(etag) = &etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag.as_str());
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                let mut state = self.state();
                if let Some(entries) = state.entries.clone() {
                    state.problem = Some(format!(
                        "{} cannot be reached ({}); serving the last index read",
                        self.index_url,
                        skills_core::with_cause(&error)
                    ));
                    return Ok(entries);
                }
                return Err(failed(skills_core::with_cause(&error)));
            }
        };
        if response.status() == reqwest::StatusCode::NOT_MODIFIED {
            let mut state = self.state();
            state.problem = None;
            if let Some(entries) = state.entries.clone() {
                return Ok(entries);
            }
        }
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Err(BackendError::NotFound { path: "/".to_owned() });
        }
        if !response.status().is_success() {
            return Err(failed(format!("answered {}", response.status())));
        }
        let new_etag = response
            .headers()
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = read_bounded(response, MAX_INDEX_BYTES)
            .await
            .map_err(|(_, message)| failed(message))?;
        let (entries, notes) = parse_index(&bytes).map_err(failed)?;
        for note in notes {
            tracing::warn!(registry = %self.index_url, "{note}");
        }
        let entries = Arc::new(entries);
        let mut state = self.state();
        state.etag = new_etag;
        state.entries = Some(entries.clone());
        state.problem = None;
        Ok(entries)
    }

    /// The files of an archive entry: downloaded, checked against its digest and
    /// unpacked once (per digest).
    async fn archive_of(&self, entry: &IndexEntry) -> Unpacking {
        let cell = self.state().archives.entry(entry.digest.clone()).or_default().clone();
        cell.get_or_init(|| async {
            match self.fetch(entry, MAX_ARCHIVE_BYTES).await {
                Ok(bytes) => archive::unpack(&bytes).map(Arc::new),
                Err((_, message)) => Err(message),
            }
        })
        .await
        .clone()
    }

    /// Each skill folder of the index and its `SKILL.md`, from the index alone (fetched
    /// again, conditionally): what a walk of the root for `SKILL.md` files finds, with
    /// no archive downloaded, so that a start whose parses are cached by etag sends one
    /// request.
    async fn index_walk(&self) -> Result<Walk, BackendError> {
        let entries = self.entries(true).await?;
        let mut walk = Walk::default();
        let state = self.state();
        for entry in entries.iter() {
            walk.entries.push(FileInfo::directory(format!("/{}", entry.name)));
            walk.entries.push(skill_file_info(&state, entry));
        }
        drop(state);
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// The bytes of `entry`'s artifact, checked against its digest.
    async fn fetch(&self, entry: &IndexEntry, limit: u64) -> Result<Vec<u8>, (FileErrorKind, String)> {
        let url = match self.index_url.join(&entry.url) {
            Ok(url) if matches!(url.scheme(), "https" | "http") => url,
            _ => return Err((FileErrorKind::Other, "the index gives an unusable URL".to_owned())),
        };
        let response = match self.client.get(url.clone()).send().await {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => {
                let kind = if response.status() == reqwest::StatusCode::NOT_FOUND {
                    FileErrorKind::FileNotFound
                } else {
                    FileErrorKind::Other
                };
                return Err((kind, format!("{url} answered {}", response.status())));
            }
            Err(error) => return Err((FileErrorKind::Other, skills_core::with_cause(&error))),
        };
        let bytes = read_bounded(response, limit).await?;
        if sha256_text(&bytes) != entry.digest {
            return Err((
                FileErrorKind::Other,
                format!("{url} does not match the digest the index gives; not served"),
            ));
        }
        self.state().sizes.insert(entry.digest.clone(), bytes.len() as u64);
        Ok(bytes)
    }

    async fn download_one(&self, asked: &str, entries: &[IndexEntry]) -> FileDownloadResponse {
        let normalized = match path::normalize(asked) {
            Ok(normalized) => normalized,
            Err(error) => return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, error.to_string()),
        };
        let rel = normalized.trim_start_matches('/');
        let (name, inner) = rel.split_once('/').unwrap_or((rel, ""));
        let Some(entry) = find_entry(entries, name) else {
            return FileDownloadResponse::err(asked, FileErrorKind::FileNotFound, "not in the registry's index");
        };
        if inner.is_empty() {
            return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "a skill's folder");
        }
        match entry.kind {
            ArtifactType::SkillMd if inner == SKILL_FILE => match self.fetch(entry, self.max_file_size).await {
                Ok(bytes) => FileDownloadResponse::ok(asked, bytes),
                Err((kind, message)) => FileDownloadResponse::err(asked, kind, message),
            },
            ArtifactType::SkillMd => {
                FileDownloadResponse::err(asked, FileErrorKind::FileNotFound, "not in the registry's index")
            }
            ArtifactType::Archive => match self.archive_of(entry).await {
                // A walk of the index names every skill's file `SKILL.md`; an archive may
                // hold it as `skill.md`.
                Ok(files) => match files
                    .get(inner)
                    .or_else(|| (inner == SKILL_FILE).then(|| files.get(LOWERCASE_SKILL_FILE)).flatten())
                {
                    Some(file) => FileDownloadResponse::ok(asked, file.bytes.clone()),
                    None if !archive::listing(&files, entry, inner).is_empty() => {
                        FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory")
                    }
                    None => FileDownloadResponse::err(asked, FileErrorKind::FileNotFound, "not in the skill's archive"),
                },
                Err(message) => FileDownloadResponse::err(asked, FileErrorKind::Other, message),
            },
        }
    }
}

/// The body of `response`, at most `limit` bytes: `TooLarge` past it, `Other` when the
/// body breaks off.
async fn read_bounded(mut response: reqwest::Response, limit: u64) -> Result<Vec<u8>, (FileErrorKind, String)> {
    let too_large = || (FileErrorKind::TooLarge, format!("over the {limit}-byte limit"));
    if response.content_length().is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut out = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| (FileErrorKind::Other, skills_core::with_cause(&e)))?
    {
        if (out.len() + chunk.len()) as u64 > limit {
            return Err(too_large());
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

#[async_trait]
impl BackendProtocol for HttpRegistryBackend {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let normalized = path::normalize(path)?;
        let entries = self.entries(normalized == "/").await?;
        if normalized == "/" {
            return Ok(entries
                .iter()
                .map(|e| FileInfo::directory(format!("/{}", e.name)))
                .collect());
        }
        let rel = normalized.trim_start_matches('/');
        let (name, inner) = rel.split_once('/').unwrap_or((rel, ""));
        let not_found = || BackendError::NotFound {
            path: normalized.clone(),
        };
        let entry = find_entry(&entries, name).ok_or_else(not_found)?;
        match entry.kind {
            ArtifactType::SkillMd if inner.is_empty() => Ok(vec![skill_file_info(&self.state(), entry)]),
            ArtifactType::SkillMd => Err(not_found()),
            ArtifactType::Archive => match self.archive_of(entry).await {
                Ok(files) => {
                    let listed = archive::listing(&files, entry, inner);
                    if listed.is_empty() && !inner.is_empty() {
                        return Err(not_found());
                    }
                    Ok(listed)
                }
                // The skill's SKILL.md stays listed: reading it says what is wrong.
                Err(_) if inner.is_empty() => Ok(vec![skill_file_info(&self.state(), entry)]),
                Err(_) => Err(not_found()),
            },
        }
    }

    /// The skill folders of the index with their `SKILL.md` files, from the index alone
    /// (an archive is not downloaded to be walked), when discovery walks the root.
    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        let root = path::normalize(path)?;
        if root == "/" && file_name == SKILL_FILE {
            return self.index_walk().await;
        }
        let mut walk = self.walk(&root, 2).await?;
        walk.keep_child_files(&root, file_name);
        Ok(walk)
    }

    /// As [`child_files`](Self::child_files) at the root, whose folders are the only skill
    /// folders a registry has; a walk elsewhere.
    async fn find_files(&self, path: &str, file_name: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let root = path::normalize(path)?;
        if root == "/" && file_name == SKILL_FILE && max_depth >= 2 {
            return self.index_walk().await;
        }
        self.walk(&root, max_depth).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let entries = match self.entries(false).await {
            Ok(entries) => entries,
            Err(error) => {
                return paths
                    .iter()
                    .map(|p| FileDownloadResponse::err(p, FileErrorKind::Other, error.to_string()))
                    .collect();
            }
        };
        // A batch (discovery asks for every SKILL.md at once) goes out a few requests at
        // a time, answered in the order asked.
        let downloads: Vec<_> = paths.iter().map(|path| self.download_one(path, &entries)).collect();
        futures_util::stream::iter(downloads)
            .buffered(CONCURRENT_DOWNLOADS)
            .collect()
            .await
    }

    fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    fn as_watch(&self) -> Option<&dyn skills_core::Watch> {
        Some(self)
    }

    fn stale(&self) -> Option<String> {
        self.state().problem.clone()
    }
}

/// The entry of skill folder `name`: [`parse_index`] sorts entries by name, one per name.
fn find_entry<'a>(entries: &'a [IndexEntry], name: &str) -> Option<&'a IndexEntry> {
    let at = entries.binary_search_by(|e| e.name.as_str().cmp(name)).ok()?;
    entries.get(at)
}

fn entry_texts(entries: &[IndexEntry]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|e| (format!("/{}", e.name), format!("{:?} {} {}", e.kind, e.url, e.digest)))
        .collect()
}

/// What a listing gives for `entry`'s `SKILL.md`: its size when it was read, and an etag
/// made of the digest the index gives.
fn skill_file_info(state: &State, entry: &IndexEntry) -> FileInfo {
    let (size, etag) = match entry.kind {
        ArtifactType::SkillMd => (state.sizes.get(&entry.digest).copied(), entry.digest.clone()),
        ArtifactType::Archive => {
            let unpacked = state.archives.get(&entry.digest).and_then(|cell| cell.get());
            let file = unpacked
                .and_then(|files| files.as_ref().ok())
                .and_then(|files| files.get(SKILL_FILE).or_else(|| files.get(LOWERCASE_SKILL_FILE)));
            (file.map(|f| f.bytes.len() as u64), archive::skill_etag(&entry.digest))
        }
    };
    FileInfo {
        path: format!("/{}/{SKILL_FILE}", entry.name),
        is_dir: false,
        size: size.unwrap_or(0),
        modified_at: None,
        etag: Some(etag),
        changed_at: None,
    }
}

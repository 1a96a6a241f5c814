//! One-source discovery: find `<source>/<dir>/SKILL.md`, read them in one batch, parse.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use futures_util::future::join;

use crate::backend::{BackendProtocol, Walk};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::error::BackendError;
use crate::limits::{DiscoveryLimits, cap_directories};
use crate::parse::{ParseOutcome, parse_skill_md};
use crate::path;
use crate::resources::resources_from_entries;
use crate::types::{FileDownloadResponse, FileErrorKind, FileInfo, ResourceKind, ResourceMetadata, SkillMetadata};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The skills of one source and what was wrong with the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillListing {
    /// Parsed skills, one per name, ordered by directory path.
    pub skills: Vec<SkillMetadata>,
    /// Skips and warnings of this source, in path order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a whole source could not be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The source directory does not exist.
    #[error("skill source {source_path} does not exist")]
    NotFound {
        /// The source path.
        source_path: String,
    },
    /// The source path is a file.
    #[error("skill source {source_path} is not a directory")]
    NotADirectory {
        /// The source path.
        source_path: String,
    },
    /// Anything else (invalid path, permission, I/O, network).
    #[error("skill source {source_path} could not be listed: {error}")]
    Unreadable {
        /// The source path.
        source_path: String,
        /// What the backend said.
        error: BackendError,
    },
}

impl SourceError {
    fn from_backend(source_path: &str, error: BackendError) -> Self {
        let source_path = source_path.to_owned();
        match error {
            BackendError::NotFound { .. } => Self::NotFound { source_path },
            BackendError::NotADirectory { .. } => Self::NotADirectory { source_path },
            error => Self::Unreadable { source_path, error },
        }
    }

    /// The error as a diagnostic, for state and reports.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let (path, kind) = match self {
            Self::NotFound { source_path } => (source_path, DiagnosticKind::SourceNotFound),
            Self::NotADirectory { source_path } => (source_path, DiagnosticKind::SourceNotADirectory),
            Self::Unreadable { source_path, .. } => (source_path, DiagnosticKind::SourceUnreadable),
        };
        Diagnostic::new(path.clone(), kind, self.to_string())
    }
}

/// Lists the skills of one source: every `<source>/<dir>/SKILL.md`, one level deep.
///
/// Directories without a `SKILL.md` are skipped silently; every other skip (too large,
/// unreadable, unparseable) is a diagnostic. All `SKILL.md` files of the source are
/// fetched with one [`download_files`](BackendProtocol::download_files) call, and files
/// the listing already shows to be too large are not fetched at all. When two
/// directories declare the same name, the later one (in path order) is kept and a
/// `duplicate-name` warning says so.
///
/// ```
/// # tokio_test_block_on(async {
/// use skills_core::{list_skills, MemoryBackend};
/// let backend = MemoryBackend::new();
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Browse\n---\n");
/// let listing = list_skills(&backend, "/skills").await.unwrap();
/// assert_eq!(listing.skills[0].name, "web");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn list_skills(backend: &dyn BackendProtocol, source: &str) -> Result<SkillListing, SourceError> {
    list_skills_with(backend, source, &DiscoveryLimits::default()).await
}

/// [`list_skills`] within the given [`DiscoveryLimits`] (`list_skills` uses the defaults).
pub async fn list_skills_with(
    backend: &dyn BackendProtocol,
    source: &str,
    limits: &DiscoveryLimits,
) -> Result<SkillListing, SourceError> {
    let failed = |e| SourceError::from_backend(source, e);
    let root = path::normalize(source).map_err(failed)?;
    let walk = backend.child_files(&root, SKILL_FILE).await.map_err(failed)?;
    Ok(read_skills(backend, &root, &walk, limits, None).await.0)
}

/// The `source-stale` warning of a backend that serves old content.
fn stale(backend: &dyn BackendProtocol, root: &str) -> Option<Diagnostic> {
    let reason = backend.stale()?;
    Some(Diagnostic::new(root, DiagnosticKind::SourceStale, reason))
}

/// The skills of one source together with each skill's resources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceDiscovery {
    /// The skills and diagnostics, as [`list_skills`] returns them.
    pub listing: SkillListing,
    /// Resource files of each listed skill, by skill name (see [`resources_from_entries`]).
    pub resources: BTreeMap<String, Vec<ResourceMetadata>>,
}

/// Lists the skills of one source and their resources from a single
/// [`walk`](BackendProtocol::walk) of three levels (`<source>/<skill>/<dir>/<file>`), so a
/// backend that lists a prefix at once answers the whole source with one listing.
///
/// A resource directory that cannot be listed is a `resources-unlisted` warning and the
/// skill keeps the resources that could be seen.
pub async fn discover_source(backend: &dyn BackendProtocol, source: &str) -> Result<SourceDiscovery, SourceError> {
    discover_source_with(backend, source, &DiscoveryLimits::default(), None).await
}

/// [`discover_source`] with a [`ParseCache`]: a `SKILL.md` whose listed etag matches the
/// cached one is neither downloaded nor parsed again. Reloading an unchanged source costs
/// its listing only.
pub async fn discover_source_cached(
    backend: &dyn BackendProtocol,
    source: &str,
    cache: &mut ParseCache,
) -> Result<SourceDiscovery, SourceError> {
    discover_source_with(backend, source, &DiscoveryLimits::default(), Some(cache)).await
}

/// [`discover_source`] within the given [`DiscoveryLimits`], with a [`ParseCache`] when
/// one is given (see [`discover_source_cached`]). A limit that is exceeded is one
/// `limit-exceeded` diagnostic; the skills within the limits load.
pub async fn discover_source_with(
    backend: &dyn BackendProtocol,
    source: &str,
    limits: &DiscoveryLimits,
    cache: Option<&mut ParseCache>,
) -> Result<SourceDiscovery, SourceError> {
    let failed = |e| SourceError::from_backend(source, e);
    let root = path::normalize(source).map_err(failed)?;
    let walk = backend.walk(&root, 3).await.map_err(failed)?;
    let (listing, entries) = read_skills(backend, &root, &walk, limits, cache).await;
    let mut resources = BTreeMap::new();
    for skill in &listing.skills {
        let dir = skill.dir();
        resources.insert(
            skill.name.clone(),
            resources_from_entries(dir, &skill.name, entries_under(&entries, dir)),
        );
    }
    Ok(SourceDiscovery { listing, resources })
}

/// The entries of a path-sorted list that lie under `dir`: one contiguous range.
fn entries_under<'a>(entries: &'a [FileInfo], dir: &str) -> &'a [FileInfo] {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let start = entries.partition_point(|e| e.path.as_str() < prefix.as_str());
    let len = entries[start..].partition_point(|e| e.path.starts_with(&prefix));
    &entries[start..start + len]
}

/// How one `SKILL.md` of a walk is obtained.
enum Read {
    /// Not readable; the diagnostic says why.
    Problem(Diagnostic),
    /// Unchanged since it was parsed (same etag).
    Parsed(ParseOutcome),
    /// To download and parse.
    Pending,
}

/// Parsed `SKILL.md` files by path, with the etag they had, so a rediscovery neither reads
/// nor parses a file whose etag did not change. Files without an etag are always read.
///
/// One cache belongs to one source of one backend; pass it to every
/// [`discover_source_cached`] call of that source.
#[derive(Debug, Clone, Default)]
pub struct ParseCache {
    entries: HashMap<String, (String, ParseOutcome)>,
    files_read: u64,
}

impl ParseCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many `SKILL.md` files are cached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many `SKILL.md` files discoveries through this cache have downloaded in all.
    pub fn files_read(&self) -> u64 {
        self.files_read
    }

    fn lookup(&self, entry: &FileInfo) -> Option<ParseOutcome> {
        let etag = entry.etag.as_deref()?;
        let (cached_etag, outcome) = self.entries.get(&entry.path)?;
        (cached_etag == etag).then(|| outcome.clone())
    }

    fn store(&mut self, entry: &FileInfo, outcome: &ParseOutcome) {
        if let Some(etag) = &entry.etag {
            self.entries.insert(entry.path.clone(), (etag.clone(), outcome.clone()));
        }
    }
}

/// Reads and parses every `<root>/<dir>/SKILL.md` that `walk` saw, within `limits`;
/// returns the listing (diagnostics sorted by path, the backend's `source-stale` warning
/// included) and the walk's entries as capped by
/// [`max_dir_entries`](DiscoveryLimits::max_dir_entries).
async fn read_skills<'w>(
    backend: &dyn BackendProtocol,
    root: &str,
    walk: &'w Walk,
    limits: &DiscoveryLimits,
    mut cache: Option<&mut ParseCache>,
) -> (SkillListing, Cow<'w, [FileInfo]>) {
    let (entries, capped) = cap_directories(walk, limits.max_dir_entries());
    let mut listing = SkillListing {
        skills: Vec::new(),
        diagnostics: capped,
    };
    let mut resource_errors = Vec::new();
    for error in &walk.errors {
        let error_path = error.path();
        let dir = path::parent(error_path);
        if dir == root || error_path == root {
            let msg = format!("could not list directory: {error}");
            listing
                .diagnostics
                .push(Diagnostic::new(error_path, DiagnosticKind::ListingFailed, msg));
        } else if path::parent(dir) == root && ResourceKind::from_dir_name(path::file_name(error_path)).is_some() {
            resource_errors.push(error);
        }
    }

    let max_size = backend.max_file_size();
    let mut candidates: Vec<(&FileInfo, Read)> = Vec::new();
    let mut to_download = 0usize;
    let mut budget = Budget::new(limits);
    for entry in entries.iter() {
        let dir = path::parent(&entry.path);
        if path::file_name(&entry.path) != SKILL_FILE || path::parent(dir) != root || dir == root {
            continue;
        }
        let read = if entry.is_dir {
            let msg = format!("{SKILL_FILE} is a directory");
            Read::Problem(Diagnostic::new(&entry.path, DiagnosticKind::ReadFailed, msg))
        } else if entry.size > max_size {
            let msg = format!("file is {} bytes, over the {max_size}-byte limit; not read", entry.size);
            Read::Problem(Diagnostic::new(&entry.path, DiagnosticKind::TooLarge, msg))
        } else if !budget.admit(entry) {
            continue;
        } else if let Some(outcome) = cache.as_deref().and_then(|c| c.lookup(entry)) {
            Read::Parsed(outcome)
        } else {
            to_download += 1;
            Read::Pending
        };
        candidates.push((entry, read));
    }
    listing.diagnostics.extend(budget.into_diagnostics(root));

    if let Some(cache) = cache.as_deref_mut() {
        cache.files_read += to_download as u64;
        // Forget files that are gone (walk entries are sorted by path).
        cache
            .entries
            .retain(|path, _| entries.binary_search_by(|e| e.path.as_str().cmp(path)).is_ok());
    }
    let mut index: HashMap<String, usize> = HashMap::with_capacity(candidates.len());
    // Read in chunks and parse each while the next one downloads: memory stays bounded by
    // two chunks of files, not the whole source, and parsing overlaps the backend's I/O.
    let mut chunks = Vec::new();
    let mut candidates = candidates.into_iter().peekable();
    while candidates.peek().is_some() {
        chunks.push(
            candidates
                .by_ref()
                .take(limits.read_batch())
                .collect::<Vec<(&FileInfo, Read)>>(),
        );
    }
    let mut chunks = chunks.into_iter().peekable();
    let mut responses = download_pending(backend, chunks.peek()).await;
    while let Some(chunk) = chunks.next() {
        let download = download_pending(backend, chunks.peek());
        let parse = async {
            parse_chunk(chunk, responses, &mut listing, &mut index, cache.as_deref_mut());
        };
        // `join` polls the download first, so a backend that hands its reads to other
        // threads is already reading the next chunk while this one is parsed.
        (responses, ()) = join(download, parse).await;
    }
    // A resource directory only matters when its folder turned out to be a skill.
    for error in resource_errors {
        let skill_dir = path::parent(error.path());
        if listing.skills.iter().any(|s| s.dir() == skill_dir) {
            let msg = format!("could not list resource directory; its files are not offered: {error}");
            listing
                .diagnostics
                .push(Diagnostic::new(error.path(), DiagnosticKind::ResourcesUnlisted, msg));
        }
    }
    listing.diagnostics.extend(stale(backend, root));
    listing.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    (listing, entries)
}

/// Counts `SKILL.md` files and their listed bytes against [`DiscoveryLimits`], in path
/// order, and what it had to refuse for each limit.
struct Budget {
    max_skills: usize,
    max_bytes: u64,
    skills: usize,
    bytes: u64,
    over_count: Refused,
    over_bytes: Refused,
}

/// How many files one limit kept out, and the first of them.
#[derive(Default)]
struct Refused {
    count: usize,
    first: Option<String>,
}

impl Refused {
    fn add(&mut self, path: &str) {
        self.count += 1;
        self.first.get_or_insert_with(|| path.to_owned());
    }

    fn into_diagnostic(self, root: &str, what: String) -> Option<Diagnostic> {
        let first = self.first?;
        let msg = format!("{what}; {} not read, from {first}", self.count);
        Some(Diagnostic::new(root, DiagnosticKind::LimitExceeded, msg))
    }
}

impl Budget {
    fn new(limits: &DiscoveryLimits) -> Self {
        Self {
            max_skills: limits.max_skills(),
            max_bytes: limits.max_bytes(),
            skills: 0,
            bytes: 0,
            over_count: Refused::default(),
            over_bytes: Refused::default(),
        }
    }

    /// Whether `entry` (a `SKILL.md`) fits; counts it if it does.
    fn admit(&mut self, entry: &FileInfo) -> bool {
        if self.skills >= self.max_skills {
            self.over_count.add(&entry.path);
            return false;
        }
        let bytes = self.bytes.saturating_add(entry.size);
        if bytes > self.max_bytes {
            self.over_bytes.add(&entry.path);
            return false;
        }
        self.skills += 1;
        self.bytes = bytes;
        true
    }

    fn into_diagnostics(self, root: &str) -> impl Iterator<Item = Diagnostic> {
        let count = format!(
            "source has more than {} SKILL.md files (DiscoveryLimits::max_skills)",
            self.max_skills
        );
        let bytes = format!(
            "SKILL.md files of this source exceed {} bytes in all (DiscoveryLimits::max_bytes)",
            self.max_bytes
        );
        let over_count = self.over_count.into_diagnostic(root, count);
        over_count
            .into_iter()
            .chain(self.over_bytes.into_diagnostic(root, bytes))
    }
}

/// Downloads the `SKILL.md` files of a chunk that are still to read, in chunk order
/// (nothing for no chunk).
async fn download_pending(
    backend: &dyn BackendProtocol,
    chunk: Option<&Vec<(&FileInfo, Read)>>,
) -> Vec<FileDownloadResponse> {
    let paths: Vec<String> = chunk
        .into_iter()
        .flatten()
        .filter(|(_, read)| matches!(read, Read::Pending))
        .map(|(entry, _)| entry.path.clone())
        .collect();
    if paths.is_empty() {
        return Vec::new();
    }
    backend.download_files(&paths).await
}

/// Parses a chunk with its downloads (one response per pending file, in order) into the
/// listing.
fn parse_chunk(
    chunk: Vec<(&FileInfo, Read)>,
    responses: Vec<FileDownloadResponse>,
    listing: &mut SkillListing,
    index: &mut HashMap<String, usize>,
    mut cache: Option<&mut ParseCache>,
) {
    let mut responses = responses.into_iter();
    for (entry, read) in chunk {
        let md_path = &entry.path;
        let outcome = match read {
            Read::Problem(diagnostic) => {
                listing.diagnostics.push(diagnostic);
                continue;
            }
            Read::Parsed(outcome) => outcome,
            Read::Pending => {
                let response = responses.next().unwrap_or_else(|| {
                    FileDownloadResponse::err(md_path, FileErrorKind::Other, "backend returned too few responses")
                });
                let content = match response.into_result() {
                    Ok(content) => content,
                    // Deleted between the listing and the read: as if it had never been there.
                    Err(e) if e.kind == FileErrorKind::FileNotFound => continue,
                    Err(e) => {
                        let (kind, message) = match e.kind {
                            FileErrorKind::TooLarge => (DiagnosticKind::TooLarge, e.message),
                            _ => (DiagnosticKind::ReadFailed, e.to_string()),
                        };
                        listing.diagnostics.push(Diagnostic::new(md_path, kind, message));
                        continue;
                    }
                };
                let outcome = parse_skill_md(&content, md_path, path::file_name(path::parent(md_path)));
                if let Some(cache) = cache.as_deref_mut() {
                    cache.store(entry, &outcome);
                }
                outcome
            }
        };
        add_skill(listing, index, outcome);
    }
}

/// Adds a parsed `SKILL.md` to a listing: its diagnostics, and its skill unless an
/// earlier file of the source declared the same name (then the later one is kept).
fn add_skill(listing: &mut SkillListing, index: &mut HashMap<String, usize>, outcome: ParseOutcome) {
    listing.diagnostics.extend(outcome.diagnostics);
    let Some(skill) = outcome.skill else { return };
    match index.get(&skill.name) {
        Some(&i) => {
            let msg = format!(
                "skill '{}' is also declared by {}; this later one is kept",
                skill.name, listing.skills[i].path
            );
            let md_path = skill.path.clone();
            listing
                .diagnostics
                .push(Diagnostic::new(md_path, DiagnosticKind::DuplicateName, msg));
            listing.skills[i] = skill;
        }
        None => {
            index.insert(skill.name.clone(), listing.skills.len());
            listing.skills.push(skill);
        }
    }
}

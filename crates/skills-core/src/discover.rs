//! One-source discovery: find `<source>/<dir>/SKILL.md`, read them in batches, parse,
//! and (when asked) collect each skill's resources from the same walk.

use std::time::SystemTime;

use crate::backend::{BackendProtocol, Walk};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::error::BackendError;
use crate::file::FileInfo;
use crate::limits::{DiscoveryLimits, cap_directories};
use crate::parse_cache::ParseCache;
use crate::path;
use crate::probe::deeper_skills;
use crate::read::{Found, read_skills, skill_files};
use crate::resources::resources_from_entries;
use crate::skill::{SKILL_FILE, SkillListing};
use crate::skill_files::ReadAhead;

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
    pub(crate) fn from_backend(source_path: &str, error: BackendError) -> Self {
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

/// Lists the skills of one source with the default [`DiscoveryLimits`], without
/// resources: every `<source>/<dir>/SKILL.md`, one level deep. The one-liner for
/// [`Discovery`].
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use skills_core::{list_skills, MemoryBackend};
/// let backend = MemoryBackend::new();
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Browse\n---\n").unwrap();
/// let listing = list_skills(&backend, "/skills").await.unwrap();
/// assert_eq!(listing.skills[0].name, "web");
/// # });
/// ```
pub async fn list_skills(backend: &dyn BackendProtocol, source: &str) -> Result<SkillListing, SourceError> {
    Discovery::new(backend, source).run().await
}

/// The discovery of one source, configured step by step and run once.
///
/// - Skills: directories without a `SKILL.md` are skipped silently; every other skip
///   (too large, unreadable, unparseable) is a diagnostic. `SKILL.md` files are fetched
///   in batches of [`read_batch`](DiscoveryLimits::read_batch) through
///   [`download_files`](BackendProtocol::download_files), each batch parsed while the
///   next one downloads, and files the listing already shows to be too large are not
///   fetched at all. When two directories declare the same name, the later one (in path
///   order) is kept and a `duplicate-name` warning says so.
/// - [`limits`](Self::limits): an exceeded limit is one `limit-exceeded` diagnostic; the
///   skills within the limits load.
/// - [`cache`](Self::cache): a `SKILL.md` whose listed etag matches the cached one is
///   neither downloaded nor parsed again, so reloading an unchanged source costs its
///   listing only.
/// - [`resources`](Self::resources): each skill's resource files come from the same
///   [`walk`](BackendProtocol::walk) (three levels, `<source>/<skill>/<dir>/<file>`), so
///   a backend that lists a prefix at once answers the whole source with one listing; a
///   resource directory that cannot be listed is a `resources-unlisted` warning. Without
///   it, discovery looks up `<dir>/SKILL.md` only
///   ([`child_files`](BackendProtocol::child_files)).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use skills_core::{Discovery, DiscoveryLimits, MemoryBackend, ParseCache};
/// let backend = MemoryBackend::new();
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Browse\n---\n").unwrap();
/// backend.insert("/skills/web/scripts/search.py", "print()").unwrap();
/// let mut cache = ParseCache::new();
/// let found = Discovery::new(&backend, "/skills")
///     .limits(DiscoveryLimits::default().with_max_skills(100))
///     .cache(&mut cache)
///     .resources(true)
///     .run()
///     .await
///     .unwrap();
/// assert_eq!(found.resources["web"][0].path, "/skills/web/scripts/search.py");
/// assert_eq!(cache.files_read(), 1);
/// # });
/// ```
#[derive(Debug)]
pub struct Discovery<'a> {
    backend: &'a dyn BackendProtocol,
    source: &'a str,
    limits: DiscoveryLimits,
    cache: Option<&'a mut ParseCache>,
    resources: bool,
    depth: usize,
    read_ahead: bool,
}

impl<'a> Discovery<'a> {
    /// The discovery of the source at `source` in `backend`: default limits, no cache,
    /// no resources.
    pub fn new(backend: &'a dyn BackendProtocol, source: &'a str) -> Self {
        Self {
            backend,
            source,
            limits: DiscoveryLimits::default(),
            cache: None,
            resources: false,
            depth: 1,
            read_ahead: false,
        }
    }

    /// How many levels below the source a skill folder may lie (default 1, the Agent
    /// Skills layout: `<source>/<skill>/SKILL.md`). Deeper, discovery descends through
    /// folders that are neither hidden (`.git`, `.cache`) nor `node_modules`, and stops
    /// at a folder holding a `SKILL.md`: `plugins/<p>/skills/<s>/SKILL.md` is found at
    /// depth 4. A depth of 0 counts as 1.
    pub fn depth(mut self, depth: usize) -> Self {
        self.depth = depth.max(1);
        self
    }

    /// Bounds on the discovery (default [`DiscoveryLimits::default`]).
    pub fn limits(mut self, limits: DiscoveryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Reuses parses of unchanged files. One cache belongs to one source of one backend.
    pub fn cache(mut self, cache: &'a mut ParseCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Whether the walk reads and parses each `SKILL.md` as it finds it (default: no),
    /// where the backend can ([`child_files_read`](BackendProtocol::child_files_read):
    /// one level deep, without resources). For a discovery that has nothing cached and
    /// reads every file anyway: on local disk each file is then opened once, where a walk
    /// and a read look it up twice. A discovery with cached parses wants the walk alone,
    /// which only looks at each file.
    pub fn read_ahead(mut self, read_ahead: bool) -> Self {
        self.read_ahead = read_ahead;
        self
    }

    /// Whether to collect each skill's resources (default: no).
    pub fn resources(mut self, resources: bool) -> Self {
        self.resources = resources;
        self
    }

    /// Runs the discovery: [`walk`](Self::walk), then [`read`](Walked::read). Fails only
    /// when the source itself cannot be listed.
    pub async fn run(self) -> Result<SkillListing, SourceError> {
        self.walk().await?.read().await
    }

    /// The first half of [`run`](Self::run): lists the source (one `stat` per
    /// `SKILL.md` on disk, the listing remotely) and reads no file, unless told to
    /// [`read_ahead`](Self::read_ahead). A caller can do other work before the
    /// [`read`](Walked::read), such as loading the parse cache to give it
    /// ([`Walked::cache`]). Fails only when the source itself cannot be listed.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use skills_core::{Discovery, MemoryBackend, ParseCache};
    /// let backend = MemoryBackend::new();
    /// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Browse\n---\n").unwrap();
    /// let walked = Discovery::new(&backend, "/skills").walk().await.unwrap();
    /// assert_eq!(walked.skill_files()[0].path, "/skills/web/SKILL.md");
    /// let mut cache = ParseCache::new();
    /// let listing = walked.cache(&mut cache).read().await.unwrap();
    /// assert_eq!(listing.skills[0].name, "web");
    /// assert_eq!(cache.files_read(), 1);
    /// # });
    /// ```
    pub async fn walk(self) -> Result<Walked<'a>, SourceError> {
        let failed = |e| SourceError::from_backend(self.source, e);
        let root = path::normalize(self.source).map_err(failed)?;
        // Files read by the walk are read from here on (see `Found::read_from`).
        let started = self.read_ahead.then(SystemTime::now);
        let mut read_ahead = ReadAhead::default();
        let mut walk = if self.resources {
            self.backend.walk(&root, self.depth + 2).await
        } else if self.depth == 1 {
            // The source's own entries matter only over the entry limit, which keeps the
            // first ones of a folder over it (and the files below those) only.
            let limit = self.limits.max_dir_entries();
            if self.read_ahead {
                self.backend
                    .child_files_read(&root, SKILL_FILE, limit)
                    .await
                    .map(|(walk, read)| {
                        read_ahead = read;
                        walk
                    })
            } else {
                self.backend.child_files_only(&root, SKILL_FILE, limit).await
            }
        } else {
            self.backend.find_files(&root, SKILL_FILE, self.depth + 1).await
        }
        .map_err(failed)?;
        let cut = cap_directories(&mut walk, self.limits.max_dir_entries());
        // Without resources, the rest of the walk (its directories: half of a large
        // source's walk) is let go here, before the files are read.
        let files = skill_files(&mut walk.entries, &root, self.depth, self.resources);
        let read_from = started.filter(|_| !read_ahead.is_empty());
        Ok(Walked {
            discovery: self,
            root,
            walk,
            files,
            cut,
            read_ahead,
            read_from,
        })
    }
}

/// What the [`walk`](Discovery::walk) of a [`Discovery`] found, before any `SKILL.md`
/// is read; [`read`](Self::read) finishes the discovery.
#[derive(Debug)]
pub struct Walked<'a> {
    discovery: Discovery<'a>,
    root: String,
    /// What is left of the walk: its errors, and its entries when resources are listed.
    walk: Walk,
    files: Vec<FileInfo>,
    cut: Vec<Diagnostic>,
    /// The files the walk read and parsed, and when it started (files read before the
    /// read proper: the cache's racy window counts from then).
    read_ahead: ReadAhead,
    read_from: Option<SystemTime>,
}

impl<'a> Walked<'a> {
    /// The `SKILL.md` files of skill folders the walk found, in path order, with the
    /// etags that say whether a cached parse still holds.
    pub fn skill_files(&self) -> &[FileInfo] {
        &self.files
    }

    /// The `SKILL.md` files of skill folders the walk found, for a caller done with the
    /// walk (a large one's entries take a while to free: 10 ms at 61,000 files).
    pub fn into_skill_files(self) -> Vec<FileInfo> {
        self.files
    }

    /// Whether the walk listed every directory it met and cut none for a limit: only
    /// then do [`skill_files`](Self::skill_files) say all the source holds.
    pub fn is_complete(&self) -> bool {
        self.walk.errors.is_empty() && self.cut.is_empty()
    }

    /// Reuses the parses of unchanged files from `cache`, as [`Discovery::cache`] does
    /// (replacing a cache the discovery was given).
    pub fn cache(mut self, cache: &'a mut ParseCache) -> Self {
        self.discovery.cache = Some(cache);
        self
    }

    /// Reads and parses the `SKILL.md` files the walk found (those whose etag the cache
    /// does not hold), and lists resources when asked: the second half of
    /// [`Discovery::run`].
    pub async fn read(self) -> Result<SkillListing, SourceError> {
        let Self {
            discovery,
            root,
            walk,
            files,
            cut,
            read_ahead,
            read_from,
        } = self;
        let found = Found {
            files,
            errors: &walk.errors,
            looked_at: None,
            read_ahead,
            read_from,
        };
        let backend = discovery.backend;
        let mut listing = read_skills(backend, &root, found, &discovery.limits, discovery.cache, cut).await;
        if listing.folders == 0 {
            listing
                .diagnostics
                .extend(deeper_skills(backend, &root, discovery.depth).await);
        }
        if discovery.resources {
            add_resources(&mut listing, &walk.entries);
        }
        Ok(listing)
    }
}

impl Discovery<'_> {
    /// Reads only the skill folders `dirs` (backend paths below the source, at a depth
    /// the discovery allows) exactly as [`run`](Self::run) would read them: a folder
    /// without a `SKILL.md` (or gone) gives nothing. For a reload narrowed to the folders
    /// a change touched; the listing holds those folders' skills, diagnostics and
    /// resources only. Fails only when a folder cannot be looked into.
    pub async fn run_folders(self, dirs: &[String]) -> Result<SkillListing, SourceError> {
        let failed = |e| SourceError::from_backend(self.source, e);
        let root = path::normalize(self.source).map_err(failed)?;
        let mut walk = Walk::default();
        for dir in dirs {
            let found = if self.resources {
                self.backend.walk(dir, 2).await.map(|w| {
                    walk.errors.extend(w.errors);
                    w.entries
                })
            } else {
                self.backend.ls_info(dir).await
            };
            match found {
                Ok(entries) => walk.entries.extend(entries),
                Err(BackendError::NotFound { .. } | BackendError::NotADirectory { .. }) => {}
                Err(e) => return Err(failed(e)),
            }
        }
        walk.entries.sort_by(|a, b| a.path.cmp(&b.path));
        walk.entries.dedup_by(|a, b| a.path == b.path);
        let found = Found {
            files: skill_files(&mut walk.entries, &root, self.depth, self.resources),
            errors: &walk.errors,
            looked_at: Some(dirs),
            read_ahead: ReadAhead::default(),
            read_from: None,
        };
        let mut listing = read_skills(self.backend, &root, found, &self.limits, self.cache, Vec::new()).await;
        if self.resources {
            add_resources(&mut listing, &walk.entries);
        }
        Ok(listing)
    }
}

/// The entries of a path-sorted list that lie under `dir`: one contiguous range.
/// Each listed skill's resources, from the entries a walk found below its folder.
fn add_resources(listing: &mut SkillListing, entries: &[FileInfo]) {
    for skill in &listing.skills {
        let dir = skill.dir();
        let found = resources_from_entries(dir, &skill.name, entries_under(entries, dir));
        listing.resources.insert(skill.name.clone(), found);
    }
}

pub(crate) fn entries_under<'a>(entries: &'a [FileInfo], dir: &str) -> &'a [FileInfo] {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let start = entries.partition_point(|e| e.path.as_str() < prefix.as_str());
    let len = entries[start..].partition_point(|e| e.path.starts_with(&prefix));
    &entries[start..start + len]
}

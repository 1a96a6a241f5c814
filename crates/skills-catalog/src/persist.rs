//! [`PersistentCache`]: each source's [`ParseCache`] kept in a file between processes, so
//! a start finds what the last process parsed and reads only what changed since.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use skills_core::{DiscoveryLimits, ParseCache, SharedListing, Walked};
use tracing::debug;

use crate::cache_file::{
    CacheFileError, WhileWanted, open_payload, read_cache_file, write_cache_file, write_cache_file_with,
};
use crate::kept_header::KeptHeader;
use crate::snapshot::CatalogSnapshot;
use crate::source::SkillSource;

/// Most cache files kept in the folder: the least recently written go first.
const MAX_FILES: usize = 64;
/// Most bytes of cache files kept in the folder (a 61,000-folder library's parses, words
/// and index take about 150 MiB).
const MAX_FOLDER_BYTES: u64 = 1024 * 1024 * 1024;

/// Where a [`SkillCatalog`](crate::SkillCatalog) keeps what discovery parsed, one file
/// per source and settings, between processes ([`SkillCatalog::with_persistent_cache`](crate::SkillCatalog::with_persistent_cache)).
///
/// A file holds each `SKILL.md`'s parse (and the search index's words for its
/// instructions) under the etag that proves the file unchanged: on disk its size, mtime,
/// ctime and inode; on S3 and HTTP the ETag or digest; in git the blob id. A warm start
/// checks every etag (a `stat` per skill on disk, the listing remotely) and reads and
/// parses only the files whose etag changed. The key of a file names the source's spec,
/// path and depth, the discovery limits and the program (its version and its executable),
/// so nothing written by another build or for other settings is used. A missing,
/// damaged or foreign file is ignored and replaced: the cache can cost time, never change
/// an answer. Only sources opened from a spec ([`SkillSource::with_spec`]) are cached.
///
/// ```
/// use skills_catalog::{PersistentCache, SkillCatalog};
/// let cache = PersistentCache::new(std::env::temp_dir().join("my-agent-skills-cache"));
/// let catalog = SkillCatalog::new(Vec::new()).with_persistent_cache(cache);
/// assert!(catalog.persistent_cache().is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistentCache {
    dir: PathBuf,
    racy_window: Duration,
}

impl PersistentCache {
    /// A cache kept in the folder `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            racy_window: skills_core::DEFAULT_RACY_WINDOW,
        }
    }

    /// The user's cache folder for it: `$SKILLS_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/agent-skills/catalog`, else `~/.cache/agent-skills/catalog`;
    /// `None` when none of these is set.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("SKILLS_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache"))
            })?;
        Some(base.join("agent-skills/catalog"))
    }

    /// How recently a file may have changed before its read for its parse to be kept
    /// (default [`DEFAULT_RACY_WINDOW`](skills_core::DEFAULT_RACY_WINDOW)); see
    /// [`ParseCache::with_racy_window`].
    pub fn with_racy_window(mut self, window: Duration) -> Self {
        self.racy_window = window;
        self
    }

    /// The folder the files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file and key of `source`'s cache under `limits`, when it has a spec.
    pub(crate) fn file_of(&self, source: &SkillSource, limits: &DiscoveryLimits) -> Option<(PathBuf, String)> {
        let spec = source.spec()?;
        let backend = source.backend();
        let key = format!(
            "{spec}\n{}\n{}\n{limits:?}\n{} {}\nmax file size {}\n{}",
            source.path(),
            source.depth(),
            env!("CARGO_PKG_VERSION"),
            program(),
            backend.max_file_size(),
            backend.read_settings()
        );
        // The name only spreads keys over files (the file holds its whole key, checked
        // when it is read): xxh3, as the answers' and indexes' names, and no SHA-256 at
        // a warm start (its first use asks the CPU what it has, slow in a VM).
        let name = xxhash_rust::xxh3::xxh3_128(key.as_bytes()) >> 32;
        Some((self.dir.join(format!("{name:024x}.cache")), key))
    }

    /// Where the search index of `snapshot` is kept, and the key it is kept under: a
    /// digest of every source's key and every skill's source, path and etag, so an index
    /// is used only for the very library it was built from. `None` when a skill's etag
    /// is not known (or a source has no spec).
    pub(crate) fn index_file(
        &self,
        sources: &[SkillSource],
        limits: &DiscoveryLimits,
        snapshot: &CatalogSnapshot,
        files: &[SourceFiles<'_>],
        instructions: bool,
    ) -> Option<(PathBuf, String)> {
        // A digest that finds change, not tampering (like the files' checksums): xxh3
        // takes 3 ms over 40,000 skills where SHA-256 of their formatted lines took 40.
        let by_digest = files.iter().all(|f| matches!(f, SourceFiles::Digest(_)));
        let file = self.index_file_of(sources, limits, instructions, by_digest)?;
        // The file's name digests the sources' keys and the settings.
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        digest.update(file.file_name()?.as_encoded_bytes());
        for files in files {
            match files {
                SourceFiles::Digest(files) => digest.update(&files.to_le_bytes()),
                SourceFiles::Parses(_) => digest.update(&[0]),
            }
        }
        for (skill, &source) in snapshot.skills().iter().zip(snapshot.skill_sources()) {
            let etag = match files.get(source)? {
                SourceFiles::Digest(_) => "",
                SourceFiles::Parses(cache) => cache.etag(&skill.path)?,
            };
            digest.update(&(source as u64).to_le_bytes());
            digest_path_and_etag(&mut digest, &skill.path, etag);
        }
        Some((file, format!("{:032x}", digest.digest128())))
    }

    /// The file the search index of `sources` is kept in, whatever skills it holds (its
    /// key says which): one per list of sources and settings, so that it can be read
    /// before the skills are known; `by_digest` when every source's files are vouched
    /// for by their digest (a start that took kept listings: see [`SourceFiles`]), so
    /// that a catalog which lists resources at discovery (keyed by etags) keeps its own.
    pub(crate) fn index_file_of(
        &self,
        sources: &[SkillSource],
        limits: &DiscoveryLimits,
        instructions: bool,
        by_digest: bool,
    ) -> Option<PathBuf> {
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        digest.update(format!("search index\ninstructions {instructions}\nby digest {by_digest}\n").as_bytes());
        for source in sources {
            digest.update(self.file_of(source, limits)?.1.as_bytes());
            digest.update(&[0]);
        }
        Some(self.dir.join(format!("{:024x}.index", digest.digest128() >> 32)))
    }

    /// Whether nothing is kept for `source` under `limits`: neither its parses nor its
    /// listing (a file that cannot be looked at counts as not there).
    pub(crate) fn holds_nothing_for(&self, source: &SkillSource, limits: &DiscoveryLimits) -> bool {
        self.file_of(source, limits)
            .is_none_or(|(file, _)| !file.exists() && !file.with_extension("listing").exists())
    }

    /// The cache of `source` as the last process left it, or an empty one.
    pub(crate) fn load(&self, source: &SkillSource, limits: &DiscoveryLimits) -> ParseCache {
        let loaded = self.file_of(source, limits).and_then(|(file, key)| {
            let cache = read(&file, &key).and_then(ParseCache::from_bytes);
            if cache.is_none() {
                debug!(file = %file.display(), "skills cache damaged: ignored");
            }
            cache
        });
        loaded.unwrap_or_default().with_racy_window(self.racy_window)
    }

    /// Writes `cache` for `source` when anything in it changed, then keeps the folder to
    /// its most recent files. A failure costs the next start its warmth only.
    pub(crate) fn save(&self, source: &SkillSource, limits: &DiscoveryLimits, cache: &mut ParseCache) {
        if !cache.is_dirty() {
            return;
        }
        let Some((file, key)) = self.file_of(source, limits) else {
            return;
        };
        // When only search words changed, the parses on disk are the ones held.
        let mut written = Ok(());
        if cache.parses_dirty() || !cache.words_dirty() {
            written = write_cache_file_with(&file, &key, &|sink| cache.write_bytes(sink));
        }
        if written.is_ok() && cache.words_dirty() {
            written = write_cache_file(&words_file(&file), &key, &cache.words_to_bytes());
        }
        match written {
            Ok(()) => {
                cache.mark_saved();
                prune(&self.dir, &file);
            }
            Err(error) => debug!(file = %file.display(), %error, "skills cache not written"),
        }
    }
}

/// Adds a file's path and etag to a key's digest, each with its length (so no two pairs
/// digest alike by where one ends and the next begins).
fn digest_path_and_etag(digest: &mut xxhash_rust::xxh3::Xxh3, path: &str, etag: &str) {
    for part in [path.as_bytes(), etag.as_bytes()] {
        digest.update(&(part.len() as u64).to_le_bytes());
        digest.update(part);
    }
}

/// What vouches for the files of one source's skills in the search index's key.
pub(crate) enum SourceFiles<'a> {
    /// The digest of every `SKILL.md`'s path and etag, taken when the source's listing
    /// says only what its files say (see [`PersistentCache::listing_file`]).
    Digest(u128),
    /// The source's parses, each with its file's etag.
    Parses(&'a ParseCache),
}

/// Where a source's listing is kept, and the key that says for which files.
#[derive(Debug)]
pub(crate) struct ListingFile {
    pub(crate) file: PathBuf,
    pub(crate) key: String,
    /// The digest of the files' paths and etags the key ends with.
    pub(crate) digest: u128,
}

impl PersistentCache {
    /// The listing file of `source` for the files `walked` found, under a key that
    /// digests each file's path and etag after the source's own key (spec, path, depth,
    /// limits, program), and names the backend's `revision` the walk was made at when
    /// it has one (a later start at that revision may take the listing without walking:
    /// see [`KeptHeader`]). `None` when the walk cannot vouch for a listing: a directory
    /// it could not list or cut for a limit, no skill folder (the listing would then say
    /// what lies deeper), a file without an etag or changed within the racy window
    /// before `now`.
    pub(crate) fn listing_file(
        &self,
        source: &SkillSource,
        limits: &DiscoveryLimits,
        walked: &Walked<'_>,
        now: SystemTime,
        revision: Option<&str>,
    ) -> Option<ListingFile> {
        if !walked.is_complete() || walked.skill_files().is_empty() {
            return None;
        }
        let (file, key) = self.file_of(source, limits)?;
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        for found in walked.skill_files() {
            let etag = found.etag.as_deref()?;
            if found.changed_at.is_some_and(|at| at + self.racy_window > now) {
                return None;
            }
            digest_path_and_etag(&mut digest, &found.path, etag);
        }
        let digest = digest.digest128();
        Some(ListingFile {
            file: file.with_extension("listing"),
            key: format!("{key}\nlisting of {}", KeptHeader::new(digest, revision).key()),
            digest,
        })
    }
}

impl PersistentCache {
    /// The listing kept for `source`, if the file holds it whole, whichever files it was
    /// kept for: `found` hears the [`KeptHeader`] (the digest of those files, see
    /// [`listing_file`](Self::listing_file), and the revision they were walked at) and
    /// the listing's length in bytes as soon as the header is read, `between` is called
    /// between the listing's skills and its diagnostics (see
    /// [`SharedListing::read_from_gated`]), and the read stops early
    /// once `wanted` is false (the walk found other files). Read while the source is
    /// walked.
    pub(crate) fn read_listing(
        &self,
        source: &SkillSource,
        limits: &DiscoveryLimits,
        wanted: &AtomicBool,
        found: &mut dyn FnMut(KeptHeader, u64),
        between: &mut dyn FnMut() -> bool,
    ) -> Option<SharedListing> {
        let (file, key) = self.file_of(source, limits)?;
        let prefix = format!("{key}\nlisting of ");
        let accept = |stored: &str| {
            stored
                .strip_prefix(&prefix)
                .is_some_and(|rest| KeptHeader::parse(rest).is_some())
        };
        // Decoded as it is read: the file's bytes (40 MB at 40,000 skills) are never
        // held whole.
        let mut payload = open_payload(&file.with_extension("listing"), &accept).ok()?;
        let header = KeptHeader::parse(&payload.key[prefix.len()..])?;
        found(header, payload.len);
        payload.decoded(|source, len| SharedListing::read_from_gated(&mut WhileWanted(source, wanted), len, between))
    }
}

/// The payload of the cache file `file` for `key`; `None` when there is none or it does
/// not check out (said in the log: it is then ignored and replaced).
fn read(file: &Path, key: &str) -> Option<Vec<u8>> {
    match read_cache_file(file, key) {
        Ok(payload) => Some(payload),
        Err(CacheFileError::Missing) => None,
        Err(error) => {
            debug!(file = %file.display(), %error, "skills cache ignored");
            None
        }
    }
}

/// The file of the search words of the cache at `file`.
fn words_file(file: &Path) -> PathBuf {
    file.with_extension("words")
}

/// What identifies the running program beyond its version: its executable's size and
/// modification time, so a rebuild does not read what the last build wrote.
fn program() -> &'static str {
    static PROGRAM: OnceLock<String> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let meta = std::env::current_exe().and_then(std::fs::metadata);
        match meta {
            Ok(meta) => {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}-{modified:x}", meta.len())
            }
            Err(_) => String::from("unknown"),
        }
    })
}

/// Removes the least recently written cache files of `dir` beyond [`MAX_FILES`] files or
/// [`MAX_FOLDER_BYTES`] bytes (never `kept`, the file just written), and temporary files
/// a killed process left over an hour ago.
pub(crate) fn prune(dir: &Path, kept: &Path) {
    prune_to(dir, kept, MAX_FILES, MAX_FOLDER_BYTES);
}

fn prune_to(dir: &Path, kept: &Path, max_files: usize, max_bytes: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    let mut caches = Vec::new();
    let mut total = 0u64;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let meta = entry.metadata().ok();
        let modified = meta.as_ref().and_then(|m| m.modified().ok()).unwrap_or(UNIX_EPOCH);
        let size = meta.map_or(0, |m| m.len());
        if name.starts_with('.') && name.ends_with(".tmp") {
            if now
                .duration_since(modified)
                .is_ok_and(|age| age > Duration::from_secs(3600))
            {
                let _ = std::fs::remove_file(&path);
            }
        } else if [".cache", ".index", ".words", ".listing", ".answer"]
            .iter()
            .any(|e| name.ends_with(e))
        {
            total = total.saturating_add(size);
            if path != kept {
                caches.push((modified, size, path));
            }
        }
    }
    // The oldest first, until the folder is within both bounds (counting `kept`).
    caches.sort();
    let mut files = caches.len() + 1;
    for (_, size, path) in &caches {
        if files <= max_files && total <= max_bytes {
            break;
        }
        if std::fs::remove_file(path).is_ok() {
            files -= 1;
            total = total.saturating_sub(*size);
        }
    }
}

impl PersistentCache {
    /// [`load`](Self::load), off the async threads.
    pub(crate) async fn load_now(&self, source: &SkillSource, limits: DiscoveryLimits) -> ParseCache {
        let (persist, source) = (self.clone(), source.clone());
        let load = move || persist.load(&source, &limits);
        tokio::task::spawn_blocking(load).await.unwrap_or_default()
    }

    /// Gives `cache` the search words kept for `source`, off the async threads; `cache`
    /// is back in place after.
    pub(crate) async fn load_words_now(&self, source: &SkillSource, limits: DiscoveryLimits, cache: &mut ParseCache) {
        let Some((file, key)) = self.file_of(source, &limits) else {
            return;
        };
        let read = tokio::task::spawn_blocking(move || read(&words_file(&file), &key));
        if let Ok(Some(words)) = read.await {
            if cache.give_words(&words).is_none() {
                debug!("skills search words damaged: ignored");
            }
        }
    }

    /// [`save`](Self::save), off the async threads; `cache` is back in place after.
    pub(crate) async fn save_now(&self, source: &SkillSource, limits: DiscoveryLimits, cache: &mut ParseCache) {
        if !cache.is_dirty() {
            return;
        }
        let (persist, source, mut taken) = (self.clone(), source.clone(), std::mem::take(cache));
        let saved = tokio::task::spawn_blocking(move || {
            persist.save(&source, &limits, &mut taken);
            taken
        });
        if let Ok(saved) = saved.await {
            *cache = saved;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_listing_tells_its_digest_first_and_stops_when_not_wanted() {
        let dir = tempfile::tempdir().unwrap();
        let persist = PersistentCache::new(dir.path());
        let source = SkillSource::new(std::sync::Arc::new(skills_core::MemoryBackend::new()), "/s").with_spec("s");
        let limits = DiscoveryLimits::default();
        let (file, key) = persist.file_of(&source, &limits).unwrap();
        let listing = skills_core::SkillListing {
            diagnostics: (0..20_000)
                .map(|i| {
                    skills_core::Diagnostic::new(
                        format!("/s/{i}/SKILL.md"),
                        skills_core::DiagnosticKind::NameMismatch,
                        "m",
                    )
                })
                .collect(),
            ..skills_core::SkillListing::default()
        };
        let kept = format!("{key}\nlisting of {:032x}", 7u128);
        write_cache_file(&file.with_extension("listing"), &kept, &listing.to_bytes()).unwrap();
        let wanted = AtomicBool::new(true);
        let mut heard = Vec::new();
        let mut found = |header: KeptHeader, len| heard.push((header.digest, len));
        let read = persist.read_listing(&source, &limits, &wanted, &mut found, &mut || true);
        assert_eq!(*read.unwrap().diagnostics, *listing.diagnostics);
        let len = listing.to_bytes().len() as u64;
        assert_eq!(heard, [(7, len)]);
        // Not wanted: the digest is still told (before the payload is read), the listing
        // is not read.
        wanted.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut found = |header: KeptHeader, len| heard.push((header.digest, len));
        let read = persist.read_listing(&source, &limits, &wanted, &mut found, &mut || true);
        assert!(read.is_none());
        assert_eq!(heard, [(7, len), (7, len)]);
    }

    #[test]
    fn the_folder_keeps_its_newest_files_within_both_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let file = |i: usize| dir.path().join(format!("{i:02}.cache"));
        let old = SystemTime::now() - Duration::from_secs(100);
        for i in 0..10 {
            std::fs::write(file(i), vec![b'x'; 100]).unwrap();
            let at = old + Duration::from_secs(i as u64);
            let opened = std::fs::File::options().write(true).open(file(i)).unwrap();
            opened.set_times(std::fs::FileTimes::new().set_modified(at)).unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), "not a cache").unwrap();
        // The oldest file is the one just written: it stays whatever its age.
        prune_to(dir.path(), &file(0), 6, u64::MAX);
        let left = |n: usize| (0..10).filter(|&i| file(i).exists()).take(n).collect::<Vec<_>>();
        assert_eq!(left(10), [0, 5, 6, 7, 8, 9]);
        prune_to(dir.path(), &file(0), 64, 350);
        assert_eq!(left(10), [0, 8, 9], "within 350 bytes");
        assert!(dir.path().join("notes.txt").exists(), "only cache files go");
    }
}

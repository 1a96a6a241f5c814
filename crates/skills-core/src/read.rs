//! Reading the `SKILL.md` files a walk found: the budget of [`DiscoveryLimits`], the
//! [`ParseCache`], chunked downloads overlapped with parsing, duplicate names.

use std::borrow::Cow;
use std::time::SystemTime;

use foldhash::HashSet;
use futures_util::StreamExt as _;

use crate::backend::BackendProtocol;
use crate::cache_codec::Blob;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::error::BackendError;
use crate::file::{FileErrorKind, FileInfo};
use crate::limits::DiscoveryLimits;
use crate::name_index::NameIndex;
use crate::parse::ParseOutcome;
use crate::parse_cache::ParseCache;
use crate::path;
use crate::read_budget::Budget;
use crate::skill::{LOWERCASE_SKILL_FILE, ResourceKind, SKILL_FILE, SkillListing};
use crate::skill_files::ReadAhead;

/// How one `SKILL.md` of a walk is obtained.
enum Read {
    /// Not readable; the diagnostic says why.
    Problem(Diagnostic),
    /// Unchanged since it was parsed (same etag): the cached parse, encoded; decoded
    /// when its chunk is read, so a warm start holds no more parsed skills at once than
    /// a cold one.
    Cached(Blob),
    /// To download and parse.
    Pending,
    /// Read and parsed by the walk ([`ReadAhead`]).
    Ahead(Vec<u8>),
}

/// What a walk gave discovery to read.
pub(crate) struct Found<'a> {
    /// The `SKILL.md` files of skill folders, in path order ([`skill_files`]).
    pub(crate) files: Vec<FileInfo>,
    /// The directories the walk could not list.
    pub(crate) errors: &'a [BackendError],
    /// The folders the walk covered when it did not cover the whole source (a narrowed
    /// reload): the cache forgets only the files under them that are gone.
    pub(crate) looked_at: Option<&'a [String]>,
    /// The files the walk read and parsed already, and when it started if it read any.
    pub(crate) read_ahead: ReadAhead,
    pub(crate) read_from: Option<SystemTime>,
}

/// Reads and parses the `SKILL.md` files a walk `found`, within `limits`; returns the
/// listing, diagnostics sorted by path, the backend's `source-stale` warning included.
///
/// Each file's entry is let go once its chunk is read, so a large source's paths are not
/// held twice (by the walk and by the skills) when the listing is at its largest.
pub(crate) async fn read_skills(
    backend: &dyn BackendProtocol,
    root: &str,
    found: Found<'_>,
    limits: &DiscoveryLimits,
    mut cache: Option<&mut ParseCache>,
    diagnostics: Vec<Diagnostic>,
) -> SkillListing {
    let Found {
        files: found,
        errors,
        looked_at,
        mut read_ahead,
        read_from,
    } = found;
    let mut listing = SkillListing {
        diagnostics,
        ..SkillListing::default()
    };
    let mut resource_errors = Vec::new();
    for error in errors {
        let error_path = error.path();
        let dir = path::parent(error_path);
        if dir == root || error_path == root {
            let msg = format!("could not list directory: {error}");
            listing
                .diagnostics
                .push(Diagnostic::new(error_path, DiagnosticKind::ListingFailed, msg));
        } else if ResourceKind::from_dir_name(path::file_name(error_path)).is_some() {
            resource_errors.push(error);
        }
    }

    let max_size = backend.max_file_size();
    let mut to_download = 0usize;
    let mut budget = Budget::new(limits);
    let mut candidates: Vec<(FileInfo, Read)> = Vec::with_capacity(found.len());
    listing.folders = found.len();
    if let Some(cache) = cache.as_deref_mut() {
        cache.forget_gone(&found, looked_at);
    }
    // Every file is read after this (or after the walk started, for files it read):
    // what changed later than a racy window before it is not kept between processes.
    let read_at = read_from.unwrap_or_else(SystemTime::now);
    for entry in found {
        if !entry.is_dir && path::file_name(&entry.path) == LOWERCASE_SKILL_FILE {
            listing.diagnostics.push(crate::lowercase_skill_file(&entry.path));
        }
        let read = if entry.is_dir {
            let msg = format!("{SKILL_FILE} is a directory");
            Read::Problem(Diagnostic::new(&entry.path, DiagnosticKind::ReadFailed, msg))
        } else if entry.size > max_size {
            let msg = format!("file is {} bytes, over the {max_size}-byte limit; not read", entry.size);
            Read::Problem(Diagnostic::new(&entry.path, DiagnosticKind::TooLarge, msg))
        } else if !budget.admit(&entry) {
            continue;
        } else if let Some(encoded) = read_ahead.take(&entry.path) {
            to_download += 1;
            Read::Ahead(encoded)
        } else if let Some(blob) = cache.as_deref().and_then(|c| c.hit(&entry)) {
            Read::Cached(blob)
        } else {
            to_download += 1;
            Read::Pending
        };
        candidates.push((entry, read));
    }
    listing.diagnostics.extend(budget.into_diagnostics(root));

    if let Some(cache) = cache.as_deref_mut() {
        cache.count_read(to_download as u64);
    }
    let mut index = NameIndex::with_capacity(candidates.len());
    listing.skills.reserve_exact(candidates.len());
    // Each chunk is read and parsed by its own future; `CHUNKS_IN_FLIGHT` of them run at
    // once, so the cores are not left idle while one chunk waits, and the listing takes
    // the chunks in order.
    // Collected (futures do nothing until polled): a stream over a mapping closure
    // makes the caller's future not `Send` (rustc's higher-ranked lifetime limits).
    let work: Vec<_> = chunks(candidates, limits.read_batch())
        .into_iter()
        .map(|chunk| read_chunk(backend, chunk))
        .collect();
    let mut work = futures_util::stream::iter(work).buffered(CHUNKS_IN_FLIGHT);
    while let Some(steps) = work.next().await {
        let by_path = backend.skills_by_path().then_some(root);
        add_chunk(steps, &mut listing, &mut index, cache.as_deref_mut(), read_at, by_path);
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
    if let Some(reason) = backend.stale() {
        listing
            .diagnostics
            .push(Diagnostic::new(root, DiagnosticKind::SourceStale, reason));
    }
    for message in backend.withheld() {
        listing
            .diagnostics
            .push(Diagnostic::new(root, DiagnosticKind::Withheld, message));
    }
    listing.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

/// The `SKILL.md` files of a path-sorted walk that make skill folders, for a discovery
/// `depth` levels deep: a skill folder lies 1 to `depth` levels below `root`; the folders
/// above it may not be hidden (`.git`, `.cache`) or `node_modules`; and discovery stops at
/// a folder holding a `SKILL.md` (a skill's own sub-folders are its files, not skills).
///
/// The entries are moved out of `entries` when `keep` is false, and copied when the
/// caller still needs the walk (resources are found in it).
pub(crate) fn skill_files(entries: &mut Vec<FileInfo>, root: &str, depth: usize, keep: bool) -> Vec<FileInfo> {
    let positions = skill_file_positions(entries, root, depth);
    if keep {
        return positions.into_iter().map(|i| entries[i].clone()).collect();
    }
    // In place: the walk's vector (twice as many entries, at 61,000 folders) is kept
    // rather than a second one filled.
    let mut positions = positions.into_iter().peekable();
    let mut files = std::mem::take(entries);
    let mut i = 0;
    files.retain(|_| {
        let kept = positions.next_if_eq(&i).is_some();
        i += 1;
        kept
    });
    files
}

/// The folder of `path` as [`path::parent`] gives it, when its file is `SKILL.md`
/// (`false`) or `skill.md` (`true`); `None` for any other file. Its suffixes are
/// compared, not searched for: this runs over every entry of a walk.
fn skill_file_parent(path: &str) -> Option<(&str, bool)> {
    let (head, lower) = match path.strip_suffix(SKILL_FILE) {
        Some(head) => (head, false),
        None => (path.strip_suffix(LOWERCASE_SKILL_FILE)?, true),
    };
    let parent = if head.is_empty() { "" } else { head.strip_suffix('/')? };
    Some((if parent.is_empty() { "/" } else { parent }, lower))
}

/// Where in a path-sorted walk the `SKILL.md` files of skill folders are, in order. A
/// folder without `SKILL.md` is read through its `skill.md`; a folder with both, through
/// its `SKILL.md` (as the specification's reference library chooses).
fn skill_file_positions(entries: &[FileInfo], root: &str, depth: usize) -> Vec<usize> {
    let prefix = format!("{}/", root.trim_end_matches('/'));
    let mut lowercase = false;
    let mut found: Vec<usize> = (0..entries.len())
        .filter(|&i| {
            let Some((parent, lower)) = skill_file_parent(&entries[i].path) else {
                return false;
            };
            lowercase |= lower;
            let Some(rel) = parent.strip_prefix(&prefix) else {
                return false;
            };
            // No allocation or search per entry: this runs over every `SKILL.md` of a source (and
            // nothing more for a skill folder right in the source, the common case).
            let slashes = rel.bytes().filter(|&b| b == b'/').count();
            if slashes >= depth {
                return false;
            }
            let above = rel.rsplit_once('/').map_or("", |(above, _)| above);
            slashes == 0 || !above.split('/').any(|f| f.starts_with('.') || f == "node_modules")
        })
        .collect();
    if lowercase {
        let upper = |i: &usize| Some(entries[*i].path.as_str()).filter(|p| path::file_name(p) == SKILL_FILE);
        let upper: HashSet<&str> = found.iter().filter_map(upper).map(path::parent).collect();
        found.retain(|&i| {
            let p = entries[i].path.as_str();
            path::file_name(p) == SKILL_FILE || !upper.contains(path::parent(p))
        });
    }
    if depth > 1 {
        let skill_dirs: HashSet<&str> = found.iter().map(|&i| path::parent(&entries[i].path)).collect();
        found.retain(|&i| {
            let mut dir = path::parent(path::parent(&entries[i].path));
            while dir.len() > root.len() {
                if skill_dirs.contains(dir) {
                    return false;
                }
                dir = path::parent(dir);
            }
            true
        });
    }
    found
}

/// Most bytes of `SKILL.md` files one chunk downloads (a chunk holds at least one file).
const READ_CHUNK_BYTES: u64 = 1 << 20;

/// The candidates in chunks of at most `batch` files and [`READ_CHUNK_BYTES`] to
/// download: memory stays bounded by the chunks in flight, not the whole source.
fn chunks(candidates: Vec<(FileInfo, Read)>, batch: usize) -> Vec<Vec<(FileInfo, Read)>> {
    let mut chunks = Vec::new();
    let mut current = Vec::new();
    let mut bytes = 0u64;
    for (entry, read) in candidates {
        let size = if matches!(read, Read::Pending) { entry.size } else { 0 };
        if !current.is_empty() && (current.len() == batch || bytes.saturating_add(size) > READ_CHUNK_BYTES) {
            chunks.push(std::mem::take(&mut current));
            bytes = 0;
        }
        bytes = bytes.saturating_add(size);
        current.push((entry, read));
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// Reads and parses the `SKILL.md` files of a chunk that are still to read
/// ([`BackendProtocol::read_skill_files`]): what became of each file, in chunk order.
async fn read_chunk(backend: &dyn BackendProtocol, chunk: Vec<(FileInfo, Read)>) -> Vec<(FileInfo, Step)> {
    // What is known without a read (a problem, a parse cached or read ahead) is a step.
    let mut ahead = Vec::new();
    let mut chunk: Vec<(FileInfo, Option<Step>)> = chunk
        .into_iter()
        .enumerate()
        .map(|(at, (entry, read))| {
            let step = match read {
                Read::Problem(diagnostic) => Some(Step::Problem(diagnostic)),
                Read::Cached(blob) => crate::cache_codec::decode(blob.bytes(), &entry.path).map(Step::Cached),
                Read::Pending => None,
                Read::Ahead(bytes) => {
                    ahead.push((at, entry.path.clone(), bytes));
                    None
                }
            };
            (entry, step)
        })
        .collect();
    for (at, outcome, bytes) in crate::skill_files::decode_read_ahead(ahead).await {
        if let Some((_, step)) = chunk.get_mut(at) {
            *step = Some(Step::Ahead(outcome, bytes));
        }
    }
    let paths: Vec<String> = chunk
        .iter()
        .filter(|(_, step)| step.is_none())
        .map(|(entry, _)| entry.path.clone())
        .collect();
    let mut reads = if paths.is_empty() {
        Vec::new()
    } else {
        backend.read_skill_files(&paths).await
    }
    .into_iter();
    let mut steps = Vec::with_capacity(chunk.len());
    for (entry, known) in chunk {
        let md_path = &entry.path;
        let step = match known {
            Some(step) => step,
            None => match reads.next() {
                Some(Ok(outcome)) => Step::Parsed(outcome),
                // Deleted between the listing and the read: as if it had never been there.
                Some(Err(e)) if e.kind == FileErrorKind::FileNotFound => continue,
                Some(Err(e)) => {
                    let (kind, message) = match e.kind {
                        FileErrorKind::TooLarge => (DiagnosticKind::TooLarge, e.message),
                        _ => (DiagnosticKind::ReadFailed, e.to_string()),
                    };
                    Step::Problem(Diagnostic::new(md_path, kind, message))
                }
                None => {
                    let msg = "the backend gave no answer for this file";
                    Step::Problem(Diagnostic::new(md_path, DiagnosticKind::ReadFailed, msg))
                }
            },
        };
        steps.push((entry, step));
    }
    steps
}

/// What became of one file of a chunk.
enum Step {
    /// Not readable; the diagnostic says why.
    Problem(Diagnostic),
    /// Parsed before (the cache).
    Cached(ParseOutcome),
    /// Read and parsed now.
    Parsed(ParseOutcome),
    /// Read and parsed by the walk, and its encoding for the cache.
    Ahead(ParseOutcome, Vec<u8>),
}

/// Adds a read chunk to the listing, in chunk order, and what was parsed now to `cache`.
fn add_chunk(
    steps: Vec<(FileInfo, Step)>,
    listing: &mut SkillListing,
    index: &mut NameIndex,
    mut cache: Option<&mut ParseCache>,
    read_at: SystemTime,
    by_path: Option<&str>,
) {
    for (entry, step) in steps {
        let outcome = match step {
            Step::Problem(diagnostic) => {
                listing.diagnostics.push(diagnostic);
                continue;
            }
            Step::Cached(outcome) => outcome,
            Step::Ahead(outcome, encoded) => {
                if let Some(cache) = cache.as_deref_mut() {
                    cache.store_encoded(&entry, Cow::Owned(encoded), read_at);
                }
                outcome
            }
            Step::Parsed(outcome) => {
                if let Some(cache) = cache.as_deref_mut() {
                    cache.store(&entry, &outcome, read_at);
                }
                outcome
            }
        };
        add_skill(listing, index, outcome, by_path);
    }
}

/// How many chunks are read at once.
const CHUNKS_IN_FLIGHT: usize = 3;

/// Adds a parsed `SKILL.md` to a listing: its diagnostics, and its skill unless an
/// earlier file of the source declared the same name (then the later one is kept; or,
/// for a source whose skills are told apart by path (`by_path`, its root), both are, the
/// later named by its folder's path below the root).
fn add_skill(listing: &mut SkillListing, index: &mut NameIndex, outcome: ParseOutcome, by_path: Option<&str>) {
    listing.diagnostics.extend(outcome.diagnostics);
    let Some(mut skill) = outcome.skill else { return };
    let skills = &listing.skills;
    let taken = index.get(&skill.name, |i| skills[i].name.as_str());
    if let (Some(_), Some(root)) = (taken, by_path) {
        let folder = path::parent(&skill.path);
        let rel = folder.strip_prefix(root).unwrap_or(folder).trim_matches('/').to_owned();
        if !rel.is_empty() && rel != skill.name && index.get(&rel, |i| skills[i].name.as_str()).is_none() {
            let msg = format!(
                "skill '{}' is declared again here; skills of this source are told apart by path, so this one is kept as '{rel}'",
                skill.name
            );
            listing
                .diagnostics
                .push(Diagnostic::new(&skill.path, DiagnosticKind::DuplicateName, msg));
            skill.name = rel;
            listing.skills.push(skill);
            let skills = &listing.skills;
            index.insert(skills.len() - 1, |i| skills[i].name.as_str());
            return;
        }
    }
    match taken {
        Some(i) => {
            // The warning goes on the folder that is hidden, and names the one kept.
            let hidden = std::mem::replace(&mut listing.skills[i], skill);
            let msg = format!(
                "hidden: skill '{}' is declared again by {}, which comes later in this source and is kept",
                hidden.name, listing.skills[i].path
            );
            listing
                .diagnostics
                .push(Diagnostic::new(hidden.path, DiagnosticKind::DuplicateName, msg));
        }
        None => {
            listing.skills.push(skill);
            let skills = &listing.skills;
            index.insert(skills.len() - 1, |i| skills[i].name.as_str());
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;

//! Bounds on the work one discovery of one source may cost.
//!
//! A skill source is untrusted: a bucket or repository can hold a million folders, a
//! directory with a million files, or thousands of `SKILL.md` files at the size limit.
//! Discovery takes what fits within these limits, in path order, and reports the rest as
//! one `limit-exceeded` diagnostic per limit instead of failing or growing without bound.

use std::collections::{HashMap, HashSet};

use crate::backend::Walk;
use crate::diagnostic::{Diagnostic, Limit, LimitCut};
use crate::path;

/// Limits of one discovery of one source; [`Default`] holds safe defaults.
///
/// ```
/// use skills_core::DiscoveryLimits;
/// let limits = DiscoveryLimits::default().with_max_skills(500).with_max_bytes(8 << 20);
/// assert_eq!(limits.max_skills(), 500);
/// assert_eq!(limits.max_dir_entries(), DiscoveryLimits::DEFAULT_MAX_DIR_ENTRIES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoveryLimits {
    max_skills: usize,
    max_dir_entries: usize,
    max_bytes: u64,
    read_batch: usize,
}

impl DiscoveryLimits {
    /// Default of [`max_skills`](Self::max_skills): 200,000 `SKILL.md` files per source,
    /// so the largest public collections (a 100,000-skill source) load whole.
    pub const DEFAULT_MAX_SKILLS: usize = 200_000;
    /// Default of [`max_dir_entries`](Self::max_dir_entries): 250,000 entries per
    /// directory (a source folder holds one entry per skill).
    pub const DEFAULT_MAX_DIR_ENTRIES: usize = 250_000;
    /// Default of [`max_bytes`](Self::max_bytes): 4 GiB of `SKILL.md` per source (real
    /// `SKILL.md` files average a few KiB; files are read in batches, so this bounds
    /// time, not memory).
    pub const DEFAULT_MAX_BYTES: u64 = 4 * 1024 * 1024 * 1024;
    /// Default of [`read_batch`](Self::read_batch): 256 files per request to the backend.
    pub const DEFAULT_READ_BATCH: usize = 256;

    /// The most `SKILL.md` files one source may offer; the ones after it, in path order,
    /// are not read.
    pub fn max_skills(&self) -> usize {
        self.max_skills
    }

    /// The most entries of one directory discovery looks at (the source folder, a skill
    /// folder, a resource folder); the ones after it, in path order, are left out.
    pub fn max_dir_entries(&self) -> usize {
        self.max_dir_entries
    }

    /// The most `SKILL.md` bytes one discovery of a source takes in, counted from the
    /// listed sizes in path order (files served from the parse cache count too, so the
    /// same library gives the same skills however warm the cache is); the files after the
    /// budget is spent are not read.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// How many `SKILL.md` files discovery asks the backend for at once. Three batches
    /// are in flight (each read, then parsed), so this bounds discovery's memory; a
    /// backend's own concurrency (S3 requests, disk threads) applies within a batch.
    pub fn read_batch(&self) -> usize {
        self.read_batch
    }

    /// Sets [`max_skills`](Self::max_skills).
    pub fn with_max_skills(mut self, max_skills: usize) -> Self {
        self.max_skills = max_skills;
        self
    }

    /// Sets [`max_dir_entries`](Self::max_dir_entries).
    pub fn with_max_dir_entries(mut self, max_dir_entries: usize) -> Self {
        self.max_dir_entries = max_dir_entries;
        self
    }

    /// Sets [`max_bytes`](Self::max_bytes).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets [`read_batch`](Self::read_batch) (at least 1).
    pub fn with_read_batch(mut self, read_batch: usize) -> Self {
        self.read_batch = read_batch.max(1);
        self
    }
}

impl Default for DiscoveryLimits {
    fn default() -> Self {
        Self {
            max_skills: Self::DEFAULT_MAX_SKILLS,
            max_dir_entries: Self::DEFAULT_MAX_DIR_ENTRIES,
            max_bytes: Self::DEFAULT_MAX_BYTES,
            read_batch: Self::DEFAULT_READ_BATCH,
        }
    }
}

/// Keeps at most `limit` entries of `walk` per directory (the first ones in path order),
/// and leaves out everything below a left-out directory too; one `limit-exceeded`
/// diagnostic per directory that had more. A walk within the limit is left as it is.
pub(crate) fn cap_directories(walk: &mut Walk, limit: usize) -> Vec<Diagnostic> {
    // No directory can hold more entries than the whole walk: the common case costs nothing.
    if walk.entries.len() <= limit {
        return Vec::new();
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for entry in &walk.entries {
        *counts.entry(path::parent(&entry.path)).or_default() += 1;
    }
    let mut over: Vec<(&str, usize)> = counts.into_iter().filter(|&(_, n)| n > limit).collect();
    if over.is_empty() {
        return Vec::new();
    }
    over.sort_unstable();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    // Directories left out; an entry goes with them when one of its ancestors is here.
    let mut dropped: HashSet<&str> = HashSet::new();
    let mut keep = Vec::with_capacity(walk.entries.len());
    for entry in &walk.entries {
        let parent = path::parent(&entry.path);
        if ancestors(parent).any(|dir| dropped.contains(dir)) {
            keep.push(false);
            continue;
        }
        let n = seen.entry(parent).or_default();
        *n += 1;
        if *n > limit && entry.is_dir {
            dropped.insert(&entry.path);
        }
        keep.push(*n <= limit);
    }
    let diagnostics = over
        .into_iter()
        .map(|(dir, n)| {
            let msg = format!(
                "directory has {n} entries, over the limit of {limit} per directory; only the first {limit} \
                 in path order are used"
            );
            let cut = LimitCut {
                limit: Limit::MaxDirEntries,
                max: limit as u64,
                left_out: (n - limit) as u64,
            };
            Diagnostic::limit(dir, cut, msg)
        })
        .collect();
    let mut keep = keep.into_iter();
    walk.entries.retain(|_| keep.next().unwrap_or(false));
    diagnostics
}

/// `dir` and each directory above it, up to and including `/`.
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(dir), |&d| (d != "/").then(|| path::parent(d)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::FileInfo;

    fn entry(path: &str, is_dir: bool) -> FileInfo {
        if is_dir {
            FileInfo::directory(path.to_owned())
        } else {
            FileInfo {
                path: path.to_owned(),
                is_dir: false,
                size: 1,
                modified_at: None,
                etag: None,
                changed_at: None,
            }
        }
    }

    fn walk(entries: &[(&str, bool)]) -> Walk {
        let mut entries: Vec<FileInfo> = entries.iter().map(|&(p, d)| entry(p, d)).collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Walk {
            entries,
            ..Walk::default()
        }
    }

    fn kept(mut walk: Walk, limit: usize) -> (Vec<String>, Vec<String>) {
        let diagnostics = cap_directories(&mut walk, limit);
        (
            walk.entries.iter().map(|e| e.path.clone()).collect(),
            diagnostics.iter().map(|d| d.path.clone()).collect(),
        )
    }

    #[test]
    fn directories_within_the_limit_are_left_unchanged() {
        let w = walk(&[("/s/a", true), ("/s/a/SKILL.md", false), ("/s/b", true)]);
        let (entries, diagnostics) = kept(w.clone(), 2);
        assert_eq!(entries, ["/s/a", "/s/a/SKILL.md", "/s/b"]);
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn each_directory_keeps_its_first_entries_and_drops_what_lies_below_the_rest() {
        let w = walk(&[
            ("/s/a", true),
            ("/s/a/SKILL.md", false),
            ("/s/a/x", false),
            ("/s/a/y", false),
            ("/s/a-b", true),
            ("/s/b", true),
            ("/s/b/SKILL.md", false),
            ("/s/b/scripts", true),
            ("/s/b/scripts/run.sh", false),
        ]);
        let (entries, diagnostics) = kept(w, 2);
        assert_eq!(
            entries,
            ["/s/a", "/s/a-b", "/s/a/SKILL.md", "/s/a/x"],
            "/s/a keeps two of three, /s keeps a and a-b, and b's whole subtree goes"
        );
        assert_eq!(diagnostics, ["/s", "/s/a"]);
    }

    #[test]
    fn defaults_and_setters() {
        let limits = DiscoveryLimits::default();
        assert_eq!(limits.max_skills(), 200_000);
        assert_eq!(limits.max_dir_entries(), 250_000);
        assert_eq!(limits.max_bytes(), 4 << 30);
        assert_eq!(
            limits.with_read_batch(0).read_batch(),
            1,
            "a batch holds at least one file"
        );
        assert_eq!(limits.with_max_dir_entries(3).max_dir_entries(), 3);
    }
}

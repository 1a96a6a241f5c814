//! A source's whole listing kept between processes, under the list of its `SKILL.md`
//! files with their etags: a first discovery whose walk finds the very files the last
//! process listed decodes that listing in one pass, instead of looking up each file's
//! parse in the source's cache, decoding it, and listing the source again (duplicate
//! names, limits, diagnostics in path order). The per-file cache still serves every
//! start whose files changed, and every reload.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use skills_core::{BackendProtocol, Diagnostic, DiagnosticKind, SkillListing, SourceError, Walked};

use crate::cache_file::write_cache_file_with;
use crate::catalog::{SkillCatalog, SourceWork};
use crate::first_look::{FirstLook, KeptListing};
use crate::listing::Listing;
use crate::persist::prune;
use crate::source::SkillSource;

/// A kept listing whose encoding is longer than this (in bytes) has its diagnostics
/// decoded only once the walk's entries are let go of, when the catalog was given a
/// [memory release](SkillCatalog::with_memory_release): at 40,000 skills the walk's
/// entries (16 MB) and the listing's diagnostics (32 MB, more than its skills) held at
/// once put a start that took the listing above one that read every file.
const DIAGNOSTICS_AFTER_THE_WALK: u64 = 16 << 20;

/// Whether `backend` has nothing to say beside its files: not stale, nothing withheld.
/// Only then may a listing kept for its files be taken (it holds no such warning), or a
/// revision it names vouch for them.
pub(crate) fn says_only_its_files(backend: &dyn BackendProtocol) -> bool {
    backend.stale().is_none() && backend.withheld().is_empty()
}

/// Whether a listing says only what its files say: none of its diagnostics tells of a
/// read that failed, of the backend's state, of a lock, or of anything outside the
/// files the walk found. A skill read through a lowercase `skill.md` is the files'
/// word: which of the two names a folder has is in the walk, and so in the digest.
fn keepable(diagnostics: &[Diagnostic]) -> bool {
    !diagnostics.iter().any(|d| {
        matches!(
            d.kind,
            DiagnosticKind::ReadFailed
                | DiagnosticKind::ResourcesUnlisted
                | DiagnosticKind::LockMismatch
                | DiagnosticKind::KeptLastGood
                | DiagnosticKind::SourceStale
                | DiagnosticKind::Withheld
                | DiagnosticKind::DeeperSkills
                | DiagnosticKind::SourceIsASkill
                | DiagnosticKind::HiddenSkills
                | DiagnosticKind::SourceNotFound
                | DiagnosticKind::SourceNotADirectory
                | DiagnosticKind::SourceUnreadable
                | DiagnosticKind::ListingFailed
                | DiagnosticKind::NoSkills
        )
    })
}

impl SkillCatalog {
    /// The catalog with `release`, a function that hands the heap's free memory back to
    /// the system (glibc's `malloc_trim`, mimalloc's `mi_collect`), for a lower peak at
    /// some cost in time: a first start that takes a large kept listing decodes the
    /// listing's diagnostics only after the walk's entries are let go of and `release`
    /// ran, on a thread of the blocking pool (freed on other threads, the allocator might
    /// not hand them out again). At 40,000 skills, a peak 15 MB lower, as low as a start
    /// without the cache, for about 50 ms more (decision 111). Default: none, the
    /// diagnostics are decoded beside the walk; the allocator is the program's to tune,
    /// not the library's.
    pub fn with_memory_release(mut self, release: fn()) -> Self {
        self.release = Some(release);
        self
    }

    /// Starts reading the listing kept for `source` on the blocking pool, to be decoded
    /// while the sources are walked ([`read_walked`](Self::read_walked) takes it if the
    /// walk finds its files). `None` without a persistent cache, or when resources are
    /// listed at discovery (a kept listing has none).
    pub(crate) fn read_kept_listing(&self, source: &SkillSource) -> Option<KeptListing> {
        let persist = self.persistent_cache()?.clone();
        if self.discovers_resources() {
            return None;
        }
        let (source, limits, release) = (source.clone(), self.limits, self.release);
        let wanted = Arc::new(AtomicBool::new(true));
        let (tell, header) = tokio::sync::oneshot::channel();
        let (go, gate) = std::sync::mpsc::channel();
        let still = Arc::clone(&wanted);
        let listing = tokio::task::spawn_blocking(move || {
            let mut tell = Some(tell);
            let long = std::cell::Cell::new(false);
            let mut found = |header, len| {
                long.set(release.is_some() && len > DIAGNOSTICS_AFTER_THE_WALK);
                if let Some(tell) = tell.take() {
                    let _ = tell.send((header, long.get()));
                }
            };
            // The walk's entries go on this thread, and first (see `take`).
            let mut between = || {
                if !long.get() {
                    return true;
                }
                let Ok(files) = gate.recv() else { return false };
                drop(files);
                if let Some(release) = release {
                    release();
                }
                true
            };
            // Each skill goes behind its `Arc` here, beside the walk, not after it.
            persist
                .read_listing(&source, &limits, &still, &mut found, &mut between)
                .map(Listing::from)
        });
        Some(KeptListing {
            header: Some(header),
            heard: None,
            listing,
            wanted,
            go,
        })
    }

    /// What a first discovery with a persistent cache does before it reads anything:
    /// each source's kept listing starts being read, and each source is walked, unless
    /// its backend serves the very revision its listing was kept at. Per source, what
    /// was learned and the kept listing, for [`read_walked`](Self::read_walked).
    /// Without `listings`, only the listings of sources whose backend names a revision
    /// are read (to learn whether they can be taken without a walk): a caller that may
    /// need no listing at all ([`load_or_answer`](Self::load_or_answer)) starts the
    /// others itself when it does.
    pub(crate) async fn first_walks(&self, listings: bool) -> Vec<Option<(FirstLook<'_>, Option<KeptListing>)>> {
        let kept: Vec<_> = self
            .sources()
            .iter()
            .map(|s| {
                let wanted = listings || Self::vouching_revision(s).is_some();
                wanted.then(|| self.read_kept_listing(s)).flatten()
            })
            .collect();
        let mut walks = Vec::with_capacity(kept.len());
        for (source, mut kept) in self.sources().iter().zip(kept) {
            let unmoved = match (Self::vouching_revision(source), kept.as_mut()) {
                (Some(revision), Some(kept)) => kept.kept_at(&revision).await,
                _ => None,
            };
            let look = match unmoved {
                Some(digest) => FirstLook::Unmoved { digest },
                None => {
                    let (walked, revision) = self.walk_at_revision(source, self.nothing_kept(source)).await;
                    FirstLook::Walked { walked, revision }
                }
            };
            walks.push(Some((look, kept)));
        }
        walks
    }

    /// The revision of `source`'s backend that vouches for a listing kept at it: one it
    /// names ([`revision`](skills_core::BackendProtocol::revision): a git commit), when
    /// it [says only what its files say](says_only_its_files).
    fn vouching_revision(source: &SkillSource) -> Option<String> {
        let backend = source.backend();
        says_only_its_files(&**backend).then(|| backend.revision()).flatten()
    }

    /// Whether the persistent cache keeps nothing of `source` (neither parses nor a
    /// listing): its first discovery reads every file, so its walk reads them as it
    /// finds them ([`Discovery::read_ahead`](skills_core::Discovery::read_ahead)).
    fn nothing_kept(&self, source: &SkillSource) -> bool {
        self.persistent_cache()
            .is_none_or(|persist| persist.holds_nothing_for(source, &self.limits))
    }

    /// Walks `source`, with the revision its backend vouched for both before and after
    /// the walk (`None` when it moved meanwhile: the files walked may be either's);
    /// reading each file as it is found when `read_ahead`.
    async fn walk_at_revision<'s>(
        &self,
        source: &'s SkillSource,
        read_ahead: bool,
    ) -> (Result<Walked<'s>, SourceError>, Option<String>) {
        let before = Self::vouching_revision(source);
        let walked = self.discovery(source).read_ahead(read_ahead).walk().await;
        let revision = before.filter(|r| Self::vouching_revision(source).as_ref() == Some(r));
        (walked, revision)
    }

    /// The listing of `source` from what its first discovery learned (`look`): the kept
    /// listing `kept` when it was kept for the files walked, or at the revision the
    /// backend still serves; else read through the source's parse cache (and kept once
    /// published: [`keep_listing`](Self::keep_listing)).
    pub(crate) async fn read_walked(
        &self,
        source: &SkillSource,
        look: FirstLook<'_>,
        kept: Option<KeptListing>,
        state: &mut SourceWork,
    ) -> Result<Listing, SourceError> {
        // A backend with more to say than its files (it went stale since) has its say.
        let kept = kept.filter(|_| says_only_its_files(&**source.backend()));
        let Some(persist) = self.persistent_cache() else {
            let walked = match look {
                FirstLook::Walked { walked, .. } => walked?,
                FirstLook::Unmoved { .. } => self.discovery(source).walk().await?,
            };
            return walked.cache(&mut state.cache).read().await.map(Listing::from);
        };
        let (mut walked, file, listing) = match (look, kept) {
            (FirstLook::Unmoved { digest }, Some(kept)) => {
                (None, None, kept.take(Vec::new()).await.map(|l| (l, digest)))
            }
            (FirstLook::Unmoved { .. }, None) => (None, None, None),
            (FirstLook::Walked { walked, revision }, kept) => {
                let walked = walked?;
                let file = kept
                    .is_some()
                    .then(|| {
                        persist.listing_file(source, &self.limits, &walked, SystemTime::now(), revision.as_deref())
                    })
                    .flatten();
                let mut walked = Some(walked);
                let listing = match (kept, &file) {
                    (Some(mut kept), Some(file)) => match kept.kept_for(file.digest).await {
                        // Let go of before a long listing's diagnostics come; walked
                        // again in the rare case that the listing then fails to decode.
                        Some(true) => {
                            let files = walked.take().map(Walked::into_skill_files).unwrap_or_default();
                            kept.take(files).await.map(|l| (l, file.digest))
                        }
                        Some(false) => kept.take(Vec::new()).await.map(|l| (l, file.digest)),
                        None => None,
                    },
                    _ => None,
                };
                (walked, file, listing)
            }
        };
        if let Some((listing, digest)) = listing {
            // The parses stay in their file until a reload or the search's words need
            // them: a command that only lists never reads them.
            state.parses_unloaded = true;
            state.files_digest = Some(digest);
            // The walk's entries are freed beside the rest of the discovery.
            if let Some(walked) = walked.take() {
                let files = walked.into_skill_files();
                tokio::task::spawn_blocking(move || drop(files));
            }
            return Ok(listing);
        }
        // Walked (again): what is kept now stands for the files of this walk.
        let (walked, file) = match walked {
            Some(walked) => (walked, file),
            None => {
                let (walked, revision) = self.walk_at_revision(source, false).await;
                let walked = walked?;
                let file = persist.listing_file(source, &self.limits, &walked, SystemTime::now(), revision.as_deref());
                (walked, file)
            }
        };
        state.cache = persist.load_now(source, self.limits).await.with_change_tracking();
        state.keep_listing = file;
        self.spill_parses(source, state, walked.skill_files().len());
        walked.cache(&mut state.cache).read().await.map(Listing::from)
    }

    /// Loads the parse cache of each source whose first discovery took a kept listing
    /// and left it in its file (a reload reads only what changed against it, and the
    /// search index takes its words from it). A cache file damaged or pruned since the
    /// listing was kept costs the next reload a read of each file it lacks.
    pub(crate) async fn load_parses(&self, work: &mut [SourceWork]) {
        let Some(persist) = self.persistent_cache() else { return };
        for (source, state) in self.sources().iter().zip(work.iter_mut()) {
            if std::mem::take(&mut state.parses_unloaded) {
                state.cache = persist.load_now(source, self.limits).await.with_change_tracking();
            }
        }
    }

    /// Writes the listing a first discovery read for `state`'s source when it says only
    /// what its files say, before the snapshot is built: the listing moves to the blocking
    /// pool and back (it is not copied: a large library's diagnostics alone take tens of
    /// MiB), and the file is streamed. A failure costs the next start its shortcut only.
    pub(crate) async fn keep_listing(&self, state: &mut SourceWork) {
        let (Some(kept), Some(persist)) = (state.keep_listing.take(), self.persistent_cache()) else {
            return;
        };
        let Some(last) = state
            .last
            .take_if(|last| last.folders > 0 && keepable(&last.diagnostics))
        else {
            return;
        };
        let dir = persist.dir().to_owned();
        let write = move || {
            let produce = |sink: &mut dyn FnMut(&[u8])| {
                SkillListing::write_bytes::<Arc<_>>(last.folders, &last.skills, &last.diagnostics, sink);
            };
            // The listing comes back whatever the write does.
            let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                write_cache_file_with(&kept.file, &kept.key, &produce)
            }));
            if matches!(written, Ok(Ok(()))) {
                prune(&dir, &kept.file);
            }
            last
        };
        // The listing says only what the files say: the files' digest stands for it.
        state.files_digest = Some(kept.digest);
        if let Ok(last) = tokio::task::spawn_blocking(write).await {
            state.last = Some(last);
        }
    }
}

#[cfg(test)]
mod tests {
    use skills_core::{Diagnostic, DiagnosticKind};

    use super::keepable;

    #[test]
    fn only_what_the_files_say_is_kept() {
        let said = |kind| {
            vec![
                Diagnostic::new("/s/a/SKILL.md", DiagnosticKind::NameMismatch, "m"),
                Diagnostic::new("/s/b/SKILL.md", kind, "m"),
            ]
        };
        for kind in [
            DiagnosticKind::InvalidYaml,
            DiagnosticKind::DuplicateName,
            DiagnosticKind::LimitExceeded,
            DiagnosticKind::LowercaseSkillFile,
        ] {
            assert!(keepable(&said(kind)), "{kind:?}");
        }
        // A read that failed may not fail next time; a stale or withheld listing, a
        // lock, a last good version: none of it is the files'.
        for kind in [
            DiagnosticKind::ReadFailed,
            DiagnosticKind::SourceStale,
            DiagnosticKind::Withheld,
            DiagnosticKind::LockMismatch,
            DiagnosticKind::KeptLastGood,
        ] {
            assert!(!keepable(&said(kind)), "{kind:?}");
        }
    }
}

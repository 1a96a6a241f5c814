//! What a first discovery with a persistent cache learns of a source before it reads
//! anything ([`FirstLook`]), and the source's kept listing being read meanwhile
//! ([`KeptListing`]); `kept_listing.rs` makes them, and the catalog and a kept answer
//! take them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use skills_core::{FileInfo, SourceError, Walked};
use tokio::task::JoinHandle;

use crate::kept_header::KeptHeader;
use crate::listing::Listing;

/// A kept listing being read on the blocking pool: the digest of the files it was kept
/// for and its length as soon as its header is read, then the listing. Dropped, it stops
/// the read.
pub(crate) struct KeptListing {
    /// What the listing says of itself (the digest of the files it was kept for, the
    /// revision they were walked at), and whether its diagnostics wait for the walk's
    /// entries to go: to be heard once.
    pub(crate) header: Option<tokio::sync::oneshot::Receiver<(KeptHeader, bool)>>,
    /// The header once heard; `None` as well when the listing had none to tell.
    pub(crate) heard: Option<(KeptHeader, bool)>,
    pub(crate) listing: JoinHandle<Option<Listing>>,
    pub(crate) wanted: Arc<AtomicBool>,
    /// Given the walk's entries when a long listing's diagnostics may be decoded (the
    /// reading thread lets go of them first); dropped, the read stops there.
    pub(crate) go: std::sync::mpsc::Sender<Vec<FileInfo>>,
}

impl Drop for KeptListing {
    fn drop(&mut self) {
        self.wanted.store(false, Ordering::Relaxed);
    }
}

impl KeptListing {
    /// The listing's header and whether its diagnostics wait for the walk's entries to
    /// go, waited for the first time it is asked for.
    async fn header(&mut self) -> Option<&(KeptHeader, bool)> {
        if let Some(header) = self.header.take() {
            self.heard = header.await.ok();
        }
        self.heard.as_ref()
    }

    /// Whether the listing was kept for the files of `digest`, and if so whether its
    /// diagnostics wait for the walk's entries to go (see `DIAGNOSTICS_AFTER_THE_WALK` in `kept_listing.rs`).
    pub(crate) async fn kept_for(&mut self, digest: u128) -> Option<bool> {
        let (kept, after_the_walk) = self.header().await?;
        (kept.digest == digest).then_some(*after_the_walk)
    }

    /// The digest of the files the listing was kept for, when they were walked at
    /// `revision` of the source's backend: the listing then holds for the source as it
    /// is, without a walk.
    pub(crate) async fn kept_at(&mut self, revision: &str) -> Option<u128> {
        let (kept, _) = self.header().await?;
        (kept.revision.as_deref() == Some(revision)).then_some(kept.digest)
    }

    /// The listing, once [`kept_for`](Self::kept_for) said it is the files': its
    /// decoding is waited for only then (a start after a change does not wait for a
    /// listing it cannot take). `files`, the walk's entries, are let go of on the
    /// thread that reads it, before a long listing's diagnostics.
    pub(crate) async fn take(mut self, files: Vec<FileInfo>) -> Option<Listing> {
        let _ = self.go.send(files);
        (&mut self.listing).await.ok().flatten()
    }
}

/// What a first discovery with a persistent cache learned of a source before reading it.
#[allow(clippy::large_enum_variant)] // One per source, once per catalog.
pub(crate) enum FirstLook<'a> {
    /// The source was walked; `revision` is the one its backend vouched for both before
    /// and after the walk (see [`SkillCatalog::walk_at_revision`]).
    Walked {
        walked: Result<Walked<'a>, SourceError>,
        revision: Option<String>,
    },
    /// The source's backend serves the very revision its kept listing was walked at, so
    /// it was not walked; `digest` is that of the listing's files.
    Unmoved { digest: u128 },
}

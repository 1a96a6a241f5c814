//! Reading files: one contained open (`openat2` beneath the root where the kernel can
//! decide), the size and hard-link checks, one bounded read.

use std::fs::{File, Metadata};
use std::io::Read;

use skills_core::{BackendError, FileDownloadResponse, FileErrorKind, path};

use crate::resolve::{self, RootDir, map_io_error, open_contained_file};
use crate::{HardLinks, Inner};

impl Inner {
    /// Opens a normalized path for reading, contained in the root: one `openat2` when
    /// the kernel can decide, else resolution by hand.
    fn open_file(&self, normalized: &str, root: Option<&RootDir>) -> Result<(File, Metadata), BackendError> {
        let host = self.host_path(normalized)?;
        #[cfg(target_os = "linux")]
        if let Some(rel) = host
            .strip_prefix(&self.root)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
        {
            if let Some(opened) = resolve::open_beneath(root, rel, normalized) {
                return opened;
            }
        }
        let resolved = resolve::contained(&self.root, &host, normalized)?;
        open_contained_file(&resolved, normalized)
    }

    pub(crate) fn download(&self, asked: &str, root: Option<&RootDir>) -> FileDownloadResponse {
        let fail = |e: BackendError| {
            let kind = match e {
                BackendError::NotADirectory { .. } => FileErrorKind::FileNotFound,
                ref e => e.file_error_kind(),
            };
            FileDownloadResponse::err(asked, kind, e.to_string())
        };
        let normalized = match path::normalize(asked) {
            Ok(normalized) => normalized,
            Err(e) => return fail(e),
        };
        let opened = match self.open_file(&normalized, root) {
            Ok(opened) => opened,
            Err(e) => return fail(e),
        };
        let (file, meta) = opened;
        if meta.is_dir() {
            return FileDownloadResponse::err(asked, FileErrorKind::IsDirectory, "is a directory");
        }
        if !meta.is_file() {
            return FileDownloadResponse::err(asked, FileErrorKind::Other, "not a regular file");
        }
        let links = hard_links(&meta);
        if links > 1 {
            let refused = match self.hard_links {
                HardLinks::Allow => None,
                HardLinks::Refuse => Some("the hard-link policy is `refuse`"),
                HardLinks::SameOwner => (self.root_owner.is_none() || owner_of(&meta) != self.root_owner)
                    .then_some("it belongs to another user than the skills folder"),
            };
            if let Some(why) = refused {
                let msg = format!(
                    "{normalized} has {links} hard links and may be a file from outside the skills folder; \
                     not read: {why} (hard-link policy: same-owner, refuse or allow)"
                );
                return FileDownloadResponse::err(asked, FileErrorKind::InvalidPath, msg);
            }
        }
        let limit = self.max_file_size;
        let too_large = |size: u64| {
            FileDownloadResponse::err(
                asked,
                FileErrorKind::TooLarge,
                format!("{size} bytes, over the {limit}-byte limit"),
            )
        };
        if meta.len() > limit {
            return too_large(meta.len());
        }
        // The length the file had when it was opened (at most the limit): a file that
        // grows meanwhile is read as it was, and an unchanged one costs a single read,
        // where reading to the end would take a second to see the end.
        let mut content = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        match file.take(meta.len()).read_to_end(&mut content) {
            Ok(_) => FileDownloadResponse::ok(asked, content),
            Err(e) => fail(map_io_error(e, &normalized)),
        }
    }
}

#[cfg(unix)]
fn owner_of(meta: &Metadata) -> Option<u32> {
    Some(std::os::unix::fs::MetadataExt::uid(meta))
}

#[cfg(not(unix))]
fn owner_of(_meta: &Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn hard_links(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn hard_links(_meta: &Metadata) -> u64 {
    1
}

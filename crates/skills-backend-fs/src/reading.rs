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
        #[cfg(target_os = "linux")]
        if let Some(rel) = self.below_root(normalized) {
            if let Some(opened) = resolve::open_beneath(root, std::path::Path::new(rel), normalized) {
                return opened;
            }
        }
        // The root itself, a path outside it (refused here), or a platform or folder
        // the kernel cannot decide for.
        let host = self.host_path(normalized)?;
        let resolved = resolve::contained(&self.root, &host, normalized)?;
        open_contained_file(&resolved, normalized)
    }

    /// The path below the root of the backend path `normalized`: what is left of its host
    /// path once the root is taken off, found without building the host path or taking
    /// either apart into components (every read passes here); `None` for the root itself
    /// and for a path [`host_path`] refuses (outside the root).
    ///
    /// [`host_path`]: Inner::host_path
    fn below_root<'a>(&self, normalized: &'a str) -> Option<&'a str> {
        let rel = match (&self.root_str, self.virtual_mode) {
            // The backend path is the host path, and must lie within the root.
            (Some(root), false) => {
                if !path::is_within(normalized, root) {
                    return None;
                }
                normalized.strip_prefix(root.as_str())?
            }
            // The host path is the root joined with the backend path.
            _ => normalized,
        };
        Some(rel.trim_start_matches('/')).filter(|rel| !rel.is_empty())
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

#[cfg(test)]
mod tests {
    use crate::FilesystemBackend;

    #[test]
    fn below_root_is_what_the_host_path_leaves_once_the_root_is_taken_off() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("skills");
        std::fs::create_dir(&nested).unwrap();
        for (root, virtual_mode) in [
            (dir.path(), true),
            (nested.as_path(), false),
            (std::path::Path::new("/"), false),
        ] {
            let backend = FilesystemBackend::new(root)
                .unwrap()
                .with_virtual_mode(virtual_mode)
                .unwrap();
            let inner = &backend.inner;
            let prefix = if virtual_mode {
                String::new()
            } else {
                inner.root_str.clone().unwrap().trim_end_matches('/').to_owned()
            };
            let mut paths: Vec<String> = ["", "/a", "/a/SKILL.md", "/caf\u{e9}/b c/SKILL.md", "/a.b/..c"]
                .iter()
                .map(|p| format!("{prefix}{p}"))
                .collect();
            paths.push("/".to_owned());
            // A sibling of the root whose name starts with the root's: outside it.
            paths.push(format!("{prefix}x/a"));
            for asked in paths.iter().filter(|p| p.starts_with('/')) {
                let Ok(host) = inner.host_path(asked) else {
                    // Refused (outside the root): not opened below it either.
                    assert_eq!(inner.below_root(asked), None, "{asked} under {root:?}");
                    continue;
                };
                let expected = host
                    .strip_prefix(&inner.root)
                    .ok()
                    .filter(|rel| !rel.as_os_str().is_empty())
                    .map(|rel| rel.to_str().unwrap().to_owned());
                assert_eq!(
                    inner.below_root(asked).map(str::to_owned),
                    expected,
                    "{asked} under {root:?}"
                );
            }
        }
    }
}

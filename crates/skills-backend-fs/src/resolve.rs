//! Containment: resolving host paths and opening files without leaving the root.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use skills_core::BackendError;

/// Resolves `host` (following every link) and checks that it lies under `root`, which
/// is itself resolved. `path` is the backend path, for errors.
///
/// A path that does not resolve (a missing file) is `InvalidPath` when its deepest
/// existing ancestor already lies outside the root, and `NotFound` only inside it: the
/// answer never tells whether a file exists outside the root.
pub(crate) fn contained(root: &Path, host: &Path, path: &str) -> Result<PathBuf, BackendError> {
    let outside = || BackendError::invalid_path(path, "a symbolic link leads outside the root directory");
    let resolved = match std::fs::canonicalize(host) {
        Ok(resolved) => resolved,
        Err(error) => {
            let escapes = host
                .ancestors()
                .skip(1)
                .find_map(|ancestor| std::fs::canonicalize(ancestor).ok())
                .is_some_and(|ancestor| !ancestor.starts_with(root));
            return Err(if escapes { outside() } else { map_io_error(error, path) });
        }
    };
    if !resolved.starts_with(root) {
        return Err(outside());
    }
    Ok(resolved)
}

/// Opens a resolved path for reading without following a final link and without
/// blocking on a FIFO, and returns it with its metadata.
pub(crate) fn open_contained_file(resolved: &Path, path: &str) -> Result<(File, Metadata), BackendError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(resolved).map_err(|e| map_io_error(e, path))?;
    let meta = file.metadata().map_err(|e| map_io_error(e, path))?;
    Ok((file, meta))
}

/// The root directory held open for a batch of reads (`None` where the platform has no
/// `openat2`).
#[derive(Debug)]
pub(crate) struct RootDir(#[cfg(target_os = "linux")] std::os::fd::OwnedFd);

impl RootDir {
    /// Opens the resolved root; `None` if it cannot be opened (reads then resolve paths
    /// by hand and report the error themselves).
    pub(crate) fn open(root: &Path) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            rustix::fs::open(root, flags, Mode::empty()).ok().map(Self)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = root;
            None
        }
    }
}

/// `rel` (relative to the resolved root `dir`) opened with `flags` by one
/// `openat2(RESOLVE_BENEATH)`, which the kernel keeps beneath the root while following
/// links, instead of resolving every component first (about eight `readlink` calls per
/// path). `None` when it cannot decide and the caller must resolve the path itself: a
/// kernel without `openat2` (before 5.6), a link the kernel will not follow beneath the
/// root (an absolute one, or one leading out: the slow path refuses those with the
/// usual message), or a final component that is a link under `O_NOFOLLOW`.
#[cfg(target_os = "linux")]
fn openat2_beneath(
    dir: &RootDir,
    rel: &Path,
    flags: rustix::fs::OFlags,
    path: &str,
) -> Option<Result<std::os::fd::OwnedFd, BackendError>> {
    use rustix::fs::{Mode, ResolveFlags};
    use rustix::io::Errno;

    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(&dir.0, rel, flags | rustix::fs::OFlags::CLOEXEC, Mode::empty(), resolve) {
        Ok(fd) => Some(Ok(fd)),
        Err(Errno::NOSYS | Errno::XDEV | Errno::LOOP | Errno::AGAIN | Errno::PERM) => None,
        Err(errno) => Some(Err(map_io_error(io::Error::from(errno), path))),
    }
}

/// The fast path of a read ([`openat2_beneath`]): the file, not following a final link
/// and without blocking on a FIFO, with its metadata.
#[cfg(target_os = "linux")]
pub(crate) fn open_beneath(
    root: Option<&RootDir>,
    rel: &Path,
    path: &str,
) -> Option<Result<(File, Metadata), BackendError>> {
    use rustix::fs::OFlags;

    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK;
    Some(openat2_beneath(root?, rel, flags, path)?.and_then(|fd| {
        let file = File::from(fd);
        let meta = file.metadata().map_err(|e| map_io_error(e, path))?;
        Ok((file, meta))
    }))
}

/// The fast path of resolving a directory to list ([`openat2_beneath`]): whether `rel`
/// is a directory beneath the resolved `root` (a walk of thousands of skill folders
/// resolved by hand made tens of thousands of `readlink` calls).
#[cfg(target_os = "linux")]
pub(crate) fn dir_beneath(root: &Path, rel: &Path, path: &str) -> Option<Result<(), BackendError>> {
    use rustix::fs::OFlags;

    let dir = RootDir::open(root)?;
    Some(openat2_beneath(&dir, rel, OFlags::PATH | OFlags::DIRECTORY, path)?.map(drop))
}

/// Maps an I/O error on `path` to the backend error kinds.
pub(crate) fn map_io_error(error: io::Error, path: &str) -> BackendError {
    let path = path.to_owned();
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        // A loop, or (with O_NOFOLLOW) a link swapped in after the path was resolved.
        return BackendError::InvalidPath {
            path,
            reason: "too many levels of symbolic links".into(),
        };
    }
    match error.kind() {
        io::ErrorKind::NotFound => BackendError::NotFound { path },
        io::ErrorKind::PermissionDenied => BackendError::PermissionDenied { path },
        io::ErrorKind::NotADirectory => BackendError::NotADirectory { path },
        _ => BackendError::Other {
            path,
            message: error.to_string(),
        },
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// What the fast path decides for `rel`: opened (`Some(Ok)`), refused (`Some(Err)`),
    /// or left to hand resolution (`None`).
    fn decide(root: &Path, rel: &str) -> Option<Result<(), BackendError>> {
        let dir = RootDir::open(root).expect("the root opens");
        open_beneath(Some(&dir), Path::new(rel), rel).map(|r| r.map(|_| ()))
    }

    #[test]
    fn the_fast_path_opens_plain_and_inward_paths_and_defers_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("skills/web")).unwrap();
        std::fs::create_dir_all(root.join("shared")).unwrap();
        std::fs::write(root.join("skills/web/SKILL.md"), "x").unwrap();
        std::fs::write(root.join("shared/guide.md"), "x").unwrap();
        std::fs::write(tmp.path().join("secret"), "x").unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        symlink("../../shared", root.join("skills/web/refs")).unwrap();
        symlink(root.join("shared"), root.join("skills/web/absolute")).unwrap();
        symlink("../../../secret", root.join("skills/web/out")).unwrap();
        symlink("../../shared/guide.md", root.join("skills/web/guide.md")).unwrap();

        assert!(matches!(decide(&root, "skills/web/SKILL.md"), Some(Ok(()))));
        assert!(
            matches!(decide(&root, "skills/web/refs/guide.md"), Some(Ok(()))),
            "a relative link inward"
        );
        assert!(matches!(
            decide(&root, "skills/web/missing.md"),
            Some(Err(BackendError::NotFound { .. }))
        ));
        // Left to hand resolution, which has the last word on each.
        assert!(
            decide(&root, "skills/web/absolute/guide.md").is_none(),
            "an absolute link"
        );
        assert!(decide(&root, "skills/web/out").is_none(), "a link leading out");
        assert!(decide(&root, "skills/web/guide.md").is_none(), "a final link");

        // Directories to list, the same way.
        let dir = |rel: &str| dir_beneath(&root, Path::new(rel), rel);
        assert!(matches!(dir("skills/web"), Some(Ok(()))));
        assert!(matches!(dir("skills/web/refs"), Some(Ok(()))), "a relative link inward");
        assert!(matches!(
            dir("skills/web/SKILL.md"),
            Some(Err(BackendError::NotADirectory { .. }))
        ));
        assert!(matches!(dir("skills/nope"), Some(Err(BackendError::NotFound { .. }))));
        assert!(dir("skills/web/absolute").is_none(), "an absolute link");
        std::fs::create_dir(tmp.path().join("outside")).unwrap();
        symlink("../../../outside", root.join("skills/web/away")).unwrap();
        assert!(dir("skills/web/away").is_none(), "a link leading out");
    }
}

//! Containment: resolving host paths and opening files without leaving the root.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use skills_core::BackendError;

/// Resolves `host` (following every link) and checks that it lies under `root`, which
/// is itself resolved. `path` is the backend path, for errors.
pub(crate) fn contained(root: &Path, host: &Path, path: &str) -> Result<PathBuf, BackendError> {
    let resolved = std::fs::canonicalize(host).map_err(|e| map_io_error(e, path))?;
    if !resolved.starts_with(root) {
        return Err(BackendError::invalid_path(
            path,
            "a symbolic link leads outside the root directory",
        ));
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

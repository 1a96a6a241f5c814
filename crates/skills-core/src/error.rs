//! The error type of backend operations.

use crate::file::FileErrorKind;

/// Why a backend operation on a path failed.
///
/// Backends map their own failures into these kinds; the message of [`Other`] carries
/// the backend's explanation (never credentials).
///
/// [`Other`]: BackendError::Other
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// Nothing exists at the path.
    #[error("not found: {path}")]
    NotFound {
        /// The path asked for.
        path: String,
    },
    /// The path is a file where a directory was expected.
    #[error("not a directory: {path}")]
    NotADirectory {
        /// The path asked for.
        path: String,
    },
    /// The backend may not read the path.
    #[error("permission denied: {path}")]
    PermissionDenied {
        /// The path asked for.
        path: String,
    },
    /// The path is malformed or leads outside the backend's root.
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The path asked for.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other failure (I/O, network, a corrupt repository).
    #[error("{path}: {message}")]
    Other {
        /// The path asked for.
        path: String,
        /// The backend's explanation.
        message: String,
    },
}

impl BackendError {
    /// An [`InvalidPath`](Self::InvalidPath) error.
    pub fn invalid_path(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidPath {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &str {
        match self {
            Self::NotFound { path }
            | Self::NotADirectory { path }
            | Self::PermissionDenied { path }
            | Self::InvalidPath { path, .. }
            | Self::Other { path, .. } => path,
        }
    }

    /// The matching per-file download error kind.
    pub fn file_error_kind(&self) -> FileErrorKind {
        match self {
            Self::NotFound { .. } => FileErrorKind::FileNotFound,
            Self::NotADirectory { .. } | Self::Other { .. } => FileErrorKind::Other,
            Self::PermissionDenied { .. } => FileErrorKind::PermissionDenied,
            Self::InvalidPath { .. } => FileErrorKind::InvalidPath,
        }
    }
}

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

/// The message of `error` for people, with its innermost cause when the message does not
/// already say it: the errors of HTTP clients say what they tried ("error sending
/// request for url ...") and keep why it failed ("Connection refused", "failed to lookup
/// address information") in their chain of sources, which `to_string` leaves out.
///
/// ```
/// use std::io::{Error, ErrorKind};
///
/// #[derive(Debug)]
/// struct Sending(Error);
/// impl std::fmt::Display for Sending {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("error sending request")
///     }
/// }
/// impl std::error::Error for Sending {
///     fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
///         Some(&self.0)
///     }
/// }
///
/// let refused = Sending(Error::new(ErrorKind::ConnectionRefused, "Connection refused"));
/// assert_eq!(skills_core::with_cause(&refused), "error sending request: Connection refused");
/// // Nothing behind it: the message alone.
/// assert_eq!(skills_core::with_cause(&refused.0), "Connection refused");
/// ```
pub fn with_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let message = error.to_string();
    let Some(mut cause) = error.source() else {
        return message;
    };
    while let Some(deeper) = cause.source() {
        cause = deeper;
    }
    let cause = cause.to_string();
    if message.contains(&cause) {
        message
    } else {
        format!("{message}: {cause}")
    }
}

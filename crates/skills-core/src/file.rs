//! What a backend answers: listing entries, downloads and per-file errors (deepagents'
//! `FileInfo`, `FileDownloadResponse` and `FileOperationError`).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// The default size limit of a file a backend will read: 10 MiB, as in deepagents.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// One entry of a backend listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    /// Backend path of the entry.
    pub path: String,
    /// Whether the entry is a directory.
    pub is_dir: bool,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Last modification time, when the backend knows it.
    pub modified_at: Option<SystemTime>,
    /// A fingerprint of the content (S3 ETag, git blob id, size + mtime + ctime + inode
    /// on disk): equal fingerprints mean the file need not be read again.
    pub etag: Option<String>,
    /// When the file or its metadata last changed by the clock its `etag` is made of
    /// (the later of mtime and ctime on disk); set only by backends whose etag is made
    /// of timestamps. A cache kept between processes trusts an entry only when this lies
    /// further in the past than the timestamps' granularity, as git treats a "racy"
    /// index entry: an edit within the same tick would keep the etag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_at: Option<SystemTime>,
}

impl FileInfo {
    /// A directory's entry: no size, time or fingerprint (listings need none of them for
    /// a directory).
    pub fn directory(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            is_dir: true,
            size: 0,
            modified_at: None,
            etag: None,
            changed_at: None,
        }
    }
}

/// The answer for one path of [`download_files`](crate::BackendProtocol::download_files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDownloadResponse {
    /// The path as it was asked for.
    pub path: String,
    /// The file's bytes, when it could be read.
    pub content: Option<Vec<u8>>,
    /// Why it could not be read.
    pub error: Option<FileError>,
}

impl FileDownloadResponse {
    /// A successful answer.
    pub fn ok(path: impl Into<String>, content: Vec<u8>) -> Self {
        Self {
            path: path.into(),
            content: Some(content),
            error: None,
        }
    }

    /// A failed answer.
    pub fn err(path: impl Into<String>, kind: FileErrorKind, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            content: None,
            error: Some(FileError {
                kind,
                message: message.into(),
            }),
        }
    }

    /// The content, or why there is none (an answer with neither is an `Other` error).
    pub fn into_result(self) -> Result<Vec<u8>, FileError> {
        match (self.content, self.error) {
            (Some(content), None) => Ok(content),
            (_, error) => Err(error.unwrap_or_else(FileError::no_content)),
        }
    }

    /// [`into_result`](Self::into_result), borrowing the content.
    pub fn content(&self) -> Result<&[u8], FileError> {
        match (&self.content, &self.error) {
            (Some(content), None) => Ok(content),
            (_, error) => Err(error.clone().unwrap_or_else(FileError::no_content)),
        }
    }
}

/// Why one file could not be downloaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileError {
    /// The kind callers match on.
    pub kind: FileErrorKind,
    /// The backend's own explanation.
    pub message: String,
}

impl FileError {
    /// The error of an answer that has neither content nor an error.
    fn no_content() -> Self {
        Self {
            kind: FileErrorKind::Other,
            message: "the backend returned no content".into(),
        }
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// The kinds of per-file download errors (deepagents' `FileOperationError` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileErrorKind {
    /// Nothing exists at the path.
    FileNotFound,
    /// The backend may not read the path.
    PermissionDenied,
    /// The path is a directory.
    IsDirectory,
    /// The path is malformed or leads outside the backend's root.
    InvalidPath,
    /// The file is larger than the backend's size limit; it was not read.
    TooLarge,
    /// Any other failure (I/O, network); the message says what.
    Other,
}

impl FileErrorKind {
    /// The snake_case name (`file_not_found`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FileNotFound => "file_not_found",
            Self::PermissionDenied => "permission_denied",
            Self::IsDirectory => "is_directory",
            Self::InvalidPath => "invalid_path",
            Self::TooLarge => "too_large",
            Self::Other => "other",
        }
    }
}

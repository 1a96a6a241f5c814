//! `SKILL.md` files read through a backend and parsed: what
//! [`BackendProtocol::read_skill_files`](crate::BackendProtocol::read_skill_files)
//! answers, and the parse over the cores its provided implementation uses.

use crate::file::{FileDownloadResponse, FileError, FileErrorKind};
use crate::parse::{ParseOutcome, parse_skill_md};
use crate::path;

/// One `SKILL.md` of [`BackendProtocol::read_skill_files`](crate::BackendProtocol::read_skill_files):
/// what parsing it gave, or why it could not be read.
pub type SkillFileRead = Result<ParseOutcome, FileError>;

/// Parses the `SKILL.md` at backend path `path`: [`parse_skill_md`] with the name of the
/// folder that holds it.
///
/// ```
/// let outcome = skills_core::parse_skill_file("/lib/web/SKILL.md", b"---\nname: web\ndescription: Browse\n---\n");
/// assert_eq!(outcome.skill.unwrap().name, "web");
/// assert!(outcome.diagnostics.is_empty(), "the name matches its folder");
/// ```
pub fn parse_skill_file(path: &str, content: &[u8]) -> ParseOutcome {
    parse_skill_md(content, path, path::file_name(path::parent(path)))
}

/// One answer per download: the parsed file or the download's error.
pub fn parse_download(response: &FileDownloadResponse) -> SkillFileRead {
    response
        .content()
        .map(|content| parse_skill_file(&response.path, content))
}

/// Fewest files worth handing to another thread.
const PARALLEL_PARSE_MIN: usize = 32;

/// Parses downloaded `SKILL.md` files split over the cores (once the files are in
/// memory, parsing, mostly YAML, is the larger part of discovery): one answer per
/// response, in order. The files of a thread that did not finish answer an error.
pub(crate) async fn parse_downloads(responses: Vec<FileDownloadResponse>) -> Vec<SkillFileRead> {
    let cores = crate::blocking::cores();
    let parse = |share: &[FileDownloadResponse]| share.iter().map(parse_download).collect();
    let unfinished = |_: &FileDownloadResponse, why: &str| {
        Err(FileError {
            kind: FileErrorKind::Other,
            message: format!("the thread parsing this file did not finish: {why}"),
        })
    };
    crate::blocking::run_in_shares(responses, cores, PARALLEL_PARSE_MIN, parse, unfinished).await
}

/// `SKILL.md` files a walk read and parsed as it found them
/// ([`BackendProtocol::child_files_read`](crate::BackendProtocol::child_files_read)),
/// by backend path: discovery takes each parse instead of reading the file again. Only
/// files read whole and parsed are here; a file the walk did not read (a link, a file
/// with other hard links, one over the size limit, one it could not read) is read the
/// usual way, which says why it cannot be.
#[derive(Debug, Default)]
pub struct ReadAhead {
    /// Sorted by path; a parse taken leaves `None`.
    files: Vec<(String, Option<Vec<u8>>)>,
    /// Where the next path asked is looked for first: discovery asks in path order.
    next: usize,
}

/// One `SKILL.md` a walk read and parsed, for a [`ReadAhead`]: its parse is held encoded
/// as the parse cache keeps it, a third of the memory of the parse itself, and the
/// parse cache takes it as it is.
#[derive(Debug)]
pub struct ReadAheadFile {
    path: String,
    encoded: Vec<u8>,
}

impl ReadAheadFile {
    /// The backend path of the file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// How many bytes its parse takes, encoded.
    pub fn encoded_len(&self) -> usize {
        self.encoded.len()
    }

    /// Parses `content`, the `SKILL.md` at backend path `path`
    /// ([`parse_skill_file`]).
    pub fn parse(path: String, content: &[u8]) -> Self {
        let outcome = parse_skill_file(&path, content);
        // Encoded into a buffer this thread reuses, then copied at its exact size.
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let encoded = SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            crate::cache_codec::encode(&outcome, &path, scratch);
            scratch.to_vec()
        });
        Self { path, encoded }
    }
}

impl ReadAhead {
    /// The files of `files`, in any order.
    pub fn new(files: Vec<ReadAheadFile>) -> Self {
        let mut files: Vec<_> = files.into_iter().map(|f| (f.path, Some(f.encoded))).collect();
        if !files.is_sorted_by(|a, b| a.0 <= b.0) {
            files.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Self { files, next: 0 }
    }

    /// How many files were read ahead.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was read ahead.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The backend paths of the files read ahead, in path order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(path, _)| path.as_str())
    }

    /// The encoded parse of the file at `path`, taken out (a second call gives `None`).
    pub(crate) fn take(&mut self, path: &str) -> Option<Vec<u8>> {
        // Thousands of paths that share a long prefix: a step forward is cheaper than a
        // binary search's dozen comparisons.
        while self.files.get(self.next).is_some_and(|(p, _)| p.as_str() < path) {
            self.next += 1;
        }
        let at = match self.files.get(self.next) {
            Some((p, _)) if p == path => self.next,
            _ => self.files.binary_search_by(|(p, _)| p.as_str().cmp(path)).ok()?,
        };
        self.files.get_mut(at)?.1.take()
    }
}

/// Decodes parses a walk read ahead, each `(place, path, encoding)`, on the blocking
/// pool: each place with its parse and encoding. One that does not decode is left out,
/// all of them when the work did not finish: their files are then read again.
pub(crate) async fn decode_read_ahead(files: Vec<(usize, String, Vec<u8>)>) -> Vec<(usize, ParseOutcome, Vec<u8>)> {
    if files.is_empty() {
        return Vec::new();
    }
    let decode = move || {
        let decoded = files.into_iter().filter_map(|(at, path, bytes)| {
            let outcome = crate::cache_codec::decode(&bytes, &path)?;
            Some((at, outcome, bytes))
        });
        decoded.collect()
    };
    crate::blocking::run_blocking(decode, |_| Vec::new()).await
}

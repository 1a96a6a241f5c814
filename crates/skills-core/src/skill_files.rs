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

/// One answer per download, in order: the parsed file or the download's error.
pub fn parse_download(mut response: FileDownloadResponse) -> SkillFileRead {
    let path = std::mem::take(&mut response.path);
    response.into_result().map(|content| parse_skill_file(&path, &content))
}

/// Fewest files worth handing to another thread.
const PARALLEL_PARSE_MIN: usize = 32;

/// Parses downloaded `SKILL.md` files split over the cores (once the files are in
/// memory, parsing, mostly YAML, is the larger part of discovery): one answer per
/// response, in order. The files of a thread that did not finish answer an error.
pub(crate) async fn parse_downloads(responses: Vec<FileDownloadResponse>) -> Vec<SkillFileRead> {
    let parse = |responses: Vec<FileDownloadResponse>| -> Vec<SkillFileRead> {
        responses.into_iter().map(parse_download).collect()
    };
    // Asked once: the answer reads cgroup files on Linux.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get));
    let parts = cores.min(responses.len() / PARALLEL_PARSE_MIN);
    if parts <= 1 {
        return parse(responses);
    }
    let per_part = responses.len().div_ceil(parts);
    let mut responses = responses.into_iter();
    let work = (0..parts).map(|_| {
        let part: Vec<FileDownloadResponse> = responses.by_ref().take(per_part).collect();
        let count = part.len();
        let unfinished = move |message: String| {
            let error = FileError {
                kind: FileErrorKind::Other,
                message: format!("the thread parsing this file did not finish: {message}"),
            };
            vec![Err(error); count]
        };
        crate::blocking::run_blocking(move || parse(part), unfinished)
    });
    futures_util::future::join_all(work)
        .await
        .into_iter()
        .flatten()
        .collect()
}

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

//! The backend conformance suite: one async function per behaviour of the
//! [`BackendProtocol`] contract, run against the canonical [`fixture`] tree.
//!
//! A backend's `tests/conformance.rs` stores the fixture under some root, then calls
//! [`run_all`] and asserts the [`Report`]:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use skills_core::{conformance, MemoryBackend};
//! let backend = MemoryBackend::new();
//! for (path, content) in conformance::fixture() {
//!     backend.insert(&skills_core::path::join("/", path), content).unwrap();
//! }
//! let report = conformance::run_all(&backend, "/").await;
//! assert!(report.passed(), "{report}");
//! # });
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;

use crate::backend::{BackendProtocol, DEFAULT_MAX_FILE_SIZE, Walk};
use crate::diagnostic::DiagnosticKind;
use crate::discover::{SourceError, list_skills};
use crate::error::BackendError;
use crate::file::{FileDownloadResponse, FileErrorKind, FileInfo};
use crate::path::join;
use crate::watch::Watch;

const ALPHA_MD: &str = "---\nname: alpha\ndescription: Alpha skill for conformance tests\nlicense: MIT\nallowed-tools: Read Grep\n---\n# Alpha\n\nUse the script.\n";
const BETA_MD: &str = "---\nname: beta\ndescription: Beta skill\n---\n";
const GAMMA_MD: &str = "---\nname: gamma-renamed\ndescription: Its name differs from its directory\n---\n";

/// The canonical fixture tree: relative paths and contents. Every file a case reads is
/// here; the 10 MiB + 1 byte `huge/SKILL.md` exercises the size limit.
pub fn fixture() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "skills/README.md",
            b"Not a skill: a file at the source level.\n".to_vec(),
        ),
        ("skills/alpha/SKILL.md", ALPHA_MD.into()),
        ("skills/alpha/assets/logo.txt", b"ALPHA\n".to_vec()),
        ("skills/alpha/notes.md", b"Notes next to SKILL.md.\n".to_vec()),
        ("skills/alpha/references/guide.md", b"# Guide\n".to_vec()),
        ("skills/alpha/scripts/run.sh", b"#!/bin/sh\necho alpha\n".to_vec()),
        ("skills/beta/SKILL.md", BETA_MD.into()),
        ("skills/broken/SKILL.md", b"# No frontmatter here\n".to_vec()),
        ("skills/gamma/SKILL.md", GAMMA_MD.into()),
        ("skills/huge/SKILL.md", huge_skill()),
        ("skills/no-skill/README.md", b"A directory without SKILL.md.\n".to_vec()),
        ("other/deep/a/b/c.txt", b"deep\n".to_vec()),
        ("other/top.txt", b"top\n".to_vec()),
    ]
}

/// The relative paths of the fixture's directories.
const FIXTURE_DIRS: &[&str] = &[
    "other",
    "other/deep",
    "other/deep/a",
    "other/deep/a/b",
    "skills",
    "skills/alpha",
    "skills/alpha/assets",
    "skills/alpha/references",
    "skills/alpha/scripts",
    "skills/beta",
    "skills/broken",
    "skills/gamma",
    "skills/huge",
    "skills/no-skill",
];

fn huge_skill() -> Vec<u8> {
    let mut content = b"---\nname: huge\ndescription: Too large to read\n---\n".to_vec();
    let size = usize::try_from(DEFAULT_MAX_FILE_SIZE).expect("10 MiB fits in usize") + 1;
    content.resize(size, b'x');
    content
}

/// A backend that calls a hook with the paths of every
/// [`download_files`](BackendProtocol::download_files) batch before passing it on, and
/// passes everything else to the wrapped backend unchanged. For tests of what happens
/// between a listing and its reads (a file deleted, a server stopped) and of how reads
/// are batched.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::{Arc, Mutex};
/// use skills_core::{conformance::BeforeReads, list_skills, MemoryBackend};
/// let batches = Arc::new(Mutex::new(Vec::new()));
/// let seen = batches.clone();
/// let backend = BeforeReads::new(MemoryBackend::new(), move |paths| seen.lock().unwrap().push(paths.len()));
/// backend.inner().insert("/s/web/SKILL.md", "---\nname: web\ndescription: Web\n---\n").unwrap();
/// list_skills(&backend, "/s").await.unwrap();
/// assert_eq!(*batches.lock().unwrap(), [1]);
/// # });
/// ```
pub struct BeforeReads<B> {
    inner: B,
    hook: Box<ReadHook>,
}

/// What [`BeforeReads`] calls with each batch of paths.
type ReadHook = dyn Fn(&[String]) + Send + Sync;

impl<B> BeforeReads<B> {
    /// Wraps `inner`; `hook` sees every batch of paths before `inner` reads it.
    pub fn new(inner: B, hook: impl Fn(&[String]) + Send + Sync + 'static) -> Self {
        Self {
            inner,
            hook: Box::new(hook),
        }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

impl<B: fmt::Debug> fmt::Debug for BeforeReads<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BeforeReads")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<B: BackendProtocol> BackendProtocol for BeforeReads<B> {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        (self.hook)(paths);
        self.inner.download_files(paths).await
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size()
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        self.inner.as_watch()
    }

    fn stale(&self) -> Option<String> {
        self.inner.stale()
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.inner.walk(path, max_depth).await
    }

    async fn child_files(&self, path: &str, file_name: &str) -> Result<Walk, BackendError> {
        self.inner.child_files(path, file_name).await
    }
}

/// The result of one case: `Err` holds what was expected and what came.
pub type CaseResult = Result<(), String>;

type CaseFuture<'a> = Pin<Box<dyn Future<Output = CaseResult> + Send + 'a>>;

/// One behaviour of the contract.
#[derive(Clone, Copy)]
pub struct Case {
    /// The behaviour, as a test name.
    pub name: &'static str,
    run: for<'a> fn(&'a dyn BackendProtocol, &'a str) -> CaseFuture<'a>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case").field("name", &self.name).finish()
    }
}

impl Case {
    /// Runs the case against a backend holding the fixture under `root`.
    pub async fn run(&self, backend: &dyn BackendProtocol, root: &str) -> CaseResult {
        (self.run)(backend, root).await
    }
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        /// Every case of the suite, in a fixed order.
        pub fn cases() -> Vec<Case> {
            vec![$(Case {
                name: stringify!($name),
                run: |backend, root| Box::pin($name(backend, root)),
            }),*]
        }
    };
}

cases![
    ls_info_lists_children_sorted,
    ls_info_reports_files_dirs_and_sizes,
    ls_info_ignores_trailing_and_double_slashes,
    ls_info_missing_path_is_not_found,
    ls_info_file_path_is_not_a_directory,
    download_files_keeps_order_with_partial_success,
    download_files_empty_request_is_empty,
    download_files_directory_is_is_directory,
    download_files_too_large_is_refused,
    invalid_paths_are_refused,
    lookalike_and_outside_paths_are_not_found,
    files_have_stable_distinct_etags,
    walk_returns_whole_tree_sorted,
    walk_respects_max_depth,
    walk_missing_root_is_not_found,
    child_files_is_a_filtered_two_level_walk,
    list_skills_parses_fixture_source,
    list_skills_missing_or_file_source_is_source_error,
];

/// The outcome of every case against one backend.
#[derive(Debug, Clone)]
pub struct Report {
    /// Each case's name and result, in suite order.
    pub results: Vec<(&'static str, CaseResult)>,
}

impl Report {
    /// Whether every case passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|(_, r)| r.is_ok())
    }
}

impl fmt::Display for Report {
    /// A table: one line per case, then a count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.results.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, result) in &self.results {
            match result {
                Ok(()) => writeln!(f, "{name:<width$}  ok")?,
                Err(e) => writeln!(f, "{name:<width$}  FAILED: {e}")?,
            }
        }
        let failed = self.results.iter().filter(|(_, r)| r.is_err()).count();
        write!(f, "{} passed, {failed} failed", self.results.len() - failed)
    }
}

/// Runs every case against `backend`, which holds [`fixture`] under `root`.
pub async fn run_all(backend: &dyn BackendProtocol, root: &str) -> Report {
    let mut results = Vec::new();
    for case in cases() {
        results.push((case.name, case.run(backend, root).await));
    }
    Report { results }
}

fn ensure(condition: bool, message: impl FnOnce() -> String) -> CaseResult {
    if condition { Ok(()) } else { Err(message()) }
}

fn ensure_eq<T: PartialEq + fmt::Debug>(actual: T, expected: T, what: &str) -> CaseResult {
    ensure(actual == expected, || {
        format!("{what}: expected {expected:?}, got {actual:?}")
    })
}

fn paths(root: &str, rels: &[&str]) -> Vec<String> {
    rels.iter().map(|r| join(root, r)).collect()
}

async fn ls_info_lists_children_sorted(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let entries = b.ls_info(&join(root, "skills")).await.map_err(|e| e.to_string())?;
    let got: Vec<_> = entries.iter().map(|e| e.path.clone()).collect();
    let expected = paths(
        root,
        &[
            "skills/README.md",
            "skills/alpha",
            "skills/beta",
            "skills/broken",
            "skills/gamma",
            "skills/huge",
            "skills/no-skill",
        ],
    );
    ensure_eq(got, expected, "children of skills/")
}

async fn ls_info_reports_files_dirs_and_sizes(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let entries = b
        .ls_info(&join(root, "skills/alpha"))
        .await
        .map_err(|e| e.to_string())?;
    let got: Vec<_> = entries.iter().map(|e| (e.path.clone(), e.is_dir)).collect();
    let expected: Vec<_> = [
        ("skills/alpha/SKILL.md", false),
        ("skills/alpha/assets", true),
        ("skills/alpha/notes.md", false),
        ("skills/alpha/references", true),
        ("skills/alpha/scripts", true),
    ]
    .iter()
    .map(|(p, d)| (join(root, p), *d))
    .collect();
    ensure_eq(got, expected, "entries of skills/alpha")?;
    let skill_md = &entries[0];
    ensure_eq(skill_md.size, ALPHA_MD.len() as u64, "size of alpha/SKILL.md")
}

async fn ls_info_ignores_trailing_and_double_slashes(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let plain = b
        .ls_info(&join(root, "skills/alpha"))
        .await
        .map_err(|e| e.to_string())?;
    let messy_path = format!("{}//alpha/", join(root, "skills"));
    let messy = b.ls_info(&messy_path).await.map_err(|e| e.to_string())?;
    let names = |v: &[crate::FileInfo]| v.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    ensure_eq(names(&messy), names(&plain), "listing of a path with extra slashes")
}

async fn ls_info_missing_path_is_not_found(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let result = b.ls_info(&join(root, "skills/nope")).await;
    ensure(matches!(result, Err(BackendError::NotFound { .. })), || {
        format!("expected NotFound, got {result:?}")
    })
}

async fn ls_info_file_path_is_not_a_directory(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let result = b.ls_info(&join(root, "skills/alpha/SKILL.md")).await;
    ensure(matches!(result, Err(BackendError::NotADirectory { .. })), || {
        format!("expected NotADirectory, got {result:?}")
    })
}

async fn download_files_keeps_order_with_partial_success(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let asked = paths(
        root,
        &["skills/beta/SKILL.md", "skills/nope/SKILL.md", "skills/alpha/SKILL.md"],
    );
    let responses = b.download_files(&asked).await;
    ensure_eq(responses.len(), 3, "number of responses")?;
    let got_paths: Vec<_> = responses.iter().map(|r| r.path.clone()).collect();
    ensure_eq(got_paths, asked, "response paths")?;
    let text = |i: usize| responses[i].content.as_deref().map(String::from_utf8_lossy);
    ensure_eq(text(0).as_deref(), Some(BETA_MD), "beta content")?;
    ensure_eq(responses[0].error.as_ref(), None, "beta error")?;
    ensure_eq(text(1), None, "missing file content")?;
    ensure_eq(
        responses[1].error.as_ref().map(|e| e.kind),
        Some(FileErrorKind::FileNotFound),
        "missing file error",
    )?;
    ensure_eq(text(2).as_deref(), Some(ALPHA_MD), "alpha content")
}

async fn download_files_empty_request_is_empty(b: &dyn BackendProtocol, _root: &str) -> CaseResult {
    ensure_eq(b.download_files(&[]).await.len(), 0, "responses to an empty request")
}

async fn download_files_directory_is_is_directory(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let responses = b.download_files(&paths(root, &["skills/alpha"])).await;
    let kind = responses.first().and_then(|r| r.error.as_ref()).map(|e| e.kind);
    ensure_eq(kind, Some(FileErrorKind::IsDirectory), "error for a directory")
}

async fn download_files_too_large_is_refused(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    ensure_eq(b.max_file_size(), DEFAULT_MAX_FILE_SIZE, "default size limit")?;
    let responses = b
        .download_files(&paths(root, &["skills/huge/SKILL.md", "skills/beta/SKILL.md"]))
        .await;
    let kind = responses.first().and_then(|r| r.error.as_ref()).map(|e| e.kind);
    ensure_eq(kind, Some(FileErrorKind::TooLarge), "error for an oversized file")?;
    ensure(responses[0].content.is_none(), || {
        "oversized file returned content".into()
    })?;
    ensure(responses[1].content.is_some(), || {
        "the file after the oversized one was not read".into()
    })
}

/// Path attacks in every form, each relative to the fixture's root: `..` at the start,
/// middle and end, backslashes, NUL and other control characters, percent-encoded dots
/// and separators, relative paths.
fn attack_paths(root: &str) -> Vec<String> {
    let skills = join(root, "skills");
    let mut attacks: Vec<String> = [
        "/..",
        "/../etc/passwd",
        "/skills/..",
        "/skills/../skills/alpha",
        "/skills/alpha/../../..",
        "/skills/alpha/scripts/../../beta",
        "/skills/alpha/..",
        "/skills\\..\\other",
        "/skills\\alpha",
        "/skills/%2e%2e/other",
        "/skills/%2E%2E",
        "/skills/.%2e/other",
        "/skills%2falpha",
        "/skills%5calpha",
        "/skills/al\0pha",
        "/skills/alpha\0",
        "/skills/al\npha",
        "/skills/al%00pha",
    ]
    .iter()
    .map(|attack| format!("{}{attack}", root.trim_end_matches('/')))
    .collect();
    attacks.extend([
        format!("{skills}/../../etc"),
        "skills/alpha".to_owned(),
        "./skills".to_owned(),
        "../etc/passwd".to_owned(),
        "..".to_owned(),
        String::new(),
    ]);
    attacks
}

async fn invalid_paths_are_refused(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    for path in &attack_paths(root) {
        let listed = b.ls_info(path).await;
        ensure(matches!(listed, Err(BackendError::InvalidPath { .. })), || {
            format!("ls_info({path:?}): expected InvalidPath, got {listed:?}")
        })?;
        let walked = b.walk(path, 3).await;
        ensure(matches!(walked, Err(BackendError::InvalidPath { .. })), || {
            format!("walk({path:?}): expected InvalidPath, got {walked:?}")
        })?;
        let children = b.child_files(path, "SKILL.md").await;
        ensure(matches!(children, Err(BackendError::InvalidPath { .. })), || {
            format!("child_files({path:?}): expected InvalidPath, got {children:?}")
        })?;
        // The path itself and a file below it (the empty path has no "below").
        let below = (!path.is_empty()).then(|| format!("{path}/SKILL.md"));
        for file in std::iter::once(path.clone()).chain(below) {
            let downloaded = b.download_files(std::slice::from_ref(&file)).await;
            let refused = downloaded.first().is_some_and(|r| {
                r.content.is_none() && r.error.as_ref().map(|e| e.kind) == Some(FileErrorKind::InvalidPath)
            });
            ensure(refused, || {
                format!("download_files({file:?}): expected InvalidPath, got {downloaded:?}")
            })?;
        }
    }
    Ok(())
}

async fn lookalike_and_outside_paths_are_not_found(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    // Absolute paths to the host's files, names that only look like `..` (fullwidth
    // dots, a two-dot leader, double percent-encoding) and `...`: either refused or
    // plain names that do not exist; never a file outside the fixture.
    let lookalikes = [
        "/etc/passwd".to_owned(),
        "/proc/self/environ".to_owned(),
        join(root, "skills/\u{ff0e}\u{ff0e}/other/top.txt"),
        join(root, "skills/\u{2025}/other/top.txt"),
        join(root, "skills/%252e%252e/other/top.txt"),
        join(root, "skills/.../other/top.txt"),
    ];
    for path in &lookalikes {
        let dir = b.ls_info(path).await;
        ensure(
            matches!(
                dir,
                Err(BackendError::NotFound { .. } | BackendError::InvalidPath { .. })
            ),
            || format!("ls_info({path:?}): expected NotFound or InvalidPath, got {dir:?}"),
        )?;
        let file = b.download_files(std::slice::from_ref(path)).await;
        let first = file.first();
        let kind = first.and_then(|r| r.error.as_ref()).map(|e| e.kind);
        ensure(
            first.is_some_and(|r| r.content.is_none())
                && matches!(kind, Some(FileErrorKind::FileNotFound | FileErrorKind::InvalidPath)),
            || format!("download_files({path:?}): expected FileNotFound or InvalidPath, got {file:?}"),
        )?;
    }
    Ok(())
}

async fn files_have_stable_distinct_etags(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let dir = join(root, "skills/alpha");
    let first = b.ls_info(&dir).await.map_err(|e| e.to_string())?;
    let second = b.ls_info(&dir).await.map_err(|e| e.to_string())?;
    let etags = |v: &[crate::FileInfo]| {
        v.iter()
            .filter(|e| !e.is_dir)
            .map(|e| e.etag.clone())
            .collect::<Vec<_>>()
    };
    let (a, b2) = (etags(&first), etags(&second));
    ensure(a.iter().all(Option::is_some), || {
        format!("files without an etag: {a:?}")
    })?;
    ensure_eq(&a, &b2, "etags of an unchanged directory")?;
    ensure(a[0] != a[1], || {
        format!("two different files share the etag {:?}", a[0])
    })
}

async fn walk_returns_whole_tree_sorted(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let walk = b.walk(root, usize::MAX).await.map_err(|e| e.to_string())?;
    let got: Vec<_> = walk.entries.iter().map(|e| (e.path.clone(), e.is_dir)).collect();
    let mut expected: Vec<_> = fixture()
        .iter()
        .map(|(p, _)| (join(root, p), false))
        .chain(FIXTURE_DIRS.iter().map(|p| (join(root, p), true)))
        .collect();
    expected.sort();
    ensure_eq(got, expected, "walk of the whole fixture")?;
    ensure(walk.errors.is_empty(), || format!("walk errors: {:?}", walk.errors))
}

async fn walk_respects_max_depth(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let dir = join(root, "other");
    let one = b.walk(&dir, 1).await.map_err(|e| e.to_string())?;
    let names = |w: &crate::Walk| w.entries.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    ensure_eq(
        names(&one),
        paths(root, &["other/deep", "other/top.txt"]),
        "walk depth 1",
    )?;
    let two = b.walk(&dir, 2).await.map_err(|e| e.to_string())?;
    ensure_eq(
        names(&two),
        paths(root, &["other/deep", "other/deep/a", "other/top.txt"]),
        "walk depth 2",
    )
}

async fn walk_missing_root_is_not_found(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let result = b.walk(&join(root, "nope"), 3).await;
    ensure(matches!(result, Err(BackendError::NotFound { .. })), || {
        format!("expected NotFound, got {result:?}")
    })
}

async fn child_files_is_a_filtered_two_level_walk(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let source = join(root, "skills");
    let found = b.child_files(&source, "SKILL.md").await.map_err(|e| e.to_string())?;
    let got: Vec<_> = found.entries.iter().map(|e| (e.path.clone(), e.is_dir)).collect();
    let mut expected: Vec<_> = ["README.md", "alpha/SKILL.md", "beta/SKILL.md", "broken/SKILL.md"]
        .into_iter()
        .chain(["gamma/SKILL.md", "huge/SKILL.md"])
        .map(|p| (join(&source, p), false))
        .chain(
            ["alpha", "beta", "broken", "gamma", "huge", "no-skill"]
                .into_iter()
                .map(|p| (join(&source, p), true)),
        )
        .collect();
    expected.sort();
    ensure_eq(got, expected, "child_files of the skills source")?;
    ensure(found.errors.is_empty(), || {
        format!("child_files errors: {:?}", found.errors)
    })?;
    // The files carry what a listing says of them: size and etag.
    let walk = b.walk(&source, 2).await.map_err(|e| e.to_string())?;
    let facts = |entries: &[crate::FileInfo]| {
        entries
            .iter()
            .filter(|e| e.path.ends_with("/SKILL.md"))
            .map(|e| (e.path.clone(), e.size, e.etag.clone()))
            .collect::<Vec<_>>()
    };
    ensure_eq(facts(&found.entries), facts(&walk.entries), "SKILL.md sizes and etags")?;
    let missing = b.child_files(&join(root, "nope"), "SKILL.md").await;
    ensure(matches!(missing, Err(BackendError::NotFound { .. })), || {
        format!("missing root: expected NotFound, got {missing:?}")
    })
}

async fn list_skills_parses_fixture_source(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let source = join(root, "skills");
    let listing = list_skills(b, &source).await.map_err(|e| e.to_string())?;
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    ensure_eq(names, vec!["alpha", "beta", "gamma-renamed"], "skill names")?;
    let alpha = &listing.skills[0];
    ensure_eq(alpha.path.clone(), join(root, "skills/alpha/SKILL.md"), "alpha path")?;
    ensure_eq(alpha.license.as_deref(), Some("MIT"), "alpha license")?;
    ensure_eq(
        alpha.allowed_tools.clone(),
        vec!["Read".to_owned(), "Grep".to_owned()],
        "alpha allowed-tools",
    )?;
    let diagnostics: Vec<_> = listing.diagnostics.iter().map(|d| (d.path.clone(), d.kind)).collect();
    let expected = vec![
        (join(root, "skills/broken/SKILL.md"), DiagnosticKind::NoFrontmatter),
        (join(root, "skills/gamma/SKILL.md"), DiagnosticKind::NameMismatch),
        (join(root, "skills/huge/SKILL.md"), DiagnosticKind::TooLarge),
    ];
    ensure_eq(diagnostics, expected, "diagnostics")
}

async fn list_skills_missing_or_file_source_is_source_error(b: &dyn BackendProtocol, root: &str) -> CaseResult {
    let missing = list_skills(b, &join(root, "nope")).await;
    ensure(matches!(missing, Err(SourceError::NotFound { .. })), || {
        format!("missing source: expected NotFound, got {missing:?}")
    })?;
    let file = list_skills(b, &join(root, "skills/README.md")).await;
    ensure(matches!(file, Err(SourceError::NotADirectory { .. })), || {
        format!("file source: expected NotADirectory, got {file:?}")
    })?;
    let escape = list_skills(b, &format!("{}/..", join(root, "skills"))).await;
    ensure(
        matches!(
            escape,
            Err(SourceError::Unreadable {
                error: BackendError::InvalidPath { .. },
                ..
            })
        ),
        || format!("`..` source: expected InvalidPath, got {escape:?}"),
    )
}

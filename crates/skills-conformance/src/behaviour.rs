//! The behaviours of the [`BackendProtocol`] contract, one async function each, run
//! against a backend holding the [`fixture`](crate::fixture) tree under `root`. Each
//! panics on the first thing that breaks the contract, with what was expected and what
//! came, as an ordinary test does.

use skills_core::path::join;
use skills_core::{
    BackendError, BackendProtocol, DEFAULT_MAX_FILE_SIZE, DiagnosticKind, FileErrorKind, FileInfo, SourceError, Walk,
    list_skills, parse_skill_file,
};

use crate::check::{ensure, ensure_eq, paths};
use crate::fixture::{ALPHA_MD, BETA_MD, FIXTURE_DIRS, fixture};

pub use crate::child_files::{
    child_files_is_a_filtered_two_level_walk, child_files_only_is_child_files_without_the_first_level,
    child_files_read_walks_as_child_files_only, find_files_finds_what_a_walk_finds,
};
pub use crate::skill_file::list_skills_reads_a_lowercase_skill_md;

/// `ls_info` lists the immediate children of a directory, sorted by path.
pub async fn ls_info_lists_children_sorted(b: &dyn BackendProtocol, root: &str) {
    let entries = b.ls_info(&join(root, "skills")).await.unwrap_or_else(|e| panic!("{e}"));
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

/// `ls_info` tells files from directories and gives a file's size.
pub async fn ls_info_reports_files_dirs_and_sizes(b: &dyn BackendProtocol, root: &str) {
    let entries = b
        .ls_info(&join(root, "skills/alpha"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
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
    ensure_eq(got, expected, "entries of skills/alpha");
    let skill_md = &entries[0];
    ensure_eq(skill_md.size, ALPHA_MD.len() as u64, "size of alpha/SKILL.md")
}

/// `ls_info` of a path with doubled and trailing slashes lists the same as the plain path.
pub async fn ls_info_ignores_trailing_and_double_slashes(b: &dyn BackendProtocol, root: &str) {
    let plain = b
        .ls_info(&join(root, "skills/alpha"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let messy_path = format!("{}//alpha/", join(root, "skills"));
    let messy = b.ls_info(&messy_path).await.unwrap_or_else(|e| panic!("{e}"));
    let names = |v: &[FileInfo]| v.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    ensure_eq(names(&messy), names(&plain), "listing of a path with extra slashes")
}

/// `ls_info` of a missing path is `NotFound`, not an empty list.
pub async fn ls_info_missing_path_is_not_found(b: &dyn BackendProtocol, root: &str) {
    let result = b.ls_info(&join(root, "skills/nope")).await;
    ensure(matches!(result, Err(BackendError::NotFound { .. })), || {
        format!("expected NotFound, got {result:?}")
    })
}

/// `ls_info` of a file is `NotADirectory`.
pub async fn ls_info_file_path_is_not_a_directory(b: &dyn BackendProtocol, root: &str) {
    let result = b.ls_info(&join(root, "skills/alpha/SKILL.md")).await;
    ensure(matches!(result, Err(BackendError::NotADirectory { .. })), || {
        format!("expected NotADirectory, got {result:?}")
    })
}

/// `download_files` answers once per path, in the order asked; a missing file fails alone.
pub async fn download_files_keeps_order_with_partial_success(b: &dyn BackendProtocol, root: &str) {
    let asked = paths(
        root,
        &["skills/beta/SKILL.md", "skills/nope/SKILL.md", "skills/alpha/SKILL.md"],
    );
    let responses = b.download_files(&asked).await;
    ensure_eq(responses.len(), 3, "number of responses");
    let got_paths: Vec<_> = responses.iter().map(|r| r.path.clone()).collect();
    ensure_eq(got_paths, asked, "response paths");
    let text = |i: usize| responses[i].content.as_deref().map(String::from_utf8_lossy);
    ensure_eq(text(0).as_deref(), Some(BETA_MD), "beta content");
    ensure_eq(responses[0].error.as_ref(), None, "beta error");
    ensure_eq(text(1), None, "missing file content");
    ensure_eq(
        responses[1].error.as_ref().map(|e| e.kind),
        Some(FileErrorKind::FileNotFound),
        "missing file error",
    );
    ensure_eq(text(2).as_deref(), Some(ALPHA_MD), "alpha content")
}

/// `download_files` of no paths answers nothing.
pub async fn download_files_empty_request_is_empty(b: &dyn BackendProtocol, _root: &str) {
    ensure_eq(b.download_files(&[]).await.len(), 0, "responses to an empty request")
}

/// `download_files` of a directory is `IsDirectory`.
pub async fn download_files_directory_is_is_directory(b: &dyn BackendProtocol, root: &str) {
    let responses = b.download_files(&paths(root, &["skills/alpha"])).await;
    let kind = responses.first().and_then(|r| r.error.as_ref()).map(|e| e.kind);
    ensure_eq(kind, Some(FileErrorKind::IsDirectory), "error for a directory")
}

/// A file over the size limit is `TooLarge` without content, and the next file is still read.
pub async fn download_files_too_large_is_refused(b: &dyn BackendProtocol, root: &str) {
    ensure_eq(b.max_file_size(), DEFAULT_MAX_FILE_SIZE, "default size limit");
    let responses = b
        .download_files(&paths(root, &["skills/huge/SKILL.md", "skills/beta/SKILL.md"]))
        .await;
    let kind = responses.first().and_then(|r| r.error.as_ref()).map(|e| e.kind);
    ensure_eq(kind, Some(FileErrorKind::TooLarge), "error for an oversized file");
    ensure(responses[0].content.is_none(), || {
        "oversized file returned content".into()
    });
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

/// Every path attack (`..` anywhere, backslashes, NUL and control characters, percent-encoded dots and separators, relative paths) is `InvalidPath` in every method, and nothing is read.
pub async fn invalid_paths_are_refused(b: &dyn BackendProtocol, root: &str) {
    for path in &attack_paths(root) {
        let listed = b.ls_info(path).await;
        ensure(matches!(listed, Err(BackendError::InvalidPath { .. })), || {
            format!("ls_info({path:?}): expected InvalidPath, got {listed:?}")
        });
        let walked = b.walk(path, 3).await;
        ensure(matches!(walked, Err(BackendError::InvalidPath { .. })), || {
            format!("walk({path:?}): expected InvalidPath, got {walked:?}")
        });
        let children = b.child_files(path, "SKILL.md").await;
        ensure(matches!(children, Err(BackendError::InvalidPath { .. })), || {
            format!("child_files({path:?}): expected InvalidPath, got {children:?}")
        });
        // The path itself and a file below it (the empty path has no "below").
        let below = (!path.is_empty()).then(|| format!("{path}/SKILL.md"));
        for file in std::iter::once(path.clone()).chain(below) {
            let downloaded = b.download_files(std::slice::from_ref(&file)).await;
            let refused = downloaded.first().is_some_and(|r| {
                r.content.is_none() && r.error.as_ref().map(|e| e.kind) == Some(FileErrorKind::InvalidPath)
            });
            ensure(refused, || {
                format!("download_files({file:?}): expected InvalidPath, got {downloaded:?}")
            });
        }
    }
}

/// Host paths and names that only look like `..` are refused or missing, never a file outside the fixture.
pub async fn lookalike_and_outside_paths_are_not_found(b: &dyn BackendProtocol, root: &str) {
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
        );
        let file = b.download_files(std::slice::from_ref(path)).await;
        let first = file.first();
        let kind = first.and_then(|r| r.error.as_ref()).map(|e| e.kind);
        ensure(
            first.is_some_and(|r| r.content.is_none())
                && matches!(kind, Some(FileErrorKind::FileNotFound | FileErrorKind::InvalidPath)),
            || format!("download_files({path:?}): expected FileNotFound or InvalidPath, got {file:?}"),
        );
    }
}

/// Files have etags, the same on every listing of unchanged files and different for different files.
pub async fn files_have_stable_distinct_etags(b: &dyn BackendProtocol, root: &str) {
    let dir = join(root, "skills/alpha");
    let first = b.ls_info(&dir).await.unwrap_or_else(|e| panic!("{e}"));
    let second = b.ls_info(&dir).await.unwrap_or_else(|e| panic!("{e}"));
    let etags = |v: &[FileInfo]| {
        v.iter()
            .filter(|e| !e.is_dir)
            .map(|e| e.etag.clone())
            .collect::<Vec<_>>()
    };
    let (a, b2) = (etags(&first), etags(&second));
    ensure(a.iter().all(Option::is_some), || {
        format!("files without an etag: {a:?}")
    });
    ensure_eq(&a, &b2, "etags of an unchanged directory");
    ensure(a[0] != a[1], || {
        format!("two different files share the etag {:?}", a[0])
    })
}

/// `walk` without a depth limit returns the whole tree, sorted by path, without errors.
pub async fn walk_returns_whole_tree_sorted(b: &dyn BackendProtocol, root: &str) {
    let walk = b.walk(root, usize::MAX).await.unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<_> = walk.entries.iter().map(|e| (e.path.clone(), e.is_dir)).collect();
    let mut expected: Vec<_> = fixture()
        .iter()
        .map(|(p, _)| (join(root, p), false))
        .chain(FIXTURE_DIRS.iter().map(|p| (join(root, p), true)))
        .collect();
    expected.sort();
    ensure_eq(got, expected, "walk of the whole fixture");
    ensure(walk.errors.is_empty(), || format!("walk errors: {:?}", walk.errors))
}

/// `walk` stops at `max_depth` levels.
pub async fn walk_respects_max_depth(b: &dyn BackendProtocol, root: &str) {
    let dir = join(root, "other");
    let one = b.walk(&dir, 1).await.unwrap_or_else(|e| panic!("{e}"));
    let names = |w: &Walk| w.entries.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    ensure_eq(
        names(&one),
        paths(root, &["other/deep", "other/top.txt"]),
        "walk depth 1",
    );
    let two = b.walk(&dir, 2).await.unwrap_or_else(|e| panic!("{e}"));
    ensure_eq(
        names(&two),
        paths(root, &["other/deep", "other/deep/a", "other/top.txt"]),
        "walk depth 2",
    )
}

/// `walk_each` answers each path, in order, as `walk` of that path alone answers it: a
/// missing path is its own `NotFound` and does not fail the others.
pub async fn walk_each_answers_as_one_walk_per_path(b: &dyn BackendProtocol, root: &str) {
    let paths = paths(root, &["skills/alpha", "nope", "other", "skills/beta", "skills/alpha"]);
    let each = b.walk_each(&paths, 2).await;
    ensure_eq(each.len(), paths.len(), "one answer per path");
    for (path, answer) in paths.iter().zip(each) {
        let alone = b.walk(path, 2).await;
        match (answer, alone) {
            (Ok(answer), Ok(alone)) => ensure_eq(answer, alone, &format!("walk_each of {path}")),
            (Err(BackendError::NotFound { .. }), Err(BackendError::NotFound { .. })) => {}
            (answer, alone) => panic!("walk_each of {path}: {answer:?}, walk: {alone:?}"),
        }
    }
    ensure(b.walk_each(&[], 2).await.is_empty(), || {
        "no paths, no answers".to_owned()
    });
}

/// `read_skill_files` answers each path, in order, as `download_files` of that path and
/// `parse_skill_file` of its bytes answer: the parsed file, or the download's error kind
/// (missing, a directory, too large). Asked enough paths to be shared over threads, the
/// order still holds.
pub async fn read_skill_files_answers_as_download_then_parse(b: &dyn BackendProtocol, root: &str) {
    let once = paths(
        root,
        &[
            "skills/beta/SKILL.md",
            "skills/nope/SKILL.md",
            "skills/alpha/SKILL.md",
            "skills/broken/SKILL.md",
            "skills/alpha",
            "skills/huge/SKILL.md",
            "skills/gamma/SKILL.md",
        ],
    );
    let asked: Vec<String> = once.iter().cycle().take(once.len() * 30).cloned().collect();
    let reads = b.read_skill_files(&asked).await;
    ensure_eq(reads.len(), asked.len(), "one answer per path");
    for (path, read) in asked.iter().zip(reads) {
        let response = b.download_files(std::slice::from_ref(path)).await.remove(0);
        match (read, response.into_result()) {
            (Ok(parsed), Ok(content)) => ensure_eq(parsed, parse_skill_file(path, &content), path),
            (Err(read), Err(download)) => ensure_eq(read.kind, download.kind, path),
            (read, download) => panic!("{path}: read_skill_files {read:?}, download_files {download:?}"),
        }
    }
    ensure(b.read_skill_files(&[]).await.is_empty(), || {
        "no paths, no answers".to_owned()
    });
}

/// `walk` of a missing root is `NotFound`.
pub async fn walk_missing_root_is_not_found(b: &dyn BackendProtocol, root: &str) {
    let result = b.walk(&join(root, "nope"), 3).await;
    ensure(matches!(result, Err(BackendError::NotFound { .. })), || {
        format!("expected NotFound, got {result:?}")
    })
}

/// `list_skills` over the backend finds the fixture's skills and reports its broken, renamed and oversized ones.
pub async fn list_skills_parses_fixture_source(b: &dyn BackendProtocol, root: &str) {
    let source = join(root, "skills");
    let listing = list_skills(b, &source).await.unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    ensure_eq(names, vec!["alpha", "beta", "gamma-renamed"], "skill names");
    let alpha = &listing.skills[0];
    ensure_eq(alpha.path.clone(), join(root, "skills/alpha/SKILL.md"), "alpha path");
    ensure_eq(alpha.license.as_deref(), Some("MIT"), "alpha license");
    ensure_eq(
        alpha.allowed_tools.clone(),
        vec!["Read".to_owned(), "Grep".to_owned()],
        "alpha allowed-tools",
    );
    let diagnostics: Vec<_> = listing.diagnostics.iter().map(|d| (d.path.clone(), d.kind)).collect();
    let expected = vec![
        (join(root, "skills/broken/SKILL.md"), DiagnosticKind::NoFrontmatter),
        (join(root, "skills/gamma/SKILL.md"), DiagnosticKind::NameMismatch),
        (join(root, "skills/huge/SKILL.md"), DiagnosticKind::TooLarge),
    ];
    ensure_eq(diagnostics, expected, "diagnostics")
}

/// `list_skills` of a missing source, a file or an escaping path is a typed source error.
pub async fn list_skills_missing_or_file_source_is_source_error(b: &dyn BackendProtocol, root: &str) {
    let missing = list_skills(b, &join(root, "nope")).await;
    ensure(matches!(missing, Err(SourceError::NotFound { .. })), || {
        format!("missing source: expected NotFound, got {missing:?}")
    });
    let file = list_skills(b, &join(root, "skills/README.md")).await;
    ensure(matches!(file, Err(SourceError::NotADirectory { .. })), || {
        format!("file source: expected NotADirectory, got {file:?}")
    });
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

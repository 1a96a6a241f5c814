//! `child_files_only` with the source's own entries left out is answered from the
//! folder's names (each child folder's file looked up once); with them, by the general
//! walk. Both must say the same of every child, on one thread and on several: the same
//! files in the same order, the same errors, the same entries left out.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::symlink;
use std::path::Path;

use skills_backend_fs::FilesystemBackend;
use skills_core::{BackendProtocol, Walk, path};

/// A source whose children test the order of paths (`a`, `a-b`, `a.b`, `a0`: `a-b/` and
/// `a.b/` sort before `a/`), links in and out of the root, a lowercase `skill.md`, a
/// `SKILL.md` that is a folder, a folder without one, a file, a FIFO, a name that is not
/// UTF-8, and enough folders for several threads.
fn source(root: &Path, outside: &Path) {
    let src = root.join("src");
    let skill = |dir: &str, file: &str| {
        std::fs::create_dir_all(src.join(dir)).unwrap();
        std::fs::write(
            src.join(dir).join(file),
            format!("---\nname: {dir}\ndescription: d\n---\n"),
        )
        .unwrap();
    };
    for dir in ["a", "a-b", "a.b", "a0", "b", "Z"] {
        skill(dir, "SKILL.md");
    }
    skill("lower", "skill.md");
    std::fs::create_dir_all(src.join("folder-as-file/SKILL.md")).unwrap();
    std::fs::create_dir_all(src.join("empty/scripts")).unwrap();
    std::fs::write(src.join("README.md"), "readme").unwrap();
    for i in 0..200 {
        skill(&format!("s{i:03}"), "SKILL.md");
    }
    symlink("a", src.join("a-link")).unwrap();
    symlink("README.md", src.join("readme-link")).unwrap();
    symlink(outside, src.join("out-link")).unwrap();
    symlink("nowhere", src.join("dangling")).unwrap();
    let fifo = src.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    use std::os::unix::ffi::OsStrExt;
    std::fs::create_dir(src.join(std::ffi::OsStr::from_bytes(b"bad-\xff"))).unwrap();
    skill("linked-skill-file", "other.md");
    symlink("other.md", src.join("linked-skill-file/SKILL.md")).unwrap();
    std::fs::create_dir_all(outside.join("elsewhere")).unwrap();
}

/// Each entry's path, kind, size and etag; the errors; the entries left out.
type Said = (Vec<(String, bool, u64, Option<String>)>, Vec<String>, Vec<String>);

/// What a walk says, to compare.
fn said(walk: &Walk) -> Said {
    (
        walk.entries
            .iter()
            .map(|e| (e.path.clone(), e.is_dir, e.size, e.etag.clone()))
            .collect(),
        walk.errors.iter().map(|e| e.to_string()).collect(),
        walk.left_out.clone(),
    )
}

#[tokio::test]
async fn children_asked_by_name_say_what_the_general_walk_says() {
    let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    source(dir.path(), outside.path());
    for threads in [1, 2, 5] {
        let backend = FilesystemBackend::new(dir.path()).unwrap().with_parallelism(threads);
        // Over 0 entries the source's own entries are wanted: the general walk answers.
        let mut whole = backend.child_files_only("/src", "SKILL.md", 0).await.unwrap();
        whole.entries.retain(|e| path::parent(&e.path) != "/src");
        let by_name = backend.child_files_only("/src", "SKILL.md", 10_000).await.unwrap();
        assert_eq!(said(&by_name), said(&whole), "{threads} threads");
        let paths: Vec<&str> = by_name.entries.iter().map(|e| e.path.as_str()).collect();
        assert!(paths.is_sorted(), "{threads} threads: {paths:?}");
        // The children that make the order and the kinds differ from the names' order.
        let first: Vec<&str> = paths.iter().copied().take(7).collect();
        assert_eq!(
            first,
            [
                "/src/Z/SKILL.md",
                "/src/a-b/SKILL.md",
                "/src/a-link/SKILL.md",
                "/src/a.b/SKILL.md",
                "/src/a/SKILL.md",
                "/src/a0/SKILL.md",
                "/src/b/SKILL.md"
            ]
        );
        for expected in [
            "/src/lower/skill.md",
            "/src/folder-as-file/SKILL.md",
            "/src/linked-skill-file/SKILL.md",
        ] {
            assert!(paths.contains(&expected), "{expected} in {paths:?}");
        }
        assert_eq!(paths.len(), 6 + 1 + 200 + 1 + 1 + 1);
        let left_out = by_name.left_out.join("\n");
        for why in [
            "out-link: a link leading out",
            "dangling: a link",
            "pipe: not a regular file",
            "not UTF-8",
        ] {
            assert!(left_out.contains(why), "{why} in {left_out}");
        }
    }
}

#[tokio::test]
async fn a_source_with_more_names_than_the_limit_is_walked_whole() {
    let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    source(dir.path(), outside.path());
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let kept = backend.child_files_only("/src", "SKILL.md", 5).await.unwrap();
    assert!(
        kept.entries.iter().any(|e| e.path == "/src/README.md"),
        "the first level is kept"
    );
    let missing = backend.child_files_only("/nope", "SKILL.md", 10_000).await;
    assert!(missing.is_err());
}

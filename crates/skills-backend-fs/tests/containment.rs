//! Containment: nothing outside the root is listed or read.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::symlink;
use std::path::Path;

mod common;

use common::poll_to_completion;
use skills_backend_fs::{FilesystemBackend, HardLinks};
use skills_core::{BackendError, BackendProtocol, FileErrorKind, SourceError, list_skills};

const SKILL: &str = "---\nname: web\ndescription: Browse\n---\n";

struct Tree {
    _outside: tempfile::TempDir,
    root: tempfile::TempDir,
    outside: std::path::PathBuf,
}

/// A root with one good skill, and a sibling directory outside the root holding a
/// secret file and a skill.
fn tree() -> Tree {
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().to_owned();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::fs::create_dir_all(outside.join("evil")).unwrap();
    std::fs::write(
        outside.join("evil/SKILL.md"),
        "---\nname: evil\ndescription: escaped\n---\n",
    )
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "skills/web/SKILL.md", SKILL);
    Tree {
        _outside: outside_dir,
        root,
        outside,
    }
}

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

async fn listed(backend: &FilesystemBackend, dir: &str) -> Vec<String> {
    backend
        .ls_info(dir)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect()
}

async fn download_kind(backend: &FilesystemBackend, path: &str) -> Option<FileErrorKind> {
    let response = backend.download_files(&[path.to_owned()]).await.remove(0);
    if let Some(content) = &response.content {
        assert!(
            !String::from_utf8_lossy(content).contains("secret"),
            "read outside the root"
        );
    }
    response.error.map(|e| e.kind)
}

#[tokio::test]
async fn symlinks_out_of_the_root_are_invalid_and_unlisted() {
    let t = tree();
    let root = t.root.path();
    symlink(t.outside.join("secret.txt"), root.join("skills/web/secret.txt")).unwrap();
    symlink(&t.outside, root.join("skills/outside-dir")).unwrap();
    symlink(t.outside.join("evil"), root.join("skills/evil")).unwrap();
    symlink("/", root.join("skills/root-link")).unwrap();
    let backend = FilesystemBackend::new(root).unwrap();

    assert_eq!(
        download_kind(&backend, "/skills/web/secret.txt").await,
        Some(FileErrorKind::InvalidPath)
    );
    assert_eq!(
        download_kind(&backend, "/skills/outside-dir/secret.txt").await,
        Some(FileErrorKind::InvalidPath)
    );
    assert_eq!(
        download_kind(&backend, "/skills/root-link/etc/passwd").await,
        Some(FileErrorKind::InvalidPath)
    );
    assert!(matches!(
        backend.ls_info("/skills/outside-dir").await,
        Err(BackendError::InvalidPath { .. })
    ));
    assert!(matches!(
        backend.ls_info("/skills/root-link").await,
        Err(BackendError::InvalidPath { .. })
    ));

    let names = listed(&backend, "/skills").await;
    assert_eq!(names, ["/skills/web"]);
    let files = listed(&backend, "/skills/web").await;
    assert_eq!(files, ["/skills/web/SKILL.md"]);

    let listing = list_skills(&backend, "/skills").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["web"]);
}

#[tokio::test]
async fn symlinks_inside_the_root_are_followed() {
    let t = tree();
    let root = t.root.path();
    write(root, "shared/guide.md", "guide");
    symlink(root.join("shared/guide.md"), root.join("skills/web/guide.md")).unwrap();
    symlink("../../shared", root.join("skills/web/references")).unwrap();
    let backend = FilesystemBackend::new(root).unwrap();
    let files: Vec<_> = backend
        .ls_info("/skills/web")
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.path, e.is_dir))
        .collect();
    assert_eq!(
        files,
        [
            ("/skills/web/SKILL.md".to_owned(), false),
            ("/skills/web/guide.md".to_owned(), false),
            ("/skills/web/references".to_owned(), true),
        ]
    );
    let responses = backend
        .download_files(&["/skills/web/references/guide.md".to_owned()])
        .await;
    assert_eq!(responses[0].content.as_deref(), Some(&b"guide"[..]));
}

#[tokio::test]
async fn dot_dot_paths_and_sources_are_refused() {
    let t = tree();
    let backend = FilesystemBackend::new(t.root.path()).unwrap();
    let escape = format!("/../{}/secret.txt", t.outside.file_name().unwrap().to_str().unwrap());
    assert_eq!(download_kind(&backend, &escape).await, Some(FileErrorKind::InvalidPath));
    assert_eq!(
        download_kind(&backend, "/skills/web/../../../etc/passwd").await,
        Some(FileErrorKind::InvalidPath)
    );
    for source in ["/skills/..", "/..", "/skills/../.."] {
        let result = list_skills(&backend, source).await;
        assert!(
            matches!(
                result,
                Err(SourceError::Unreadable {
                    error: BackendError::InvalidPath { .. },
                    ..
                })
            ),
            "{source}: {result:?}"
        );
    }
}

#[tokio::test]
async fn a_symlink_loop_is_an_error_value() {
    let t = tree();
    let root = t.root.path();
    symlink(root.join("skills/loop-b"), root.join("skills/loop-a")).unwrap();
    symlink(root.join("skills/loop-a"), root.join("skills/loop-b")).unwrap();
    let backend = FilesystemBackend::new(root).unwrap();
    assert!(matches!(
        backend.ls_info("/skills/loop-a").await,
        Err(BackendError::InvalidPath { .. })
    ));
    assert_eq!(
        download_kind(&backend, "/skills/loop-a/SKILL.md").await,
        Some(FileErrorKind::InvalidPath)
    );
    // The loop does not stop discovery of the rest.
    assert_eq!(list_skills(&backend, "/skills").await.unwrap().skills.len(), 1);
}

#[tokio::test]
async fn host_paths_must_stay_under_the_root() {
    let t = tree();
    let backend = FilesystemBackend::new(t.root.path())
        .unwrap()
        .with_virtual_mode(false)
        .unwrap();
    let root = backend.root_path().to_owned();
    let inside = format!("{root}/skills/web/SKILL.md");
    assert_eq!(
        backend.download_files(&[inside]).await[0].content.as_deref(),
        Some(SKILL.as_bytes())
    );
    let outside = t.outside.join("secret.txt").to_str().unwrap().to_owned();
    assert_eq!(
        download_kind(&backend, &outside).await,
        Some(FileErrorKind::InvalidPath)
    );
    assert!(matches!(
        backend.ls_info("/").await,
        Err(BackendError::InvalidPath { .. })
    ));
    // A sibling whose name starts with the root's name is still outside.
    assert_eq!(
        download_kind(&backend, &format!("{root}x/SKILL.md")).await,
        Some(FileErrorKind::InvalidPath)
    );
}

#[tokio::test]
async fn special_files_are_neither_listed_nor_read() {
    let t = tree();
    let root = t.root.path();
    let fifo = root.join("skills/web/pipe");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let backend = FilesystemBackend::new(root).unwrap();
    let files = listed(&backend, "/skills/web").await;
    assert_eq!(files, ["/skills/web/SKILL.md"]);
    // Reading a FIFO would block forever without a writer; it must answer at once.
    assert_eq!(
        download_kind(&backend, "/skills/web/pipe").await,
        Some(FileErrorKind::Other)
    );
}

#[tokio::test]
async fn files_over_the_size_limit_are_too_large() {
    let t = tree();
    let backend = FilesystemBackend::new(t.root.path()).unwrap().with_max_file_size(8);
    assert_eq!(
        download_kind(&backend, "/skills/web/SKILL.md").await,
        Some(FileErrorKind::TooLarge)
    );
    let listing = list_skills(&backend, "/skills").await.unwrap();
    assert!(listing.skills.is_empty());
    assert_eq!(listing.diagnostics[0].kind, skills_core::DiagnosticKind::TooLarge);
}

#[tokio::test]
async fn non_utf8_names_are_skipped() {
    use std::os::unix::ffi::OsStrExt;
    let t = tree();
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff");
    std::fs::create_dir(t.root.path().join("skills").join(name)).unwrap();
    let backend = FilesystemBackend::new(t.root.path()).unwrap();
    let names = listed(&backend, "/skills").await;
    assert_eq!(names, ["/skills/web"]);
}

#[test]
fn a_missing_or_file_root_is_refused() {
    let t = tree();
    let err = FilesystemBackend::new(t.root.path().join("nope")).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    let err = FilesystemBackend::new(t.root.path().join("skills/web/SKILL.md")).unwrap_err();
    assert!(err.to_string().contains("not a directory"), "{err}");
}

#[test]
fn works_on_any_runtime_and_without_one() {
    let t = tree();
    let backend = FilesystemBackend::new(t.root.path()).unwrap();
    let current = tokio::runtime::Builder::new_current_thread().build().unwrap();
    assert_eq!(
        current.block_on(list_skills(&backend, "/skills")).unwrap().skills[0].name,
        "web"
    );
    // From a handle's block_on, a context that does not allow block_in_place.
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let listing = multi.handle().block_on(list_skills(&backend, "/skills")).unwrap();
    assert_eq!(listing.skills[0].name, "web");
    // No runtime at all: a hand-rolled executor polls the future.
    let listing = poll_to_completion(list_skills(&backend, "/skills")).unwrap();
    assert_eq!(listing.skills[0].name, "web");
}

#[tokio::test]
async fn a_skill_md_link_counts_only_inside_the_root() {
    let t = tree();
    let root = t.root.path();
    std::fs::create_dir_all(root.join("skills/leak")).unwrap();
    symlink(t.outside.join("evil/SKILL.md"), root.join("skills/leak/SKILL.md")).unwrap();
    write(root, "shared/docs.md", "---\nname: docs\ndescription: Shared\n---\n");
    std::fs::create_dir_all(root.join("skills/docs")).unwrap();
    symlink("../../shared/docs.md", root.join("skills/docs/SKILL.md")).unwrap();
    std::fs::create_dir_all(root.join("skills/loop")).unwrap();
    symlink("SKILL.md", root.join("skills/loop/SKILL.md")).unwrap();
    let backend = FilesystemBackend::new(root).unwrap();

    let found = backend.child_files("/skills", "SKILL.md").await.unwrap();
    let files: Vec<_> = found
        .entries
        .iter()
        .filter(|e| !e.is_dir)
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(files, ["/skills/docs/SKILL.md", "/skills/web/SKILL.md"]);
    let listing = list_skills(&backend, "/skills").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["docs", "web"]);
    assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
}

/// Gives `path` to another user (`nobody`) where the test may (as root); `false` where it
/// may not, and then the strict policy stands in for the owner check.
fn give_away(path: &std::path::Path) -> bool {
    std::os::unix::fs::chown(path, Some(65534), Some(65534)).is_ok()
}

#[tokio::test]
async fn hard_links_to_another_users_files_are_listed_but_not_read() {
    let t = tree();
    let root = t.root.path();
    // Both temporary directories live on one file system, as a hard link needs.
    std::fs::hard_link(t.outside.join("secret.txt"), root.join("skills/web/notes.txt")).unwrap();
    std::fs::create_dir_all(root.join("skills/evil")).unwrap();
    std::fs::hard_link(t.outside.join("evil/SKILL.md"), root.join("skills/evil/SKILL.md")).unwrap();
    let given_away = give_away(&t.outside.join("secret.txt")) && give_away(&t.outside.join("evil/SKILL.md"));
    let policy = if given_away {
        HardLinks::SameOwner
    } else {
        HardLinks::Refuse
    };
    let backend = FilesystemBackend::new(root).unwrap().with_hard_links(policy);
    assert!(
        listed(&backend, "/skills/web")
            .await
            .contains(&"/skills/web/notes.txt".to_owned())
    );
    let answer = backend
        .download_files(&["/skills/web/notes.txt".into()])
        .await
        .remove(0);
    let error = answer.error.unwrap();
    assert_eq!(error.kind, FileErrorKind::InvalidPath);
    assert!(error.message.contains("2 hard links"), "{}", error.message);
    if given_away {
        assert!(error.message.contains("another user"), "{}", error.message);
    }
    assert!(answer.content.is_none());

    // A hard-linked SKILL.md is a skipped skill whose diagnostic says why.
    let listing = list_skills(&backend, "/skills").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["web"]);
    assert_eq!(listing.diagnostics.len(), 1, "{:?}", listing.diagnostics);
    assert_eq!(listing.diagnostics[0].path, "/skills/evil/SKILL.md");
    assert!(listing.diagnostics[0].message.contains("hard links"));
    assert!(!listing.diagnostics[0].message.contains("FilesystemBackend"));

    // `refuse` refuses whatever the owner; `allow` reads them (a root you trust).
    let strict = FilesystemBackend::new(root).unwrap().with_hard_links(HardLinks::Refuse);
    let answer = strict.download_files(&["/skills/web/notes.txt".into()]).await.remove(0);
    assert!(answer.error.unwrap().message.contains("`refuse`"));
    let trusting = FilesystemBackend::new(root).unwrap().with_hard_links(HardLinks::Allow);
    let answer = trusting
        .download_files(&["/skills/web/notes.txt".into()])
        .await
        .remove(0);
    assert_eq!(answer.content.as_deref(), Some(&b"secret"[..]));
}

#[tokio::test]
async fn a_users_own_hard_linked_copy_elsewhere_never_hides_the_original() {
    let t = tree();
    let root = t.root.path();
    // A de-duplicating tool or `cp -al` made a copy of the library elsewhere.
    std::fs::create_dir_all(t.outside.join("backup/web")).unwrap();
    std::fs::hard_link(root.join("skills/web/SKILL.md"), t.outside.join("backup/web/SKILL.md")).unwrap();
    let backend = FilesystemBackend::new(root).unwrap();
    let listing = list_skills(&backend, "/skills").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"web"), "{names:?} {:?}", listing.diagnostics);
    assert!(listing.diagnostics.iter().all(|d| !d.message.contains("hard links")));
    // The strict policy is still there for who wants it.
    let strict = FilesystemBackend::new(root).unwrap().with_hard_links(HardLinks::Refuse);
    let listing = list_skills(&strict, "/skills").await.unwrap();
    assert!(!listing.skills.iter().any(|s| s.name == "web"));
}

#[tokio::test]
async fn a_skill_directory_linked_to_the_file_system_root_is_neither_listed_nor_read() {
    let t = tree();
    let root = t.root.path();
    symlink("/", root.join("skills/rootfs")).unwrap();
    symlink("/etc", root.join("skills/web/etc")).unwrap();
    for virtual_mode in [true, false] {
        let backend = FilesystemBackend::new(root)
            .unwrap()
            .with_virtual_mode(virtual_mode)
            .unwrap();
        let base = if virtual_mode {
            String::new()
        } else {
            root.canonicalize().unwrap().to_str().unwrap().to_owned()
        };
        let skills = format!("{base}/skills");
        assert!(!listed(&backend, &skills).await.iter().any(|p| p.ends_with("rootfs")));
        let walk = backend.walk(&skills, 3).await.unwrap();
        assert!(
            walk.entries
                .iter()
                .all(|e| !e.path.contains("rootfs") && !e.path.contains("/etc")),
            "{:?}",
            walk.entries
        );
        for path in ["rootfs", "rootfs/etc", "web/etc"] {
            assert!(
                matches!(
                    backend.ls_info(&format!("{skills}/{path}")).await,
                    Err(BackendError::InvalidPath { .. })
                ),
                "{path}"
            );
        }
        for file in [
            "rootfs/etc/passwd",
            "rootfs/proc/self/environ",
            "web/etc/passwd",
            "rootfs/SKILL.md",
        ] {
            assert_eq!(
                download_kind(&backend, &format!("{skills}/{file}")).await,
                Some(FileErrorKind::InvalidPath),
                "{file}"
            );
        }
        let listing = list_skills(&backend, &skills).await.unwrap();
        assert_eq!(listing.skills.len(), 1);
    }
}

//! What a `GitBackend` serves: branch, tag and commit pinning, sub-directories, refreshes,
//! and the cases where it must keep the last good commit.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_backend_git::test_support::TestRepo;
use skills_backend_git::{GitBackend, GitError, GitRef};
use skills_core::{BackendError, BackendProtocol, FileErrorKind, list_skills};

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn open(repo: &TestRepo, reference: GitRef) -> GitBackend {
    GitBackend::open(repo.path())
        .reference(reference)
        .subdir("skills")
        .unwrap()
        .open()
        .unwrap()
}

async fn description(backend: &GitBackend, name: &str) -> Option<String> {
    let listing = list_skills(backend, "/").await.ok()?;
    listing
        .skills
        .into_iter()
        .find(|s| s.name == name)
        .map(|s| s.description)
}

#[tokio::test]
async fn branch_follows_tag_and_commit_stay_pinned() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "v1"));
    let first = repo.commit("main", "v1");
    repo.tag("v1", first);
    repo.write("skills/web/SKILL.md", skill("web", "v2"));
    let second = repo.commit("main", "v2");

    let branch = open(&repo, GitRef::Branch("main".into()));
    let head = open(&repo, GitRef::Head);
    let tag = open(&repo, GitRef::Tag("v1".into()));
    let commit = open(&repo, GitRef::Commit(first.to_string()));
    let by_name = open(&repo, GitRef::parse("v1").unwrap()); // no branch v1: the tag
    assert_eq!(branch.commit_id(), second.to_string());
    assert_eq!(head.commit_id(), second.to_string());
    assert_eq!(tag.commit_id(), first.to_string());
    assert_eq!(commit.commit_id(), first.to_string());
    assert_eq!(by_name.commit_id(), first.to_string());
    assert_eq!(description(&branch, "web").await.as_deref(), Some("v2"));
    assert_eq!(description(&tag, "web").await.as_deref(), Some("v1"));

    repo.write("skills/web/SKILL.md", skill("web", "v3"));
    repo.write("skills/pdf/SKILL.md", skill("pdf", "new"));
    let third = repo.commit("main", "v3");
    // Nothing moves before a refresh.
    assert_eq!(description(&branch, "web").await.as_deref(), Some("v2"));
    let refreshed = branch.refresh().unwrap().unwrap();
    assert_eq!(
        (refreshed.from, refreshed.to.clone()),
        (second.to_string(), third.to_string())
    );
    assert_eq!(refreshed.changed, ["/pdf/SKILL.md", "/web/SKILL.md"]);
    assert_eq!(description(&branch, "web").await.as_deref(), Some("v3"));
    assert!(head.refresh().unwrap().is_some());
    assert_eq!(tag.refresh().unwrap(), None);
    assert_eq!(commit.refresh().unwrap(), None);
    assert_eq!(description(&commit, "web").await.as_deref(), Some("v1"));

    // A moved tag is followed.
    repo.tag("v1", third);
    assert_eq!(tag.refresh().unwrap().unwrap().to, third.to_string());
}

#[tokio::test]
async fn etags_are_blob_ids_and_only_changed_files_differ() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "a"));
    repo.write("skills/pdf/SKILL.md", skill("pdf", "b"));
    repo.commit("main", "one");
    let backend = open(&repo, GitRef::Branch("main".into()));
    let before = backend.walk("/", 2).await.unwrap().entries;
    repo.write("skills/web/SKILL.md", skill("web", "changed"));
    repo.commit("main", "two");
    let refreshed = backend.refresh().unwrap().unwrap();
    assert_eq!(refreshed.changed, ["/web/SKILL.md"]);
    let after = backend.walk("/", 2).await.unwrap().entries;
    let etag = |entries: &[skills_core::FileInfo], path: &str| {
        entries
            .iter()
            .find(|e| e.path == path)
            .and_then(|e| e.etag.clone())
            .unwrap()
    };
    assert_eq!(etag(&before, "/pdf/SKILL.md"), etag(&after, "/pdf/SKILL.md"));
    assert_ne!(etag(&before, "/web/SKILL.md"), etag(&after, "/web/SKILL.md"));
    let blob = repo.repo().revparse_single("main:skills/pdf/SKILL.md").unwrap().id();
    assert_eq!(etag(&after, "/pdf/SKILL.md"), blob.to_string());
}

#[tokio::test]
async fn a_sub_directory_is_the_root_and_nothing_outside_is_reachable() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "in"));
    repo.write("secret.txt", "outside the sub-directory");
    repo.commit("main", "one");
    let backend = open(&repo, GitRef::Branch("main".into()));
    let names: Vec<_> = backend
        .ls_info("/")
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(names, ["/web"]);
    for path in ["/secret.txt", "/../secret.txt", "/web/../../secret.txt"] {
        let answer = backend.download_files(&[path.to_owned()]).await;
        let kind = answer[0].error.as_ref().map(|e| e.kind);
        assert!(
            matches!(kind, Some(FileErrorKind::FileNotFound | FileErrorKind::InvalidPath)),
            "{path}: {kind:?}"
        );
        assert!(answer[0].content.is_none());
    }

    // A commit without the sub-directory serves nothing (NotFound) until one has it.
    let mut other = TestRepo::new();
    other.write("elsewhere/x.txt", "x");
    other.commit("main", "no skills dir");
    let backend = open(&other, GitRef::Head);
    assert!(matches!(backend.ls_info("/").await, Err(BackendError::NotFound { .. })));
    other.write("skills/web/SKILL.md", skill("web", "arrived"));
    other.commit("main", "skills dir");
    assert_eq!(backend.refresh().unwrap().unwrap().changed, ["/web/SKILL.md"]);
    assert_eq!(description(&backend, "web").await.as_deref(), Some("arrived"));
}

#[tokio::test]
async fn force_push_to_unrelated_history_and_deleted_branch_keep_the_last_good_commit() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "good"));
    let good = repo.commit("main", "good");
    let backend = open(&repo, GitRef::Branch("main".into()));

    repo.remove("skills/web");
    repo.write("skills/evil/SKILL.md", skill("evil", "unrelated"));
    repo.commit_unrelated("main", "rewrite");
    let error = backend.refresh().unwrap_err();
    assert!(matches!(error, GitError::Resolve { .. }), "{error:?}");
    assert_eq!(backend.commit_id(), good.to_string());
    let problem = backend.problem().unwrap();
    assert!(problem.contains("shares no history"), "{problem}");
    assert_eq!(description(&backend, "web").await.as_deref(), Some("good"));
    // Discovery shows why, as a warning, and still lists the skills.
    let listing = list_skills(&backend, "/").await.unwrap();
    assert!(
        listing
            .diagnostics
            .iter()
            .any(|d| d.kind.as_str() == "source-stale" && d.message.contains("no history"))
    );

    // A related rewrite (an amended commit shares its parent's history) is followed.
    let mut fresh = TestRepo::new();
    fresh.write("skills/web/SKILL.md", skill("web", "base"));
    fresh.commit("main", "base");
    fresh.write("skills/web/SKILL.md", skill("web", "one"));
    fresh.commit("main", "one");
    let follower = open(&fresh, GitRef::Branch("main".into()));
    let base = fresh.repo().revparse_single("main~1").unwrap().id();
    fresh.repo().reference("refs/heads/main", base, true, "reset").unwrap();
    fresh.write("skills/web/SKILL.md", skill("web", "amended"));
    fresh.commit("main", "amended");
    assert!(follower.refresh().unwrap().is_some());
    assert_eq!(description(&follower, "web").await.as_deref(), Some("amended"));
    assert_eq!(follower.problem(), None);

    // A deleted branch: keep serving, say why.
    fresh.delete_branch("main");
    let before = follower.commit_id();
    assert!(follower.refresh().is_err());
    assert_eq!(follower.commit_id(), before);
    assert!(follower.problem().unwrap().contains("does not exist"));
    assert_eq!(description(&follower, "web").await.as_deref(), Some("amended"));
}

#[test]
fn opening_errors_are_clear_and_hide_passwords() {
    let missing = TestRepo::new();
    let error = GitBackend::open(missing.path())
        .reference(GitRef::Branch("main".into()))
        .open()
        .unwrap_err();
    assert!(error.to_string().contains("main does not exist"), "{error}");
    let error = GitBackend::open("/nonexistent/repo").open().unwrap_err();
    assert!(matches!(error, GitError::Git { .. }), "{error:?}");

    let cache = tempfile::tempdir().unwrap();
    let error = GitBackend::remote("https://me:tok3n-value@127.0.0.1:1/x.git", cache.path())
        .open()
        .unwrap_err();
    let text = format!("{error} {error:?}");
    assert!(!text.contains("tok3n-value"), "{text}");
    assert!(text.contains("127.0.0.1:1"), "{text}");
}

#[tokio::test]
async fn symbolic_links_in_a_tree_are_never_listed_or_followed() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "in"));
    repo.link("skills/rootfs", "/");
    repo.link("skills/web/passwd", "/etc/passwd");
    repo.link("skills/web/up", "../../..");
    repo.link("skills/evil/SKILL.md", "/etc/passwd");
    repo.commit("main", "links");
    let backend = open(&repo, GitRef::Branch("main".into()));
    let walk = backend.walk("/", 3).await.unwrap();
    let paths: Vec<_> = walk.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/evil", "/web", "/web/SKILL.md"], "links are not served");
    for path in [
        "/rootfs",
        "/rootfs/etc/passwd",
        "/web/passwd",
        "/web/up",
        "/web/up/etc/passwd",
        "/evil/SKILL.md",
    ] {
        let answer = backend.download_files(&[path.to_owned()]).await.remove(0);
        let kind = answer.error.as_ref().map(|e| e.kind);
        assert!(
            matches!(kind, Some(FileErrorKind::InvalidPath | FileErrorKind::FileNotFound)),
            "{path}: {answer:?}"
        );
        assert!(answer.content.is_none());
    }
    assert!(backend.ls_info("/rootfs").await.is_err());
    let listing = list_skills(&backend, "/").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["web"]);
}

/// Large folders are looked up through a name index; what is found, missing, a link or
/// a file used as a folder answers exactly as in a small folder, packed or loose.
#[tokio::test]
async fn lookups_in_large_folders_answer_as_in_small_ones() {
    let mut repo = TestRepo::new();
    for i in 0..600 {
        let name = format!("s{i:03}");
        repo.write(&format!("skills/{name}/SKILL.md"), skill(&name, &format!("number {i}")));
    }
    repo.link("skills/s999", "/etc");
    repo.commit("main", "many");
    for packed in [false, true] {
        if packed {
            repo.pack("main");
        }
        let backend = open(&repo, GitRef::Branch("main".into()));
        let listing = list_skills(&backend, "/").await.unwrap();
        assert_eq!(listing.skills.len(), 600, "packed: {packed}");
        assert_eq!(listing.skills[599].description, "number 599");
        let asked = [
            "/s000/SKILL.md",
            "/s599/SKILL.md",
            "/s600/SKILL.md",
            "/s999/passwd",
            "/s001/SKILL.md/x",
            "/s002",
        ];
        let answers = backend.download_files(&asked.map(str::to_owned)).await;
        let kinds: Vec<_> = answers.iter().map(|a| a.error.as_ref().map(|e| e.kind)).collect();
        assert_eq!(
            kinds,
            [
                None,
                None,
                Some(FileErrorKind::FileNotFound),
                Some(FileErrorKind::FileNotFound),
                Some(FileErrorKind::FileNotFound),
                Some(FileErrorKind::IsDirectory),
            ],
            "packed: {packed}"
        );
        assert_eq!(
            answers[1].content.as_deref(),
            Some(skill("s599", "number 599").as_bytes())
        );
        assert!(matches!(
            backend.ls_info("/s600").await,
            Err(BackendError::NotFound { .. })
        ));
        assert_eq!(backend.ls_info("/s042").await.unwrap()[0].path, "/s042/SKILL.md");
    }
}

/// The file of a loose object in a bare repository.
fn loose_object(repo: &TestRepo, spec: &str) -> std::path::PathBuf {
    let id = repo.repo().revparse_single(spec).unwrap().id().to_string();
    repo.path().join("objects").join(&id[..2]).join(&id[2..])
}

/// Replaces a file's bytes (loose objects are read-only); returns the old bytes.
fn overwrite(path: &std::path::Path, bytes: &[u8]) -> Vec<u8> {
    let old = std::fs::read(path).unwrap();
    let mut permissions = std::fs::metadata(path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)] // The test owns the file.
    permissions.set_readonly(false);
    std::fs::set_permissions(path, permissions).unwrap();
    std::fs::write(path, bytes).unwrap();
    old
}

#[tokio::test]
async fn a_corrupted_object_keeps_the_last_good_skill_and_a_repair_is_picked_up() {
    use skills_catalog::{CatalogChange, SkillCatalog, SkillSource};
    let mut repo = TestRepo::new();
    repo.write("skills/alpha/SKILL.md", skill("alpha", "A1"));
    repo.write("skills/beta/SKILL.md", skill("beta", "B1"));
    repo.commit("main", "one");
    let backend = std::sync::Arc::new(open(&repo, GitRef::Branch("main".into())));
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/")]);
    assert_eq!(catalog.ensure_loaded().await.skills().len(), 2);

    // The next commit's beta blob is damaged on disk.
    repo.write("skills/beta/SKILL.md", skill("beta", "B2"));
    repo.commit("main", "two");
    let blob = loose_object(&repo, "main:skills/beta/SKILL.md");
    let good = overwrite(&blob, b"\x78\x9c garbage, not zlib");
    backend.refresh().unwrap();
    let event = catalog.reload().await.expect("the damage is news");
    let snapshot = catalog.snapshot();
    assert_eq!(snapshot.get("beta").unwrap().description, "B1", "the last good version");
    assert!(
        event
            .changes
            .iter()
            .any(|c| matches!(c, CatalogChange::KeptLastGood { name, .. } if name == "beta")),
        "{:?}",
        event.changes
    );
    let problem = snapshot
        .diagnostics()
        .iter()
        .find(|d| d.kind == skills_core::DiagnosticKind::ReadFailed)
        .expect("a typed read failure");
    assert_eq!(problem.path, "/beta/SKILL.md");

    // The object is repaired (restored from a good copy): the next reload serves it.
    overwrite(&blob, &good);
    catalog.reload().await.expect("the repair is news");
    let snapshot = catalog.snapshot();
    assert_eq!(snapshot.get("beta").unwrap().description, "B2");
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());
}

#[test]
fn a_repository_with_a_damaged_commit_or_no_objects_is_a_typed_opening_error() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", skill("web", "Web"));
    repo.commit("main", "one");
    let commit = loose_object(&repo, "main");
    overwrite(&commit, b"not an object");
    let error = GitBackend::open(repo.path()).open().unwrap_err();
    assert!(
        matches!(error, GitError::Git { .. } | GitError::Resolve { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("repo.git"), "names the repository: {error}");

    std::fs::remove_dir_all(repo.path().join("objects")).unwrap();
    let error = GitBackend::open(repo.path()).open().unwrap_err();
    assert!(
        matches!(error, GitError::Git { .. } | GitError::Resolve { .. }),
        "{error:?}"
    );
}

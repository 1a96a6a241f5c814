//! `skip_hash_checks_on_reads` turns off, for the whole process, libgit2's check of each
//! object it reads against its id: what it trades. Alone in its test binary, since the
//! option is process-wide.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_backend_git::test_support::TestRepo;
use skills_backend_git::{GitBackend, GitRef};
use skills_core::BackendExt;

fn loose_object(repo: &TestRepo, spec: &str) -> std::path::PathBuf {
    let id = repo.repo().revparse_single(spec).unwrap().id().to_string();
    repo.path().join("objects").join(&id[..2]).join(&id[2..])
}

#[tokio::test]
async fn an_object_swapped_on_disk_is_refused_only_while_hashes_are_checked() {
    let mut repo = TestRepo::new();
    repo.write("skills/alpha/SKILL.md", "---\nname: alpha\ndescription: A\n---\n");
    repo.write("skills/beta/SKILL.md", "---\nname: beta\ndescription: B\n---\n");
    repo.commit("main", "one");
    // alpha's object file now holds beta's object: a valid object, under another id.
    let alpha = loose_object(&repo, "main:skills/alpha/SKILL.md");
    let beta = std::fs::read(loose_object(&repo, "main:skills/beta/SKILL.md")).unwrap();
    let mut permissions = std::fs::metadata(&alpha).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)] // The test owns the file.
    permissions.set_readonly(false);
    std::fs::set_permissions(&alpha, permissions).unwrap();
    std::fs::write(&alpha, beta).unwrap();
    let open = || {
        GitBackend::open(repo.path())
            .reference(GitRef::Branch("main".into()))
            .open()
            .unwrap()
    };

    let checked = open().download_file("/skills/alpha/SKILL.md").await;
    assert!(checked.is_err(), "{checked:?}");
    // SAFETY: this test binary runs this one test; no other thread uses libgit2 now.
    #[allow(unsafe_code)]
    unsafe {
        skills_backend_git::skip_hash_checks_on_reads();
    }
    let unchecked = open().download_file("/skills/alpha/SKILL.md").await.unwrap();
    assert!(String::from_utf8(unchecked).unwrap().contains("name: beta"));
}

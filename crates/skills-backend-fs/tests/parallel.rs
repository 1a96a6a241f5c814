//! Large listings and batches of reads spread over threads: the answers are the same as
//! on one thread, in the same order, on any runtime and without one.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::symlink;
use std::path::Path;

mod common;

use common::poll_to_completion;
use skills_backend_fs::FilesystemBackend;
use skills_core::{BackendProtocol, Discovery, FileDownloadResponse, Walk};

const SKILLS: usize = 300;

/// A source of 300 skills with a reference each, an outward link every 50 skills (never
/// listed), and a folder without a `SKILL.md`.
fn library(root: &Path, outside: &Path) {
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    for i in 0..SKILLS {
        let dir = root.join(format!("src/s{i:03}"));
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: s{i:03}\ndescription: skill {i}\n---\nbody {i}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("references/guide.md"), format!("guide {i}")).unwrap();
        if i % 50 == 0 {
            symlink(outside.join("secret.txt"), dir.join("references/leak.md")).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("src/empty/scripts")).unwrap();
}

fn paths(walk: &Walk) -> Vec<String> {
    walk.entries.iter().map(|e| e.path.clone()).collect()
}

/// Every SKILL.md, each followed by a missing file and a directory, so one batch mixes
/// answers.
fn requests() -> Vec<String> {
    (0..SKILLS)
        .flat_map(|i| {
            [
                format!("/src/s{i:03}/SKILL.md"),
                format!("/src/s{i:03}/missing.md"),
                format!("/src/s{i:03}/references"),
            ]
        })
        .chain(["/src/../outside.md".to_owned()])
        .collect()
}

fn summary(responses: &[FileDownloadResponse]) -> Vec<(String, Option<Vec<u8>>, Option<String>)> {
    responses
        .iter()
        .map(|r| {
            let error = r.error.as_ref().map(|e| format!("{:?}", e.kind));
            (r.path.clone(), r.content.clone(), error)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spread_over_threads_the_answers_match_one_thread() {
    let (root, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    library(root.path(), outside.path());
    let serial = FilesystemBackend::new(root.path()).unwrap().with_parallelism(1);
    let parallel = FilesystemBackend::new(root.path()).unwrap().with_parallelism(4);
    assert_eq!(parallel.parallelism(), 4);
    assert_eq!(
        FilesystemBackend::new(root.path())
            .unwrap()
            .with_parallelism(0)
            .parallelism(),
        1
    );

    let one = serial.walk("/src", 3).await.unwrap();
    let many = parallel.walk("/src", 3).await.unwrap();
    assert_eq!(one, many);
    // Sorted, complete, and the outward links left out.
    let listed = paths(&many);
    assert!(listed.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(listed.iter().filter(|p| p.ends_with("/SKILL.md")).count(), SKILLS);
    assert_eq!(listed.iter().filter(|p| p.ends_with("/guide.md")).count(), SKILLS);
    assert!(listed.contains(&"/src/empty/scripts".to_owned()));
    assert!(!listed.iter().any(|p| p.ends_with("leak.md")), "outward link listed");
    // Depth is kept on every thread.
    let shallow = parallel.walk("/src", 2).await.unwrap();
    assert!(!paths(&shallow).iter().any(|p| p.ends_with("guide.md")));
    assert_eq!(shallow, serial.walk("/src", 2).await.unwrap());

    // One stat per folder gives what a two-level listing would.
    let files = parallel.child_files("/src", "SKILL.md").await.unwrap();
    assert_eq!(files, serial.child_files("/src", "SKILL.md").await.unwrap());
    let mut filtered = serial.walk("/src", 2).await.unwrap();
    filtered
        .entries
        .retain(|e| e.path.matches('/').count() == 2 || e.path.ends_with("/SKILL.md"));
    assert_eq!(files, filtered);
    assert_eq!(files.entries.len(), 2 * SKILLS + 1);

    let asked = requests();
    let one = serial.download_files(&asked).await;
    let many = parallel.download_files(&asked).await;
    assert_eq!(summary(&one), summary(&many));
    assert_eq!(many.len(), asked.len());
    for (i, (response, path)) in many.iter().zip(&asked).enumerate() {
        assert_eq!(&response.path, path, "answer {i} out of order");
    }
    assert_eq!(
        many[3 * 7].content.as_deref(),
        Some(&b"---\nname: s007\ndescription: skill 7\n---\nbody 7\n"[..])
    );
    assert!(many[3 * 7 + 1].error.is_some() && many[3 * 7 + 2].error.is_some());
    assert!(many.last().unwrap().content.is_none());

    let discovered = Discovery::new(&parallel, "/src").resources(true).run().await.unwrap();
    assert_eq!(
        discovered,
        Discovery::new(&serial, "/src").resources(true).run().await.unwrap()
    );
    assert_eq!(discovered.skills.len(), SKILLS);
}

#[test]
fn spread_over_threads_works_on_any_runtime_and_without_one() {
    let (root, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    library(root.path(), outside.path());
    let backend = FilesystemBackend::new(root.path()).unwrap().with_parallelism(4);
    let expected = SKILLS;
    let current = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let found = current
        .block_on(Discovery::new(&backend, "/src").resources(true).run())
        .unwrap();
    assert_eq!(found.skills.len(), expected);
    let found = poll_to_completion(Discovery::new(&backend, "/src").resources(true).run()).unwrap();
    assert_eq!(found.skills.len(), expected);
    assert_eq!(found.resources["s299"].len(), 1);
}

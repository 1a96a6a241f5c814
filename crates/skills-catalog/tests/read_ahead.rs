//! A first start with nothing kept for a source in the persistent cache reads each of its
//! `SKILL.md` files as the walk finds it, once; a start with anything kept (a listing or
//! parses) walks without reading, and reads only what changed. Either way the catalog
//! says what a catalog without a cache says.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::{Counting, catalog, listed, remove_cache_files};
use skills_backend_fs::FilesystemBackend;
use skills_catalog::PersistentCache;
use skills_core::BackendProtocol;

const SKILLS: usize = 150;

fn library(root: &Path) {
    for i in 0..SKILLS {
        let dir = root.join(format!("skills/skill-{i:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("---\nname: skill-{i:03}\ndescription: About {i}\n---\nHow to do {i}.\n");
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    // One skipped (its diagnostic is kept too) and one the walk does not read ahead.
    std::fs::create_dir_all(root.join("skills/broken")).unwrap();
    std::fs::write(root.join("skills/broken/SKILL.md"), "---\nname: [x\n---\n").unwrap();
    std::fs::create_dir_all(root.join("skills/linked")).unwrap();
    std::fs::write(
        root.join("skills/linked/body.md"),
        "---\nname: linked\ndescription: Through a link\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("body.md", root.join("skills/linked/SKILL.md")).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_start_with_nothing_kept_reads_while_it_walks() {
    let (lib, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    library(lib.path());
    // Files written a moment ago would be racy, and not kept, under the usual window.
    let cache = PersistentCache::new(dir.path()).with_racy_window(Duration::ZERO);
    let disk: Arc<dyn BackendProtocol> = Arc::new(FilesystemBackend::new(lib.path()).unwrap());
    let uncached = listed(&catalog(disk.clone(), None)).await;
    let backend = Counting::new(disk.clone());

    // Cold: every file read once, all but the link as the walk found them.
    assert_eq!(listed(&catalog(backend.clone(), Some(&cache))).await, uncached);
    assert_eq!(backend.take_read_ahead(), SKILLS + 1);
    assert_eq!(backend.take(), SKILLS + 2);

    // Warm, from the kept listing: nothing read.
    assert_eq!(listed(&catalog(backend.clone(), Some(&cache))).await, uncached);
    assert_eq!((backend.take_read_ahead(), backend.take()), (0, 0));

    // Only the parses kept: the walk reads nothing, and nothing changed.
    remove_cache_files(dir.path(), &["listing"]);
    assert_eq!(listed(&catalog(backend.clone(), Some(&cache))).await, uncached);
    assert_eq!((backend.take_read_ahead(), backend.take()), (0, 0));

    // An edit: that file alone is read, after the walk.
    let edited = lib.path().join("skills/skill-007/SKILL.md");
    std::fs::write(&edited, "---\nname: skill-007\ndescription: Edited\n---\n").unwrap();
    let after_edit = listed(&catalog(disk.clone(), None)).await;
    assert_eq!(listed(&catalog(backend.clone(), Some(&cache))).await, after_edit);
    assert_eq!((backend.take_read_ahead(), backend.take()), (0, 1));

    // Nothing kept any more: read while walked again.
    remove_cache_files(dir.path(), &["listing", "cache"]);
    assert_eq!(listed(&catalog(backend.clone(), Some(&cache))).await, after_edit);
    assert_eq!(backend.take_read_ahead(), SKILLS + 1);
}

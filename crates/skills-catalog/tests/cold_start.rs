//! A cold start with the persistent cache writes each parse to the cache file as it reads
//! it, instead of holding every parse until discovery ends: the file is whole when the
//! start ends, nothing of the write is left behind, and the catalog that wrote it reads
//! its parses back from it when it needs them.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;

use common::{Counting, cache_files, catalog, listed, remove_cache_files};
use skills_catalog::PersistentCache;
use skills_core::MemoryBackend;

const NAMES: &[&str] = &["pdf", "web", "deploy", "review", "charts"];

fn library() -> Arc<MemoryBackend> {
    let backend = Arc::new(MemoryBackend::new());
    for name in NAMES {
        let text = format!("---\nname: {name}\ndescription: About {name}\n---\nHow to {name}.\n");
        backend.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
    }
    // A file that is skipped: its parse (a diagnostic) is cached too.
    backend
        .insert("/skills/broken/SKILL.md", "---\nname: [x\n---\n")
        .unwrap();
    backend
}

#[tokio::test]
async fn a_cold_start_writes_its_parses_as_it_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let memory = library();
    let backend = Counting::new(memory.clone());

    let cold = catalog(backend.clone(), Some(&cache));
    assert_eq!(listed(&cold).await, listed(&catalog(library(), None)).await);
    assert_eq!(backend.take(), NAMES.len() + 1);
    // The parses and the listing, and nothing else: no temporary file is left.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path().extension().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["cache", "listing"]);

    // The parses file is whole: without the kept listing, a new start reads no file.
    remove_cache_files(dir.path(), &["listing"]);
    let warm = catalog(backend.clone(), Some(&cache));
    assert_eq!(listed(&warm).await, listed(&catalog(library(), None)).await);
    assert_eq!(backend.take(), 0);

    // The catalog that wrote the file takes its parses back from it: a reload after an
    // edit reads the edited file alone, and answers as the files do.
    memory
        .insert(
            "/skills/web/SKILL.md",
            "---\nname: web\ndescription: Browse the web\n---\nNew body.\n",
        )
        .unwrap();
    cold.reload().await;
    assert_eq!(backend.take(), 1);
    let fresh = catalog(memory.clone(), None);
    assert_eq!(listed(&cold).await, listed(&fresh).await);
    assert_eq!(cold.snapshot().get("web").unwrap().description, "Browse the web");
}

#[tokio::test]
async fn a_source_without_skills_writes_no_cache_file_at_each_start() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(dir.path());
    let files = || std::fs::read_dir(dir.path()).unwrap().flatten().count();
    // A folder with no skill in it yet (a file beside where skills would go).
    let empty = Arc::new(MemoryBackend::new());
    empty.insert("/skills/README.md", "Skills go here.").unwrap();
    for _ in 0..2 {
        let start = catalog(empty.clone(), Some(&cache));
        assert_eq!(start.ensure_loaded().await.skills().len(), 0);
        assert_eq!(files(), 0, "nothing to keep, nothing written");
    }

    // A source whose skills were all removed forgets their parses once, then its cache
    // file stays as it is.
    let memory = library();
    listed(&catalog(memory.clone(), Some(&cache))).await;
    for name in NAMES.iter().chain(&["broken"]) {
        memory.remove(&format!("/skills/{name}/SKILL.md"));
    }
    let inode = || std::fs::metadata(&cache_files(dir.path(), "cache")[0]).unwrap().ino();
    let emptied = catalog(memory.clone(), Some(&cache));
    assert_eq!(emptied.ensure_loaded().await.skills().len(), 0);
    let written = inode();
    let again = catalog(memory.clone(), Some(&cache));
    assert_eq!(again.ensure_loaded().await.skills().len(), 0);
    assert_eq!(inode(), written, "the cache file was written again");
}

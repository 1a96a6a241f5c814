//! The walks discovery lists a source with: `child_files`, `child_files_only` and
//! `find_files`, each against what a plain walk finds.

use skills_core::path::join;
use skills_core::{BackendError, BackendProtocol, Discovery, FileInfo, Walk};

use crate::check::{ensure, ensure_eq};

/// Path, size and etag of every `SKILL.md` among `entries`.
fn skill_md_facts(entries: &[FileInfo]) -> Vec<(String, u64, Option<String>)> {
    entries
        .iter()
        .filter(|e| e.path.ends_with("/SKILL.md"))
        .map(|e| (e.path.clone(), e.size, e.etag.clone()))
        .collect()
}

/// The fixture's skills source and its `child_files` of `SKILL.md`.
async fn skills_source_child_files(b: &dyn BackendProtocol, root: &str) -> (String, Walk) {
    let source = join(root, "skills");
    let found = b.child_files(&source, "SKILL.md").await;
    (source, found.unwrap_or_else(|e| panic!("{e}")))
}

/// `child_files` is a two-level walk keeping only the asked name on the second level, with the same sizes and etags.
pub async fn child_files_is_a_filtered_two_level_walk(b: &dyn BackendProtocol, root: &str) {
    let (source, found) = skills_source_child_files(b, root).await;
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
    ensure_eq(got, expected, "child_files of the skills source");
    ensure(found.errors.is_empty(), || {
        format!("child_files errors: {:?}", found.errors)
    });
    // The files carry what a listing says of them: size and etag.
    let walk = b.walk(&source, 2).await.unwrap_or_else(|e| panic!("{e}"));
    ensure_eq(
        skill_md_facts(&found.entries),
        skill_md_facts(&walk.entries),
        "SKILL.md sizes and etags",
    );
    let missing = b.child_files(&join(root, "nope"), "SKILL.md").await;
    ensure(matches!(missing, Err(BackendError::NotFound { .. })), || {
        format!("missing root: expected NotFound, got {missing:?}")
    })
}

/// `child_files_only` is `child_files` without the source's own entries while they are
/// at most the number asked (the fixture's skills folder has seven), and all of
/// `child_files` over it; errors as in `child_files`.
pub async fn child_files_only_is_child_files_without_the_first_level(b: &dyn BackendProtocol, root: &str) {
    let (source, whole) = skills_source_child_files(b, root).await;
    let (first, below): (Vec<FileInfo>, Vec<FileInfo>) =
        (whole.entries.iter().cloned()).partition(|e| skills_core::path::parent(&e.path) == source);
    ensure_eq(first.len(), 7, "the entries of the fixture's skills folder");
    for (listed_over, expected) in [(7, &below), (250_000, &below), (6, &whole.entries), (0, &whole.entries)] {
        let only = (b.child_files_only(&source, "SKILL.md", listed_over).await).unwrap_or_else(|e| panic!("{e}"));
        let what = format!("child_files_only with the first level left out up to {listed_over} entries");
        ensure_eq((&only.entries, &only.errors), (expected, &whole.errors), &what);
    }
    let missing = b.child_files_only(&join(root, "nope"), "SKILL.md", 7).await;
    ensure(matches!(missing, Err(BackendError::NotFound { .. })), || {
        format!("missing root: {missing:?}")
    })
}

/// `child_files_read` walks as `child_files_only` does, and whatever it reads ahead is a
/// `SKILL.md` of that walk, parsed as discovery would parse it: a discovery that reads
/// ahead lists what one that does not lists.
pub async fn child_files_read_walks_as_child_files_only(b: &dyn BackendProtocol, root: &str) {
    let source = join(root, "skills");
    for listed_over in [7, 250_000, 6, 0] {
        let only = (b.child_files_only(&source, "SKILL.md", listed_over).await).unwrap_or_else(|e| panic!("{e}"));
        let (walk, read) =
            (b.child_files_read(&source, "SKILL.md", listed_over).await).unwrap_or_else(|e| panic!("{e}"));
        let what = format!("child_files_read up to {listed_over} entries");
        ensure_eq((&walk.entries, &walk.errors), (&only.entries, &only.errors), &what);
        for path in read.paths() {
            ensure(walk.entries.iter().any(|e| e.path == path && !e.is_dir), || {
                format!("{what}: read ahead {path}, which the walk did not find")
            });
        }
    }
    let after = Discovery::new(b, &source).run().await;
    let ahead = Discovery::new(b, &source).read_ahead(true).run().await;
    ensure_eq(ahead, after, "a discovery that reads ahead");
    let missing = b.child_files_read(&join(root, "nope"), "SKILL.md", 7).await;
    ensure(matches!(missing, Err(BackendError::NotFound { .. })), || {
        format!("missing root: {:?}", missing.map(|(walk, _)| walk))
    })
}

/// `find_files` keeps every file of the asked name that a walk finds outside skill
/// folders, with the same sizes and etags, and the directories on the way.
pub async fn find_files_finds_what_a_walk_finds(b: &dyn BackendProtocol, root: &str) {
    let found = b
        .find_files(root, "SKILL.md", 4)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let walk = b.walk(root, 4).await.unwrap_or_else(|e| panic!("{e}"));
    ensure_eq(
        skill_md_facts(&found.entries),
        skill_md_facts(&walk.entries),
        "SKILL.md files found",
    );
    // The directories that can hold skill folders within the depth are all there, and
    // nothing is there that a walk does not list.
    let shallower = b.walk(root, 3).await.unwrap_or_else(|e| panic!("{e}"));
    let found_paths: Vec<&str> = found.entries.iter().map(|e| e.path.as_str()).collect();
    let missing: Vec<&str> = shallower
        .entries
        .iter()
        .filter(|e| e.is_dir && !e.path.contains("/skills/"))
        .map(|e| e.path.as_str())
        .filter(|p| !found_paths.contains(p))
        .collect();
    ensure(missing.is_empty(), || {
        format!("directories on the way left out: {missing:?}")
    });
    let walked: Vec<&str> = walk.entries.iter().map(|e| e.path.as_str()).collect();
    let invented: Vec<&str> = found_paths.iter().copied().filter(|p| !walked.contains(p)).collect();
    ensure(invented.is_empty(), || {
        format!("entries a walk does not list: {invented:?}")
    });
    let sorted = found.entries.windows(2).all(|w| w[0].path < w[1].path);
    ensure(sorted, || "find_files entries are not sorted by path".to_owned());
    let missing = b.find_files(&join(root, "nope"), "SKILL.md", 3).await;
    ensure(matches!(missing, Err(BackendError::NotFound { .. })), || {
        format!("missing root: expected NotFound, got {missing:?}")
    })
}

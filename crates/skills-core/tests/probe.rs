//! The hint for a source in which discovery finds no skill folder: skill folders
//! deeper than it looked, skill folders only in hidden folders, a source that is itself
//! a skill folder.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::atomic::{AtomicUsize, Ordering};

use skills_core::*;

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n")
}

async fn hint(b: &MemoryBackend, source: &str, depth: usize) -> Option<Diagnostic> {
    let found = Discovery::new(b, source).depth(depth).run().await.unwrap();
    assert!(found.skills.is_empty(), "{:?}", found.skills);
    let mut hints = found.diagnostics.into_iter().filter(|d| {
        matches!(
            d.kind,
            DiagnosticKind::DeeperSkills | DiagnosticKind::HiddenSkills | DiagnosticKind::SourceIsASkill
        )
    });
    let first = hints.next();
    assert!(hints.next().is_none(), "one hint at most");
    first
}

#[tokio::test]
async fn a_first_level_wider_than_the_probe_still_gets_the_deeper_hint() {
    // Owners' folders, each holding a skill folder or two (a registry laid out as
    // `skills/<owner>/<skill>`): more owners than the probe lists folders.
    let b = MemoryBackend::new();
    for i in 0..400 {
        b.insert(&format!("/reg/owner{i:03}/tool/SKILL.md"), md("tool", "d"))
            .unwrap();
        b.insert(&format!("/reg/owner{i:03}/tool/references/guide.md"), "guide")
            .unwrap();
    }
    let hint = hint(&b, "/reg", 1).await.expect("a hint");
    assert_eq!(hint.kind, DiagnosticKind::DeeperSkills);
    assert_eq!(hint.path, "/reg");
    assert!(
        hint.message.contains("but at least ")
            && hint.message.contains("such as /reg/owner000/tool/SKILL.md")
            && hint.message.contains("discover 2 levels deep"),
        "{}",
        hint.message
    );
}

#[tokio::test]
async fn skills_only_in_hidden_folders_name_the_folders_to_give_as_sources() {
    // A repository that keeps its skills in `skills/.curated`, `skills/.system` and
    // `skills/.experimental/<group>`; what is in `.git` is never a skill.
    let b = MemoryBackend::new();
    for name in ["alpha", "beta", "gamma"] {
        b.insert(&format!("/repo/skills/.curated/{name}/SKILL.md"), md(name, "d"))
            .unwrap();
    }
    b.insert("/repo/skills/.system/delta/SKILL.md", md("delta", "d"))
        .unwrap();
    b.insert("/repo/skills/.experimental/group/eps/SKILL.md", md("eps", "d"))
        .unwrap();
    b.insert("/repo/.git/hooks/x/SKILL.md", md("x", "d")).unwrap();
    b.insert("/repo/README.md", "# skills").unwrap();
    for depth in [1, 2, 8] {
        let hint = hint(&b, "/repo", depth).await.expect("a hint");
        assert_eq!(hint.kind, DiagnosticKind::HiddenSkills, "depth {depth}");
        let m = &hint.message;
        assert!(
            m.contains("but 5 in them")
                && m.contains("such as /repo/skills/.curated/alpha/SKILL.md")
                && m.ends_with(
                    ": /repo/skills/.curated, /repo/skills/.experimental with depth 2, /repo/skills/.system"
                )
                && !m.contains(".git"),
            "depth {depth}: {m}"
        );
    }
    // The folders it names are sources that find them.
    let found = list_skills(&b, "/repo/skills/.curated").await.unwrap();
    assert_eq!(found.skills.len(), 3);
    // Skills deeper than the discovery looked, outside hidden folders, are the hint
    // instead; `.git` alone is no hint.
    b.insert("/repo/plugins/p/skills/zeta/SKILL.md", md("zeta", "d"))
        .unwrap();
    let hint = hint(&b, "/repo", 1).await.expect("a hint");
    assert_eq!(hint.kind, DiagnosticKind::DeeperSkills, "{}", hint.message);
    let only_git = MemoryBackend::new();
    only_git.insert("/r/.git/hooks/x/SKILL.md", md("x", "d")).unwrap();
    only_git.insert("/r/notes/readme.md", "notes").unwrap();
    assert_eq!(self::hint(&only_git, "/r", 1).await, None);
}

#[tokio::test]
async fn a_source_that_is_a_skill_folder_says_so_at_any_depth() {
    let b = MemoryBackend::new();
    b.insert("/one/SKILL.md", md("one", "One skill")).unwrap();
    b.insert("/one/references/guide.md", "guide").unwrap();
    for depth in [1, 8] {
        let hint = hint(&b, "/one", depth).await.expect("a hint");
        assert_eq!(hint.kind, DiagnosticKind::SourceIsASkill, "depth {depth}");
    }
}

/// A memory backend that counts the folders listed one at a time (the probe's work).
#[derive(Debug)]
struct Counting {
    inner: MemoryBackend,
    listed: AtomicUsize,
}

#[async_trait::async_trait]
impl BackendProtocol for Counting {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        self.listed.fetch_add(1, Ordering::Relaxed);
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.inner.download_files(paths).await
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        self.inner.walk(path, max_depth).await
    }
}

#[tokio::test]
async fn the_probes_of_a_source_without_skills_stay_bounded() {
    // A large tree with no skill anywhere, hidden folders included: every probe runs
    // and none lists more than its share.
    let inner = MemoryBackend::new();
    for i in 0..300 {
        for j in 0..3 {
            inner
                .insert(&format!("/big/d{i:03}/e{j}/.cache/notes.txt"), "n")
                .unwrap();
        }
    }
    let b = Counting {
        inner,
        listed: AtomicUsize::new(0),
    };
    let found = Discovery::new(&b, "/big").run().await.unwrap();
    assert!(
        found.skills.is_empty() && found.diagnostics.is_empty(),
        "{:?}",
        found.diagnostics
    );
    let listed = b.listed.load(Ordering::Relaxed);
    // Each probe, and each within its budget: the first lists 256 folders and is cut;
    // the narrow one (4 of each folder's sub-folders) 1 + 4 + 12 = 17; the look into
    // hidden folders 64, cut, then 4 of each: 1 + 4 + 12 + 12 `.cache` = 29.
    assert_eq!(listed, 256 + 17 + 64 + 29);

    // A small tree seen whole, with no hidden folder: one probe, one listing a folder.
    let inner = MemoryBackend::new();
    for name in ["a", "b", "c"] {
        inner.insert(&format!("/small/{name}/notes.txt"), "n").unwrap();
    }
    let b = Counting {
        inner,
        listed: AtomicUsize::new(0),
    };
    let found = Discovery::new(&b, "/small").run().await.unwrap();
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(b.listed.load(Ordering::Relaxed), 4);
}

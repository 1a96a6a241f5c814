//! `list_skills` and `merge_last_wins` on `MemoryBackend`.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::{Arc, Mutex};

use skills_core::*;

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n")
}

#[tokio::test]
async fn list_skills_reads_one_level_and_reports_skips() {
    let b = MemoryBackend::new();
    b.insert("/src/a/SKILL.md", md("a", "A")).unwrap();
    b.insert("/src/b/SKILL.md", "no frontmatter").unwrap();
    b.insert("/src/c/readme.md", "not a skill").unwrap();
    b.insert("/src/d/nested/e/SKILL.md", md("e", "too deep")).unwrap();
    b.insert("/src/SKILL.md", md("src", "the source itself is not a skill"))
        .unwrap();
    let listing = list_skills(&b, "/src").await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a"]);
    let kinds: Vec<_> = listing.diagnostics.iter().map(|d| (d.path.as_str(), d.kind)).collect();
    assert_eq!(kinds, [("/src/b/SKILL.md", DiagnosticKind::NoFrontmatter)]);
}

#[tokio::test]
async fn list_skills_never_downloads_what_the_listing_shows_too_large() {
    let b = MemoryBackend::new().with_max_file_size(64);
    b.insert("/src/big/SKILL.md", format!("{}{}", md("big", "B"), "x".repeat(100)))
        .unwrap();
    b.insert("/src/ok/SKILL.md", md("ok", "fine")).unwrap();
    let listing = list_skills(&b, "/src").await.unwrap();
    assert_eq!(listing.skills.len(), 1);
    assert_eq!(listing.diagnostics[0].kind, DiagnosticKind::TooLarge);
    assert!(
        listing.diagnostics[0].message.contains("not read"),
        "{}",
        listing.diagnostics[0].message
    );
}

#[tokio::test]
async fn duplicate_names_in_one_source_keep_the_later_with_a_warning() {
    let b = MemoryBackend::new();
    b.insert("/src/one/SKILL.md", md("same", "first")).unwrap();
    b.insert("/src/two/SKILL.md", md("same", "second")).unwrap();
    let listing = list_skills(&b, "/src").await.unwrap();
    assert_eq!(listing.skills.len(), 1);
    assert_eq!(listing.skills[0].description, "second");
    let kinds: Vec<_> = listing.diagnostics.iter().map(|d| d.kind).collect();
    assert!(kinds.contains(&DiagnosticKind::DuplicateName), "{kinds:?}");
    // The warning sits on the folder that is hidden and names the one kept.
    let warning = listing
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::DuplicateName)
        .unwrap();
    assert_eq!(warning.path, "/src/one/SKILL.md");
    assert!(warning.message.contains("/src/two/SKILL.md"), "{}", warning.message);
    assert_eq!(listing.folders, 2);
}

#[tokio::test]
async fn source_errors_are_typed() {
    let b = MemoryBackend::new();
    b.insert("/file", "x").unwrap();
    assert!(matches!(
        list_skills(&b, "/missing").await,
        Err(SourceError::NotFound { .. })
    ));
    assert!(matches!(
        list_skills(&b, "/file").await,
        Err(SourceError::NotADirectory { .. })
    ));
    let err = list_skills(&b, "relative").await.unwrap_err();
    assert_eq!(err.to_diagnostic().kind, DiagnosticKind::SourceUnreadable);
    // An empty backend's root is an empty source, not an error.
    assert_eq!(
        list_skills(&MemoryBackend::new(), "/").await.unwrap(),
        SkillListing::default()
    );
}

#[tokio::test]
async fn merge_is_last_wins_in_first_seen_order() {
    let b = MemoryBackend::new();
    for (source, name, description) in [
        ("base", "web", "base web"),
        ("base", "pdf", "base pdf"),
        ("user", "web", "user web"),
        ("project", "sql", "project sql"),
        ("project", "web", "project web"),
    ] {
        b.insert(&format!("/{source}/{name}/SKILL.md"), md(name, description))
            .unwrap();
    }
    let mut sources = Vec::new();
    for source in ["/base", "/user", "/project"] {
        sources.push(list_skills(&b, source).await.unwrap().skills);
    }
    let merged = merge_last_wins(sources);
    let got: Vec<_> = merged
        .iter()
        .map(|m| (m.skill.name.as_str(), m.skill.description.as_str(), m.source))
        .collect();
    // Within a source skills come in path order: pdf before web.
    assert_eq!(
        got,
        [
            ("pdf", "base pdf", 0),
            ("web", "project web", 2),
            ("sql", "project sql", 2)
        ]
    );
    let hidden: Vec<_> = merged[1].shadowed.iter().map(|s| (s.source, s.path.as_str())).collect();
    assert_eq!(hidden, [(0, "/base/web/SKILL.md"), (1, "/user/web/SKILL.md")]);
}

#[tokio::test]
async fn memory_backend_edits_are_visible() {
    let b = MemoryBackend::new();
    b.insert("/s/a/SKILL.md", md("a", "A")).unwrap();
    let before = b.ls_info("/s/a").await.unwrap()[0].etag.clone();
    b.insert("/s/a/SKILL.md", md("a", "changed")).unwrap();
    let after = b.ls_info("/s/a").await.unwrap()[0].etag.clone();
    assert_ne!(before, after);
    assert_eq!(b.remove("/s/a"), 1);
    assert!(matches!(b.ls_info("/s").await, Err(BackendError::NotFound { .. })));
    assert!(matches!(b.insert("/", "x"), Err(BackendError::InvalidPath { .. })));
}

#[tokio::test]
async fn discover_source_finds_resources_with_one_walk() {
    let b = MemoryBackend::new();
    b.insert("/src/web/SKILL.md", md("web", "W")).unwrap();
    b.insert("/src/web/scripts/fetch.py", "").unwrap();
    b.insert("/src/web/scripts/lib/deep.py", "").unwrap();
    b.insert("/src/web/references/api.md", "").unwrap();
    b.insert("/src/web/template.md", "").unwrap();
    b.insert("/src/web/temp/x.txt", "").unwrap();
    b.insert("/src/plain/SKILL.md", md("plain", "P")).unwrap();
    b.insert("/src/not-a-skill/scripts/x.sh", "").unwrap();
    let found = Discovery::new(&b, "/src").resources(true).run().await.unwrap();
    let names: Vec<_> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["plain", "web"]);
    let web: Vec<_> = found.resources["web"]
        .iter()
        .map(|r| (r.path.as_str(), r.kind))
        .collect();
    assert_eq!(
        web,
        [
            ("/src/web/references/api.md", ResourceKind::Reference),
            ("/src/web/scripts/fetch.py", ResourceKind::Script),
            ("/src/web/template.md", ResourceKind::Other),
        ]
    );
    assert!(found.resources["plain"].is_empty());
    assert!(!found.resources.contains_key("not-a-skill"));
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

#[tokio::test]
async fn discover_source_keeps_a_skill_whose_sibling_prefix_has_files() {
    // `/src/web` and `/src/web-extra` share a prefix; resources must not leak between them.
    let b = MemoryBackend::new();
    b.insert("/src/web/SKILL.md", md("web", "W")).unwrap();
    b.insert("/src/web-extra/SKILL.md", md("web-extra", "X")).unwrap();
    b.insert("/src/web-extra/scripts/x.sh", "").unwrap();
    let found = Discovery::new(&b, "/src").resources(true).run().await.unwrap();
    assert!(found.resources["web"].is_empty());
    assert_eq!(found.resources["web-extra"].len(), 1);
}

#[tokio::test]
async fn parse_cache_reads_only_files_whose_etag_changed() {
    let b = MemoryBackend::new();
    for name in ["a", "b", "c"] {
        b.insert(&format!("/src/{name}/SKILL.md"), md(name, "first")).unwrap();
    }
    let mut cache = ParseCache::new();
    let first = Discovery::new(&b, "/src")
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!((first.skills.len(), cache.files_read()), (3, 3));

    let again = Discovery::new(&b, "/src")
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!(cache.files_read(), 3, "an unchanged source reads nothing");
    assert_eq!(again, first);

    b.insert("/src/b/SKILL.md", md("b", "second")).unwrap();
    let edited = Discovery::new(&b, "/src")
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!(cache.files_read(), 4, "one edit, one read");
    assert_eq!(edited.skills[1].description, "second");

    b.remove("/src/c/SKILL.md");
    let removed = Discovery::new(&b, "/src")
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!(removed.skills.len(), 2);
    assert_eq!(cache.len(), 2, "entries of deleted files are dropped");
}

/// A memory backend that records the size of every `download_files` batch.
fn batches() -> (skills_conformance::BeforeReads<MemoryBackend>, Arc<Mutex<Vec<usize>>>) {
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let seen = sizes.clone();
    let backend = skills_conformance::BeforeReads::new(MemoryBackend::new(), move |paths| {
        seen.lock().unwrap().push(paths.len());
    });
    (backend, sizes)
}

#[tokio::test]
async fn a_large_source_is_read_in_bounded_chunks_with_nothing_lost() {
    let (b, sizes) = batches();
    let count = 1_300;
    for i in 0..count {
        b.inner()
            .insert(&format!("/src/s{i:04}/SKILL.md"), md(&format!("s{i:04}"), "x"))
            .unwrap();
    }
    // The same name in the first and the last chunk: the later file still wins.
    b.inner()
        .insert("/src/zz-late/SKILL.md", md("s0000", "late copy"))
        .unwrap();
    let listing = list_skills(&b, "/src").await.unwrap();
    assert_eq!(listing.skills.len(), count);
    assert_eq!(listing.skills[0].description, "late copy");
    let sizes = sizes.lock().unwrap().clone();
    assert_eq!(sizes.iter().sum::<usize>(), count + 1, "{sizes:?}");
    assert!(sizes.len() >= 6 && sizes.iter().all(|&n| n <= 256), "{sizes:?}");
}

#[tokio::test]
async fn the_read_batch_bounds_how_many_files_are_asked_for_at_once() {
    let (b, sizes) = batches();
    for i in 0..23 {
        b.inner()
            .insert(&format!("/src/s{i:02}/SKILL.md"), md(&format!("s{i:02}"), "x"))
            .unwrap();
    }
    let limits = DiscoveryLimits::default().with_read_batch(5);
    let listing = Discovery::new(&b, "/src").limits(limits).run().await.unwrap();
    assert_eq!(listing.skills.len(), 23);
    assert_eq!(*sizes.lock().unwrap(), [5, 5, 5, 5, 3]);
}

#[tokio::test]
async fn a_hostile_source_of_many_large_files_is_read_up_to_the_budget_only() {
    // 40 files of 1 MiB against an 8 MiB budget: 8 are read, 32 never leave the backend.
    let (b, sizes) = batches();
    let body = "x".repeat(1 << 20);
    for i in 0..40 {
        let name = format!("big{i:02}");
        b.inner()
            .insert(&format!("/src/{name}/SKILL.md"), format!("{}{body}", md(&name, "big")))
            .unwrap();
    }
    let limits = DiscoveryLimits::default().with_max_bytes(8 << 20);
    let listing = Discovery::new(&b, "/src").limits(limits).run().await.unwrap();
    let read: usize = sizes.lock().unwrap().iter().sum();
    assert_eq!(
        (listing.skills.len(), read),
        (7, 7),
        "7 files of just over 1 MiB fit in 8 MiB"
    );
    let limited = listing
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::LimitExceeded);
    assert_eq!(limited.count(), 1);
}

/// A repository that keeps skills below the source's first level.
fn nested() -> MemoryBackend {
    let b = MemoryBackend::new();
    for (path, name) in [
        ("/repo/plugins/docs/skills/write/SKILL.md", "write"),
        ("/repo/plugins/docs/skills/review/SKILL.md", "review"),
        ("/repo/owner--repo/skills/deploy/SKILL.md", "deploy"),
        // A skill's own sub-folders are its files, not skills.
        ("/repo/owner--repo/skills/deploy/examples/inner/SKILL.md", "inner"),
        // Not searched: hidden folders and node_modules.
        ("/repo/.git/skills/hidden/SKILL.md", "hidden"),
        ("/repo/node_modules/pkg/skill/SKILL.md", "vendored"),
    ] {
        b.insert(path, md(name, "A nested skill")).unwrap();
    }
    b.insert("/repo/README.md", "# A repository").unwrap();
    b
}

#[tokio::test]
async fn deeper_discovery_finds_nested_skills_and_stops_at_a_skill_folder() {
    let b = nested();
    for resources in [false, true] {
        let found = Discovery::new(&b, "/repo")
            .depth(4)
            .resources(resources)
            .run()
            .await
            .unwrap();
        let mut names: Vec<_> = found.skills.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["deploy", "review", "write"], "resources: {resources}");
        assert_eq!(found.folders, 3);
    }
    // Depth 3 reaches `owner--repo/skills/deploy` but not `plugins/docs/skills/*`.
    let found = Discovery::new(&b, "/repo").depth(3).run().await.unwrap();
    let names: Vec<_> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["deploy"]);
}

#[tokio::test]
async fn a_source_with_skills_only_deeper_says_how_deep_to_look() {
    let b = nested();
    let found = list_skills(&b, "/repo").await.unwrap();
    assert!(found.skills.is_empty());
    let hint = found
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::DeeperSkills)
        .unwrap_or_else(|| panic!("no hint: {:?}", found.diagnostics));
    assert_eq!(hint.path, "/repo");
    assert!(
        hint.message.contains("but 3 deeper") && hint.message.contains("4 levels deep"),
        "{}",
        hint.message
    );
    // A source with skills at its first level gets no hint, and an empty one neither.
    let b = MemoryBackend::new();
    b.insert("/flat/web/SKILL.md", md("web", "Web")).unwrap();
    b.insert("/empty/notes.txt", "nothing").unwrap();
    // A source that is itself a skill folder says so.
    b.insert("/one/SKILL.md", md("one", "One skill")).unwrap();
    let found = list_skills(&b, "/one").await.unwrap();
    assert!(found.skills.is_empty());
    let hint = found
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::SourceIsASkill)
        .unwrap_or_else(|| panic!("no hint: {:?}", found.diagnostics));
    assert!(
        hint.message.contains("read it as one skill with depth 0") && hint.message.contains("`--depth 0`"),
        "{}",
        hint.message
    );
    for source in ["/flat", "/empty"] {
        let found = list_skills(&b, source).await.unwrap();
        assert!(
            found.diagnostics.iter().all(|d| d.kind != DiagnosticKind::DeeperSkills),
            "{source}"
        );
    }
}

#[tokio::test]
async fn the_probe_for_deeper_skills_stays_small_on_a_large_tree() {
    // 600 skills one level too deep, each with resources: the probe lists a few hundred
    // directories at most (not every skill's resources) and says it saw only part.
    let b = MemoryBackend::new();
    for i in 0..600 {
        let dir = format!("/big/team/s{i:03}");
        b.insert(&format!("{dir}/SKILL.md"), md(&format!("s{i:03}"), "d"))
            .unwrap();
        b.insert(&format!("{dir}/references/guide.md"), "guide").unwrap();
    }
    let found = list_skills(&b, "/big").await.unwrap();
    let hint = found
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::DeeperSkills)
        .unwrap_or_else(|| panic!("no hint: {:?}", found.diagnostics));
    assert!(
        hint.message.contains("but at least ")
            && hint.message.contains("such as /big/team/s000/SKILL.md")
            && hint.message.contains("2 levels deep"),
        "{}",
        hint.message
    );
    let count: usize = hint
        .message
        .split("at least ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((200..=256).contains(&count), "{count}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_parsed_on_several_threads_keep_their_order_and_the_later_duplicate() {
    // 300 files: a chunk of 256 is parsed in parts on the blocking pool; the listing
    // must come out in path order, and of two folders declaring one name the later wins,
    // within a chunk (s010, s200) and across chunks (s005, s270).
    let b = MemoryBackend::new();
    for i in 0..300 {
        let name = match i {
            10 | 200 => "dup".to_owned(),
            5 | 270 => "dup2".to_owned(),
            _ => format!("s{i:03}"),
        };
        b.insert(&format!("/lib/s{i:03}/SKILL.md"), md(&name, &format!("number {i}")))
            .unwrap();
    }
    let found = list_skills(&b, "/lib").await.unwrap();
    assert_eq!(found.skills.len(), 298);
    let dup = found.skills.iter().find(|s| s.name == "dup").unwrap();
    assert_eq!(dup.description, "number 200");
    let dup2 = found.skills.iter().find(|s| s.name == "dup2").unwrap();
    assert_eq!(dup2.description, "number 270");
    let hidden: Vec<&str> = found
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::DuplicateName)
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(hidden, ["/lib/s005/SKILL.md", "/lib/s010/SKILL.md"]);
    // First-seen order: each skill where its name first appeared.
    let order: Vec<&str> = found.skills.iter().map(|s| s.description.as_str()).collect();
    let expected: Vec<String> = (0..300)
        .filter(|i| *i != 200 && *i != 270)
        .map(|i| match i {
            5 => "number 270".to_owned(),
            10 => "number 200".to_owned(),
            i => format!("number {i}"),
        })
        .collect();
    assert_eq!(order, expected);
}

#[tokio::test]
async fn a_skill_md_that_is_a_directory_is_reported_with_or_without_resources() {
    let b = MemoryBackend::new();
    b.insert("/src/a/SKILL.md", md("a", "A")).unwrap();
    b.insert("/src/b/SKILL.md/notes.md", "a folder named SKILL.md").unwrap();
    for resources in [false, true] {
        let listing = Discovery::new(&b, "/src").resources(resources).run().await.unwrap();
        let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a"], "resources: {resources}");
        let kinds: Vec<_> = listing.diagnostics.iter().map(|d| (d.path.as_str(), d.kind)).collect();
        assert_eq!(
            kinds,
            [("/src/b/SKILL.md", DiagnosticKind::ReadFailed)],
            "resources: {resources}"
        );
        assert_eq!(listing.folders, 2, "resources: {resources}");
    }
}

#[tokio::test]
async fn a_tracking_parse_cache_names_the_files_read_again_because_they_changed() {
    let b = MemoryBackend::new();
    for name in ["a", "b"] {
        b.insert(&format!("/src/{name}/SKILL.md"), md(name, "first")).unwrap();
    }
    let mut tracking = ParseCache::tracking_changes();
    let mut plain = ParseCache::new();
    for cache in [&mut tracking, &mut plain] {
        Discovery::new(&b, "/src").cache(cache).run().await.unwrap();
        // A first read of a file is not a change.
        assert!(cache.take_changed().is_empty());
    }
    b.insert("/src/b/SKILL.md", md("b", "first") + "New instructions\n")
        .unwrap();
    b.insert("/src/c/SKILL.md", md("c", "new")).unwrap();
    for cache in [&mut tracking, &mut plain] {
        Discovery::new(&b, "/src").cache(cache).run().await.unwrap();
    }
    assert_eq!(tracking.take_changed(), ["/src/b/SKILL.md"]);
    assert!(tracking.take_changed().is_empty(), "taken");
    assert!(plain.take_changed().is_empty(), "not tracked");
}

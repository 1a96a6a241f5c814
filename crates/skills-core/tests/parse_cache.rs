//! A parse cache kept as bytes between processes: what a discovery through a cache
//! loaded from them reads, forgets and reports.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use skills_core::*;

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n")
}

#[tokio::test]
async fn a_cache_from_bytes_forgets_the_files_that_are_gone_and_tracks_the_changed_ones() {
    let b = MemoryBackend::new();
    for name in ["a", "b", "c", "d"] {
        b.insert(&format!("/src/{name}/SKILL.md"), md(name, "first")).unwrap();
    }
    let mut cache = ParseCache::new();
    Discovery::new(&b, "/src").cache(&mut cache).run().await.unwrap();
    let mut loaded = ParseCache::from_bytes(cache.to_bytes())
        .expect("whole")
        .with_change_tracking();
    assert_eq!((loaded.len(), loaded.is_dirty()), (4, false));

    // One folder gone (in the middle), one changed, one new; a discovery of the whole
    // source reads the two, forgets the one, and keeps the rest as they were.
    assert_eq!(b.remove("/src/b/SKILL.md"), 1);
    b.insert("/src/c/SKILL.md", md("c", "second")).unwrap();
    b.insert("/src/e/SKILL.md", md("e", "new")).unwrap();
    let listing = Discovery::new(&b, "/src").cache(&mut loaded).run().await.unwrap();
    let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "c", "d", "e"]);
    assert_eq!(listing.skills[1].description, "second");
    assert_eq!(loaded.files_read(), 2);
    assert_eq!(loaded.take_changed(), ["/src/c/SKILL.md"]);
    assert_eq!(loaded.len(), 4, "b forgotten, e added");
    assert!(loaded.is_dirty());
    assert!(loaded.etag("/src/b/SKILL.md").is_none());
    // What it keeps round-trips: a next start reads nothing.
    let mut next = ParseCache::from_bytes(loaded.to_bytes()).expect("whole");
    Discovery::new(&b, "/src").cache(&mut next).run().await.unwrap();
    assert_eq!(next.files_read(), 0);
}

#[tokio::test]
async fn the_parses_left_after_a_removal_are_still_found() {
    let b = MemoryBackend::new();
    for name in ["a", "b", "c"] {
        b.insert(&format!("/src/{name}/SKILL.md"), md(name, "first")).unwrap();
    }
    let mut cache = ParseCache::new();
    Discovery::new(&b, "/src").cache(&mut cache).run().await.unwrap();
    // The first parse goes: the others move up in the cache and are found without a
    // read, now and on the next discovery.
    assert_eq!(b.remove("/src/a/SKILL.md"), 1);
    let rest = Discovery::new(&b, "/src").cache(&mut cache).run().await.unwrap();
    let again = Discovery::new(&b, "/src").cache(&mut cache).run().await.unwrap();
    assert_eq!((cache.files_read(), cache.len()), (3, 2));
    assert_eq!(again, rest);
    let names: Vec<_> = again.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["b", "c"]);
}

#[tokio::test]
async fn a_listing_reads_back_whole_and_a_damaged_one_not_at_all() {
    let backend = MemoryBackend::new();
    let files = [
        (
            "a",
            "---\nname: a\ndescription: First\nlicense: MIT\nmetadata:\n  team: infra\nallowed-tools: Read Grep\n\
             owners:\n  - ana\n  - {name: bo, at: [x, ~]}\n---\nBody.\n",
        ),
        ("b", "---\nname: a\ndescription: The same name, later\n---\n"),
        ("c", "no frontmatter\n"),
        ("d", "---\nname: Not A Slug\ndescription: [unclosed\n---\n"),
    ];
    for (folder, text) in files {
        backend.insert(&format!("/s/{folder}/SKILL.md"), text).unwrap();
    }
    let listing = skills_core::Discovery::new(&backend, "/s")
        .limits(skills_core::DiscoveryLimits::default().with_max_skills(10))
        .run()
        .await
        .unwrap();
    assert!(listing.diagnostics.len() >= 3, "{:?}", listing.diagnostics);
    let bytes = listing.to_bytes();
    let back = SkillListing::from_bytes(&bytes).unwrap();
    assert_eq!(back, listing);

    // Streamed part by part, the same bytes: a part per skill and per diagnostic, so a
    // writer never gathers a large library's listing (or its warnings) in one buffer.
    let mut streamed = Vec::new();
    let mut parts = 0;
    SkillListing::write_bytes(listing.folders, &listing.skills, &listing.diagnostics, &mut |part| {
        streamed.extend_from_slice(part);
        parts += 1;
    });
    assert_eq!(streamed, bytes);
    assert!(
        parts > listing.skills.len() + listing.diagnostics.len(),
        "{parts} parts"
    );

    // Any cut, and anything after the end, is refused.
    for end in 0..bytes.len() {
        assert!(SkillListing::from_bytes(&bytes[..end]).is_none(), "cut at {end}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(SkillListing::from_bytes(&longer).is_none());
}

//! `DiscoveryLimits`: every limit configurable, each one exceeded is one
//! `limit-exceeded` diagnostic and the skills within the limit still load.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use skills_core::*;

fn md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Skill {name}\n---\n")
}

fn library(count: usize) -> MemoryBackend {
    let b = MemoryBackend::new();
    for i in 0..count {
        b.insert(&format!("/src/s{i:02}/SKILL.md"), md(&format!("s{i:02}")))
            .unwrap();
        b.insert(&format!("/src/s{i:02}/scripts/run.sh"), "echo").unwrap();
    }
    b
}

fn names(listing: &SkillListing) -> Vec<&str> {
    listing.skills.iter().map(|s| s.name.as_str()).collect()
}

fn limit_messages(listing: &SkillListing) -> Vec<(&str, &str)> {
    listing
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::LimitExceeded)
        .map(|d| (d.path.as_str(), d.message.as_str()))
        .collect()
}

#[tokio::test]
async fn defaults_let_an_ordinary_library_through_untouched() {
    let b = library(20);
    let listing = list_skills(&b, "/src").await.unwrap();
    assert_eq!(listing.skills.len(), 20);
    assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
}

#[tokio::test]
async fn skills_over_the_count_limit_are_not_read_and_reported_once() {
    let b = library(10);
    let limits = DiscoveryLimits::default().with_max_skills(4);
    for listing in [
        Discovery::new(&b, "/src").limits(limits).run().await.unwrap(),
        Discovery::new(&b, "/src")
            .limits(limits)
            .resources(true)
            .run()
            .await
            .unwrap(),
    ] {
        assert_eq!(
            names(&listing),
            ["s00", "s01", "s02", "s03"],
            "the first ones in path order"
        );
        let limited = limit_messages(&listing);
        assert_eq!(limited.len(), 1, "{limited:?}");
        assert_eq!(limited[0].0, "/src");
        assert!(
            limited[0].1.contains("more than 4 skill folders") && limited[0].1.contains("6 skill folders not read"),
            "{}",
            limited[0].1
        );
        assert!(
            !limited[0].1.contains("DiscoveryLimits"),
            "no Rust names: {}",
            limited[0].1
        );
        let cut = listing.diagnostics.iter().find_map(|d| d.cut).unwrap();
        assert_eq!(
            cut,
            LimitCut {
                limit: Limit::MaxSkills,
                max: 4,
                left_out: 6
            }
        );
        assert_eq!(listing.folders, 10, "every folder was seen");
        assert_eq!(
            listing.diagnostics[0].kind.severity(),
            Severity::Skip,
            "skills were left out"
        );
    }
}

#[tokio::test]
async fn the_byte_budget_stops_reading_and_counts_cached_files_the_same() {
    let b = library(10);
    let one = md("s00").len() as u64;
    let limits = DiscoveryLimits::default().with_max_bytes(3 * one + one / 2);
    let listing = Discovery::new(&b, "/src").limits(limits).run().await.unwrap();
    assert_eq!(names(&listing), ["s00", "s01", "s02"]);
    let limited = limit_messages(&listing);
    assert!(
        limited.len() == 1
            && limited[0]
                .1
                .contains("7 skill folders not read, from /src/s03/SKILL.md"),
        "{limited:?}"
    );
    let cut = listing.diagnostics.iter().find_map(|d| d.cut).unwrap();
    assert_eq!(
        (cut.limit, cut.max, cut.left_out),
        (Limit::MaxBytes, 3 * one + one / 2, 7)
    );

    // A warm cache does not stretch the budget: the same library, the same skills.
    let mut cache = ParseCache::new();
    let cold = Discovery::new(&b, "/src")
        .limits(limits)
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    let warm = Discovery::new(&b, "/src")
        .limits(limits)
        .cache(&mut cache)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!(cold, warm);
    assert_eq!(cache.files_read(), 3, "the second discovery read nothing");
}

#[tokio::test]
async fn a_directory_over_the_entry_limit_keeps_its_first_entries() {
    let b = library(5);
    for i in 0..8 {
        b.insert(&format!("/src/s01/assets/a{i}.txt"), "x").unwrap();
    }
    let limits = DiscoveryLimits::default().with_max_dir_entries(3);
    let found = Discovery::new(&b, "/src")
        .limits(limits)
        .resources(true)
        .run()
        .await
        .unwrap();
    assert_eq!(names(&found), ["s00", "s01", "s02"]);
    let limited = limit_messages(&found);
    let dirs: Vec<&str> = limited.iter().map(|(path, _)| *path).collect();
    assert_eq!(dirs, ["/src", "/src/s01/assets"], "{limited:?}");
    assert!(
        limited[0].1.contains("5 entries, over the limit of 3"),
        "{}",
        limited[0].1
    );
    let assets: Vec<&str> = found.resources["s01"]
        .iter()
        .filter(|r| r.kind == ResourceKind::Asset)
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(
        assets,
        [
            "/src/s01/assets/a0.txt",
            "/src/s01/assets/a1.txt",
            "/src/s01/assets/a2.txt"
        ]
    );

    let listed = Discovery::new(&b, "/src").limits(limits).run().await.unwrap();
    assert_eq!(names(&listed), ["s00", "s01", "s02"]);
}

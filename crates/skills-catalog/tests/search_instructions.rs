//! The opening of each skill's instructions as a third search field: what the index reads
//! of them, and how a catalog gives them to its index (once per skill, again only for
//! the skills a reload changed).

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;

use common::Counting;
use skills_catalog::{INSTRUCTIONS_CHARS, SkillCatalog, SkillIndex, SkillSource};
use skills_core::{MemoryBackend, SkillMetadata};

fn names(index: &SkillIndex, query: &str) -> Vec<String> {
    index.search(query, 8).unwrap().into_iter().map(|h| h.name).collect()
}

fn three() -> SkillIndex {
    SkillIndex::build(&[
        SkillMetadata::new("astropy", "Astronomy toolkit for Python", "/s/astropy/SKILL.md"),
        SkillMetadata::new("units", "Convert between units of measure", "/s/units/SKILL.md"),
        SkillMetadata::new("charts", "Draw charts from tables", "/s/charts/SKILL.md"),
    ])
}

#[test]
fn the_opening_of_the_instructions_finds_a_skill_its_description_does_not() {
    let mut index = three();
    assert!(names(&index, "sky coordinates").is_empty());
    assert_eq!(names(&index, "convert coordinates"), ["units"]);

    let text = "---\nname: astropy\ndescription: x\nmetadata:\n  topic: galaxies\n---\n# Astropy\n\
                Convert sky coordinates between frames and read FITS files.\n";
    assert!(index.set_instructions("astropy", text));
    assert_eq!(names(&index, "sky coordinates"), ["astropy"]);
    assert_eq!(names(&index, "read a fits file"), ["astropy"]);
    // The description still counts for more: `units` says `convert` there.
    assert_eq!(names(&index, "convert"), ["units", "astropy"]);
    // The frontmatter is not part of the instructions.
    assert!(names(&index, "galaxies").is_empty());
    // A skill the index does not hold takes nothing.
    assert!(!index.set_instructions("nope", "sky"));
}

#[test]
fn only_the_opening_is_read_and_new_instructions_replace_the_old() {
    let mut index = three();
    let filler = "lorem ".repeat(INSTRUCTIONS_CHARS / 6 + 1);
    index.set_instructions("charts", &format!("{filler}\nheatmap"));
    assert!(names(&index, "heatmap").is_empty(), "past the opening");
    index.set_instructions("charts", "Plot a heatmap");
    assert_eq!(names(&index, "heatmap"), ["charts"]);
    index.set_instructions("charts", "Plot a histogram");
    assert!(names(&index, "heatmap").is_empty(), "the old instructions are gone");
    // At most 64 distinct words are kept (a word and its stem count as two; these are
    // their own stems).
    let many: Vec<String> = (0..70).map(|i| format!("w{i:02}x")).collect();
    index.set_instructions("charts", &many.join(" "));
    assert_eq!(names(&index, "w63x"), ["charts"]);
    assert!(names(&index, "w64x").is_empty(), "past the cap");

    // Indexing the skill again drops its instructions: the new skill's are unread.
    index.upsert(&SkillMetadata::new(
        "charts",
        "Draw charts from tables",
        "/s/charts/SKILL.md",
    ));
    assert!(names(&index, "histogram").is_empty());
    assert!(index.remove("charts"));
    assert!(!index.set_instructions("charts", "Plot a histogram"));
}

/// Writes the skill `name` into `backend`.
fn write(backend: &MemoryBackend, name: &str, description: &str, body: &str) {
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n");
    backend.insert(&format!("/s/{name}/SKILL.md"), text).unwrap();
}

/// 30 skills whose descriptions say little, each with a word of its own in its body.
fn library() -> (Arc<MemoryBackend>, Arc<Counting>, SkillCatalog) {
    let memory = Arc::new(MemoryBackend::new());
    let backend = Counting::new(memory.clone());
    for i in 0..30 {
        write(
            &memory,
            &format!("tool-{i:02}"),
            "A team tool",
            &format!("Use it for project{i:02} work."),
        );
    }
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend.clone(), "/s")]);
    (memory, backend, catalog)
}

fn found(catalog: &SkillCatalog, query: &str) -> Vec<String> {
    catalog.search(query, 8).unwrap().into_iter().map(|h| h.name).collect()
}

#[tokio::test]
async fn a_catalog_reads_each_skills_instructions_once() {
    let (_, backend, catalog) = library();
    catalog.ensure_loaded().await;
    let discovered = backend.reads();
    assert_eq!(discovered, 30);
    // A refused request reads nothing.
    assert!(catalog.search_prepared("  ", 8).await.is_err());
    assert_eq!(backend.reads(), discovered);
    // A search before the instructions are read answers from names and descriptions.
    assert!(found(&catalog, "project07").is_empty());
    assert!(!catalog.search_ready());

    catalog.prepare_search().await;
    assert!(catalog.search_ready());
    assert_eq!(backend.reads() - discovered, 30, "one read per skill");
    assert_eq!(found(&catalog, "project07"), ["tool-07"]);
    catalog.prepare_search().await;
    assert_eq!(backend.reads() - discovered, 30, "nothing left to read");

    assert_eq!(
        catalog.search_prepared("project21", 8).await.unwrap()[0].name,
        "tool-21"
    );
}

#[tokio::test]
async fn a_reload_reads_the_instructions_of_the_skills_it_changed_only() {
    let (memory, backend, catalog) = library();
    catalog.ensure_loaded().await;
    catalog.prepare_search().await;
    let before = backend.reads();

    write(
        &memory,
        "tool-03",
        "A team tool for reports",
        "Use it for quarterly work.",
    );
    catalog.reload().await.unwrap();
    // The reload read the changed file; the reader it started reads it once more.
    catalog.prepare_search().await;
    assert_eq!(backend.reads() - before, 2);
    assert!(catalog.search_ready());
    assert_eq!(found(&catalog, "quarterly"), ["tool-03"]);
    assert!(found(&catalog, "project03").is_empty(), "the old instructions are gone");
    assert_eq!(found(&catalog, "project04"), ["tool-04"], "the others are kept");
}

#[tokio::test]
async fn instructions_that_cannot_be_read_leave_the_skill_searchable() {
    let (memory, _, catalog) = library();
    catalog.ensure_loaded().await;
    // Gone between the discovery and the read.
    assert_eq!(memory.remove("/s/tool-05/SKILL.md"), 1);
    catalog.prepare_search().await;
    assert!(catalog.search_ready(), "an unreadable file does not stall the reader");
    assert!(found(&catalog, "project05").is_empty());
    assert_eq!(found(&catalog, "project06"), ["tool-06"]);
    assert!(found(&catalog, "team tool").contains(&"tool-05".to_owned()));
}

#[tokio::test]
async fn an_edit_of_the_instructions_alone_is_read_again() {
    let (memory, _, catalog) = library();
    catalog.ensure_loaded().await;
    catalog.prepare_search().await;
    // The frontmatter is the same: the catalog sees no change of the skill.
    write(&memory, "tool-08", "A team tool", "Use it for invoicing work.");
    assert!(catalog.reload().await.is_none());
    catalog.prepare_search().await;
    assert_eq!(found(&catalog, "invoicing"), ["tool-08"]);
    assert!(found(&catalog, "project08").is_empty());

    // The same through a reload narrowed to the file (what a watcher does).
    write(&memory, "tool-09", "A team tool", "Use it for payroll work.");
    catalog.reload_paths(0, &["/s/tool-09/SKILL.md".to_owned()]).await;
    catalog.prepare_search().await;
    assert_eq!(found(&catalog, "payroll"), ["tool-09"]);
}

#[tokio::test]
async fn a_catalog_told_not_to_reads_no_instructions() {
    let (memory, backend, catalog) = library();
    let catalog = catalog.with_search_instructions(false);
    catalog.ensure_loaded().await;
    let discovered = backend.reads();
    catalog.prepare_search().await;
    assert!(catalog.search_ready());
    assert_eq!(backend.reads(), discovered, "no second read");
    assert!(found(&catalog, "project07").is_empty());
    assert_eq!(
        found(&catalog, "tool 07")[0],
        "tool-07",
        "names and descriptions still count"
    );

    write(&memory, "tool-07", "A team tool", "Use it for invoicing work.");
    assert!(catalog.reload().await.is_none());
    catalog.prepare_search().await;
    assert_eq!(backend.reads(), discovered + 1, "the reload's read only");
}

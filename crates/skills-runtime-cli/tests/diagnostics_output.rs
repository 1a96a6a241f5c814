//! What commands say on stderr of a library's skipped skills and warnings: a real library
//! carries thousands of each, so each kind is said twenty times and then counted, and
//! `skills validate` lists every one.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;

use common::{md, skills, stderr, stdout, write};

/// `skills list` of `dir/lib`, which must succeed, says twenty of the `total` lines that
/// carry `marker`, then `counted` for the rest, and `skills validate` lists all `total`:
/// what `list` said on stderr, and what it listed.
fn twenty_then_counted(dir: &Path, marker: &str, total: usize, counted: &str) -> (String, String) {
    let out = skills(dir, &["list", "--source", "lib"]);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert_eq!(err.matches(marker).count(), 20, "{err}");
    assert!(err.contains(counted), "{err}");
    let validated = stdout(&skills(dir, &["validate", "lib"]));
    assert_eq!(validated.matches(marker).count(), total, "{validated}");
    (err, stdout(&out))
}

#[test]
fn list_prints_twenty_skipped_skills_of_a_kind_then_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..23 {
        write(dir.path(), &format!("lib/bare-{i:02}/SKILL.md"), "no frontmatter\n");
    }
    write(dir.path(), "lib/blank/SKILL.md", "---\nname: blank\n---\n");
    write(dir.path(), "lib/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let (err, listed) = twenty_then_counted(
        dir.path(),
        "no-frontmatter:",
        23,
        "warning: 3 more skipped skills (no-frontmatter) not shown (`skills validate` lists every one)",
    );
    // A skip of another kind is shown beside them.
    assert!(err.contains("blank/SKILL.md: missing-description"), "{err}");
    assert!(listed.contains("pdf"), "{listed}");
}

#[test]
fn list_prints_twenty_warnings_of_a_kind_then_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..25 {
        // Each name differs from its folder: one name-mismatch warning each.
        write(
            dir.path(),
            &format!("lib/folder-{i:02}/SKILL.md"),
            &md(&format!("skill-{i:02}"), "d"),
        );
    }
    write(dir.path(), "lib/broken/SKILL.md", "---\nname: broken\n---\n");
    let (err, _) = twenty_then_counted(
        dir.path(),
        "name-mismatch:",
        25,
        "warning: 5 more name-mismatch warnings not shown (`skills validate` lists every one)",
    );
    assert!(
        err.contains("skipped: ") && err.contains("broken/SKILL.md: missing-description"),
        "{err}"
    );
}

//! `skills watch` as a running process: it prints one line per catalog change.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Watcher, md, write};

const TIMEOUT: Duration = Duration::from_secs(20);

/// `skills watch` on `<dir>/skills` (labelled `team`), with `<dir>/home` as HOME.
fn start(dir: &Path, extra: &[&str]) -> Watcher {
    let source = format!("team={}", dir.join("skills").display());
    let args: Vec<&str> = ["--source", &source].into_iter().chain(extra.iter().copied()).collect();
    let (watcher, ready) = Watcher::start(&args, &[("HOME", &dir.join("home"))], TIMEOUT);
    assert!(ready.contains("watching 1 skills in 1 sources (version 1)"), "{ready}");
    watcher
}

#[test]
fn watch_prints_added_changed_kept_last_good_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/web/SKILL.md", &md("web", "Search"));
    let watcher = start(dir.path(), &[]);

    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    assert_eq!(watcher.next_line(TIMEOUT), "v2 added pdf");
    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs well"));
    assert_eq!(watcher.next_line(TIMEOUT), "v3 changed pdf");
    write(
        dir.path(),
        "skills/web/SKILL.md",
        "---\nname: web\ndescription: [broken\n---\n",
    );
    let kept = watcher.next_line(TIMEOUT);
    assert!(
        kept.starts_with("v4 kept-last-good web: serving the last good version of 'web'"),
        "{kept}"
    );
    std::fs::remove_dir_all(dir.path().join("skills/pdf")).unwrap();
    assert_eq!(watcher.next_line(TIMEOUT), "v5 removed pdf");
}

#[test]
fn watch_json_prints_one_object_per_change() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/web/SKILL.md", &md("web", "Search"));
    let watcher = start(dir.path(), &["--json"]);
    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let line: serde_json::Value = serde_json::from_str(&watcher.next_line(TIMEOUT)).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"version": 2, "change": "added", "name": "pdf"})
    );
}

/// A folder that is one skill, read at depth 0, is watched: an edit of its `SKILL.md`
/// and of its scripts reloads it.
#[test]
fn watch_follows_a_folder_read_as_one_skill() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/SKILL.md", &md("web", "Search"));
    let watcher = start(dir.path(), &["--depth", "0"]);
    write(dir.path(), "skills/SKILL.md", &md("web", "Search the web"));
    assert_eq!(watcher.next_line(TIMEOUT), "v2 changed web");
    write(dir.path(), "skills/SKILL.md", &md("pdf", "Read PDFs"));
    let line = watcher.next_line(TIMEOUT);
    assert!(line.starts_with("v3 "), "renamed in place: {line}");
}

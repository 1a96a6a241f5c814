//! `skills watch` as a running process: it prints one line per catalog change.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use common::{lines, md, write};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Watcher {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
}

impl Watcher {
    fn start(dir: &Path, extra: &[&str]) -> Self {
        let source = dir.join("skills");
        let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
            .arg("watch")
            .arg("--source")
            .arg(format!("team={}", source.display()))
            .args(extra)
            .env("HOME", dir.join("home"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let err = lines(child.stderr.take().unwrap());
        let watcher = Self { child, out, err };
        // Ready once it says so.
        loop {
            let line = watcher.err.recv_timeout(TIMEOUT).unwrap();
            if line.starts_with("watching ") {
                assert!(line.contains("watching 1 skills in 1 sources (version 1)"), "{line}");
                break;
            }
        }
        watcher
    }

    fn next_line(&self) -> String {
        self.out.recv_timeout(TIMEOUT).unwrap()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_prints_added_changed_kept_last_good_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/web/SKILL.md", &md("web", "Search"));
    let watcher = Watcher::start(dir.path(), &[]);

    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    assert_eq!(watcher.next_line(), "v2 added pdf");
    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs well"));
    assert_eq!(watcher.next_line(), "v3 changed pdf");
    write(
        dir.path(),
        "skills/web/SKILL.md",
        "---\nname: web\ndescription: [broken\n---\n",
    );
    let kept = watcher.next_line();
    assert!(
        kept.starts_with("v4 kept-last-good web: serving the last good version of 'web'"),
        "{kept}"
    );
    std::fs::remove_dir_all(dir.path().join("skills/pdf")).unwrap();
    assert_eq!(watcher.next_line(), "v5 removed pdf");
}

#[test]
fn watch_json_prints_one_object_per_change() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/web/SKILL.md", &md("web", "Search"));
    let watcher = Watcher::start(dir.path(), &["--json"]);
    write(dir.path(), "skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let line: serde_json::Value = serde_json::from_str(&watcher.next_line()).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"version": 2, "change": "added", "name": "pdf"})
    );
}

//! The filesystem backend's `Watch`: real inotify events on a temp directory.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use skills_backend_fs::FilesystemBackend;
use skills_core::{BackendError, BackendProtocol, ChangeEvent};

const TIMEOUT: Duration = Duration::from_secs(10);

fn watch(backend: &FilesystemBackend, path: &str) -> (skills_core::WatchGuard, Receiver<ChangeEvent>) {
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let sink = Arc::new(move |event| {
        let _ = tx.lock().unwrap().send(event);
    });
    let guard = backend.as_watch().unwrap().watch(path, sink).unwrap();
    (guard, rx)
}

fn changed(event: ChangeEvent) -> Vec<String> {
    match event {
        ChangeEvent::Changed(paths) => paths,
        other => panic!("expected changed paths, got {other:?}"),
    }
}

#[test]
fn a_burst_of_200_files_is_one_event() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("skills")).unwrap();
    let backend = FilesystemBackend::new(dir.path())
        .unwrap()
        .with_debounce(Duration::from_millis(200));
    let (_guard, rx) = watch(&backend, "/skills");
    for i in 0..200 {
        let skill = dir.path().join(format!("skills/s{i:03}"));
        std::fs::create_dir(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "x").unwrap();
    }
    let paths = changed(rx.recv_timeout(TIMEOUT).unwrap());
    let dirs = paths.iter().filter(|p| !p.ends_with("SKILL.md")).count();
    assert_eq!(dirs, 200, "every new directory is in the one event");
    assert!(paths.iter().all(|p| p.starts_with("/skills/s")), "{paths:?}");

    // The next change is a new event: nothing of the burst was left over.
    std::fs::write(dir.path().join("skills/s000/SKILL.md"), "y").unwrap();
    assert_eq!(changed(rx.recv_timeout(TIMEOUT).unwrap()), ["/skills/s000/SKILL.md"]);
}

#[test]
fn changes_outside_the_watched_directory_are_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["skills/a", "skills/b"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let (_guard, rx) = watch(&backend, "/skills/a");
    std::fs::write(dir.path().join("skills/b/SKILL.md"), "outside").unwrap();
    std::fs::write(dir.path().join("skills/a/SKILL.md"), "inside").unwrap();
    assert_eq!(changed(rx.recv_timeout(TIMEOUT).unwrap()), ["/skills/a/SKILL.md"]);
}

#[test]
fn host_mode_reports_host_paths() {
    let dir = tempfile::tempdir().unwrap();
    let backend = FilesystemBackend::new(dir.path())
        .unwrap()
        .with_virtual_mode(false)
        .unwrap();
    let root = backend.root_path().to_owned();
    let (_guard, rx) = watch(&backend, &root);
    std::fs::write(dir.path().join("x.md"), "x").unwrap();
    assert_eq!(changed(rx.recv_timeout(TIMEOUT).unwrap()), [format!("{root}/x.md")]);
}

#[test]
fn dropping_the_guard_ends_the_watch_thread() {
    let dir = tempfile::tempdir().unwrap();
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let (guard, rx) = watch(&backend, "/");
    drop(guard);
    // The thread held the only sender: its end disconnects the channel.
    assert_eq!(rx.recv_timeout(TIMEOUT).unwrap_err(), RecvTimeoutError::Disconnected);
}

#[test]
fn watching_checks_the_path_like_every_method() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let backend = FilesystemBackend::new(dir.path()).unwrap();
    let w = backend.as_watch().unwrap();
    let sink: skills_core::ChangeSink = Arc::new(|_| {});
    assert!(matches!(
        w.watch("/missing", sink.clone()),
        Err(BackendError::NotFound { .. })
    ));
    assert!(matches!(
        w.watch("/file", sink.clone()),
        Err(BackendError::NotADirectory { .. })
    ));
    assert!(matches!(
        w.watch("/../etc", sink),
        Err(BackendError::InvalidPath { .. })
    ));
}

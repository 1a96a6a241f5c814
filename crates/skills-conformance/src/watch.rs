//! The behaviours of [`Watch`], for backends that can watch: a change is reported, a
//! burst is coalesced, paths outside the watched path are not reported, dropping the
//! guard stops the watch. Each takes a [`Fixture`] with a writer, changes the storage
//! under a running watch and waits on the events with a timeout, never a bare sleep.

use std::sync::Arc;
use std::time::Duration;

use skills_core::path::join;
use skills_core::{ChangeEvent, Watch, WatchGuard};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::{Instant, timeout};

use crate::fixture::Fixture;

/// Files written in a burst.
const BURST: usize = 8;

fn watch_of(fixture: &Fixture) -> &dyn Watch {
    fixture
        .backend
        .as_watch()
        .unwrap_or_else(|| panic!("{:?} cannot watch", fixture.backend))
}

/// Starts a watch of `rel` (relative to the fixture's root); events arrive on the
/// receiver.
fn start(fixture: &Fixture, rel: &str) -> (WatchGuard, UnboundedReceiver<ChangeEvent>) {
    let (tx, rx) = unbounded_channel();
    let sink = Arc::new(move |event| {
        let _ = tx.send(event);
    });
    let path = join(&fixture.root, rel);
    let guard = watch_of(fixture)
        .watch(&path, sink)
        .unwrap_or_else(|e| panic!("watch({path}): {e}"));
    (guard, rx)
}

/// How long to wait for a change to be reported.
fn patience(fixture: &Fixture) -> Duration {
    fixture.quiet() * 5 + Duration::from_secs(5)
}

/// The next event, or a panic naming what was awaited.
async fn next(fixture: &Fixture, rx: &mut UnboundedReceiver<ChangeEvent>, what: &str) -> ChangeEvent {
    match timeout(patience(fixture), rx.recv()).await {
        Ok(Some(event)) => event,
        Ok(None) => panic!("the watch ended before reporting {what}"),
        Err(_) => panic!("no event within {:?} after {what}", patience(fixture)),
    }
}

/// The events that arrive until the backend has been quiet for three of its quiet
/// periods.
async fn drain(fixture: &Fixture, rx: &mut UnboundedReceiver<ChangeEvent>) -> Vec<ChangeEvent> {
    let mut events = Vec::new();
    let give_up = Instant::now() + patience(fixture) * 2;
    while Instant::now() < give_up {
        match timeout(fixture.quiet() * 3, rx.recv()).await {
            Ok(Some(event)) => events.push(event),
            Ok(None) | Err(_) => break,
        }
    }
    events
}

/// Whether `event` reports `path`: names it or a folder above it, or asks for a rescan.
fn reports(event: &ChangeEvent, path: &str) -> bool {
    match event {
        ChangeEvent::Changed(paths) => paths
            .iter()
            .any(|p| p == path || path.starts_with(&format!("{}/", p.trim_end_matches('/')))),
        ChangeEvent::Rescan { .. } => true,
        _ => false,
    }
}

/// A file written under the watched path is reported.
pub async fn watch_reports_a_change(fixture: &Fixture) {
    let (_guard, mut rx) = start(fixture, "skills");
    fixture.write("skills/alpha/notes.md", b"Edited notes.\n").await;
    let written = join(&fixture.root, "skills/alpha/notes.md");
    let event = next(fixture, &mut rx, "an edit of skills/alpha/notes.md").await;
    assert!(reports(&event, &written), "{event:?} does not report {written}");
}

/// Files written in quick succession arrive as fewer events than writes, and together
/// they report every file.
pub async fn watch_coalesces_a_burst(fixture: &Fixture) {
    let (_guard, mut rx) = start(fixture, "skills");
    let written: Vec<String> = (0..BURST).map(|i| format!("skills/beta/burst-{i}.md")).collect();
    for rel in &written {
        fixture.write(rel, b"burst\n").await;
    }
    let mut events = vec![next(fixture, &mut rx, "a burst of writes").await];
    events.extend(drain(fixture, &mut rx).await);
    assert!(
        events.len() < BURST,
        "{BURST} writes gave {} events: {events:?}",
        events.len()
    );
    for rel in &written {
        let path = join(&fixture.root, rel);
        assert!(
            events.iter().any(|e| reports(e, &path)),
            "{path} not reported: {events:?}"
        );
    }
}

/// A write outside the watched path is not reported; one inside is.
pub async fn watch_ignores_paths_outside_the_watched_path(fixture: &Fixture) {
    let watched = join(&fixture.root, "skills/alpha");
    let (_guard, mut rx) = start(fixture, "skills/alpha");
    fixture.write("other/outside.txt", b"outside\n").await;
    fixture.write("skills/beta/outside.md", b"outside\n").await;
    fixture.write("skills/alpha/inside.md", b"inside\n").await;
    let inside = join(&fixture.root, "skills/alpha/inside.md");
    let mut events = vec![next(fixture, &mut rx, "a write inside the watched path").await];
    events.extend(drain(fixture, &mut rx).await);
    assert!(
        events.iter().any(|e| reports(e, &inside)),
        "{inside} not reported: {events:?}"
    );
    for event in &events {
        if let ChangeEvent::Changed(paths) = event {
            for path in paths {
                assert!(
                    path == &watched || path.starts_with(&format!("{watched}/")),
                    "{path} is outside the watched {watched}: {events:?}"
                );
            }
        }
    }
}

/// Once the guard is dropped, a change is not reported.
pub async fn dropping_the_guard_stops_the_watch(fixture: &Fixture) {
    let (guard, mut rx) = start(fixture, "skills");
    drop(guard);
    fixture.write("skills/alpha/after.md", b"after the watch\n").await;
    // The sink goes with the watch: the channel closes, or stays silent.
    if let Ok(Some(event)) = timeout(fixture.quiet() * 3, rx.recv()).await {
        panic!("a dropped watch reported {event:?}");
    }
}

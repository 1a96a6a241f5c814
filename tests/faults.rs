//! Disk faults on real files: a `SKILL.md` deleted between the listing and the read, and
//! files and folders the process may not read. The catalog keeps its last good state,
//! the errors are typed diagnostics, and a later reload recovers by itself.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use skills_conformance::BeforeReads;
use skills_runtime::DiagnosticKind;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::middleware::*;
use skills_runtime::{CatalogChange, CatalogEvent, CatalogSnapshot};

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn names(snapshot: &CatalogSnapshot) -> Vec<&str> {
    snapshot.skills().iter().map(|s| s.name.as_str()).collect()
}

fn kinds(snapshot: &CatalogSnapshot) -> Vec<(String, DiagnosticKind)> {
    snapshot
        .diagnostics()
        .iter()
        .map(|d| (d.path.clone(), d.kind))
        .collect()
}

#[tokio::test]
async fn a_skill_md_deleted_between_listing_and_reading_is_a_deletion_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/alpha/SKILL.md", &md("alpha", "A1"));
    write(root, "skills/beta/SKILL.md", &md("beta", "B1"));
    // beta's SKILL.md is deleted from disk when the first reads start: after the listing.
    let doomed = Mutex::new(vec![root.join("skills/beta/SKILL.md")]);
    let backend = Arc::new(BeforeReads::new(FilesystemBackend::new(root).unwrap(), move |_| {
        for file in doomed.lock().unwrap().drain(..) {
            std::fs::remove_file(file).unwrap();
        }
    }));
    let skills = SkillsMiddleware::new(backend.clone(), ["/skills"]).unwrap();
    let snapshot = skills.catalog().ensure_loaded().await;
    assert_eq!(names(&snapshot), ["alpha"], "beta was gone by the time it was read");
    assert!(snapshot.diagnostics().is_empty(), "{:?}", snapshot.diagnostics());

    // Served, then deleted under a thread that already listed it: load_skill answers an
    // error, no panic, and the next reload drops it.
    write(root, "skills/beta/SKILL.md", &md("beta", "B2"));
    skills.reload().await.unwrap();
    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(skills.before_agent(&state).await.unwrap().unwrap());
    std::fs::remove_file(root.join("skills/beta/SKILL.md")).unwrap();
    let load = skills.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
    let runtime = ToolRuntime {
        state: &state,
        tool_call_id: "call_1",
        agent: None,
    };
    let answer = load.call(serde_json::json!({ "skill_name": "beta" }), runtime).await;
    let message = answer.tool_message("call_1").unwrap();
    assert_eq!(message.status, ToolStatus::Error, "{}", message.content);
    let event = skills.reload().await.unwrap();
    assert_eq!(event.changes, [CatalogChange::Removed { name: "beta".into() }]);
}

/// Runs `body` as an unprivileged user: in place when the process is not root, else in a
/// copy of this test binary started as `nobody` (root reads every file whatever its
/// mode, so a permission test run as root would prove nothing).
fn as_unprivileged(test: &str, body: impl FnOnce()) {
    const CHILD: &str = "SKILLS_TEST_UNPRIVILEGED";
    // The effective user id, from /proc (no libc call needed).
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let uid: u32 = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|id| id.parse().ok())
        .unwrap();
    if uid != 0 || std::env::var_os(CHILD).is_some() {
        assert_ne!(uid, 0, "the child must not run as root");
        body();
        return;
    }
    use std::os::unix::process::CommandExt;
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("HOME")
        .current_dir("/")
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "unprivileged run failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "the unprivileged run did not run the test:\n{text}"
    );
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn unreadable_files_and_folders_keep_the_last_good_catalog_and_recovery_is_automatic() {
    as_unprivileged(
        "unreadable_files_and_folders_keep_the_last_good_catalog_and_recovery_is_automatic",
        || {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap()
                .block_on(permission_faults());
        },
    );
}

async fn next_event(events: &mut tokio::sync::broadcast::Receiver<CatalogEvent>) -> CatalogEvent {
    tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
        .await
        .expect("a catalog event in time")
        .unwrap()
}

async fn permission_faults() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/alpha/SKILL.md", &md("alpha", "A1"));
    write(root, "skills/beta/SKILL.md", &md("beta", "B1"));
    write(root, "skills/beta/references/guide.md", "# Guide");
    let backend = Arc::new(FilesystemBackend::new(root).unwrap());
    let skills = SkillsMiddleware::new(backend.clone(), ["/skills"]).unwrap();
    assert_eq!(names(&*skills.catalog().ensure_loaded().await), ["alpha", "beta"]);
    let mut events = skills.catalog().subscribe();
    let _watch = skills.watch().unwrap();

    // An edit the process may not read: beta keeps its last good version.
    let beta = root.join("skills/beta/SKILL.md");
    write(root, "skills/beta/SKILL.md", &md("beta", "B2"));
    chmod(&beta, 0o000);
    let event = next_event(&mut events).await;
    assert!(
        event
            .changes
            .iter()
            .any(|c| matches!(c, CatalogChange::KeptLastGood { name, reason } if name == "beta" && reason.contains("permission"))),
        "{:?}",
        event.changes
    );
    let snapshot = skills.catalog().snapshot();
    assert_eq!(snapshot.get("beta").unwrap().description, "B1");
    assert!(kinds(&snapshot).contains(&("/skills/beta/SKILL.md".into(), DiagnosticKind::ReadFailed)));

    // A resource folder that cannot be listed: a warning, the skill stays.
    // (The watcher may reload first; this reload then finds the same disk.)
    chmod(&beta, 0o644);
    chmod(&root.join("skills/beta/references"), 0o000);
    skills.reload().await;
    let snapshot = skills.catalog().snapshot();
    assert_eq!(names(&snapshot), ["alpha", "beta"]);
    assert!(kinds(&snapshot).contains(&("/skills/beta/references".into(), DiagnosticKind::ResourcesUnlisted)));

    // The whole source cannot be listed: everything is kept, the source is reported.
    chmod(&root.join("skills"), 0o000);
    skills.reload().await;
    let snapshot = skills.catalog().snapshot();
    assert_eq!(names(&snapshot), ["alpha", "beta"]);
    assert!(kinds(&snapshot).contains(&("/skills".into(), DiagnosticKind::SourceUnreadable)));
    let unreadable = snapshot
        .diagnostics()
        .iter()
        .find(|d| d.kind == DiagnosticKind::SourceUnreadable);
    assert!(unreadable.unwrap().message.contains("permission"), "{unreadable:?}");

    // Permissions come back: the watcher sees the change and the catalog recovers alone.
    chmod(&root.join("skills"), 0o755);
    chmod(&root.join("skills/beta/references"), 0o755);
    write(root, "skills/alpha/SKILL.md", &md("alpha", "A2"));
    loop {
        next_event(&mut events).await;
        let snapshot = skills.catalog().snapshot();
        if snapshot.diagnostics().is_empty() && snapshot.get("alpha").unwrap().description == "A2" {
            assert_eq!(snapshot.get("beta").unwrap().description, "B2");
            assert_eq!(snapshot.resources()["beta"].len(), 1);
            break;
        }
    }
}

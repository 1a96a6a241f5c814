//! Hot reload on real temp directories: the fs backend's watcher drives the catalog, and
//! every semantic is checked through the middleware's hooks. Tests wait on catalog events
//! with a timeout, never on fixed sleeps.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use skills_backend_fs::FilesystemBackend;
use skills_catalog::*;
use skills_core::{DiagnosticKind, SkillsState};
use skills_middleware::*;
use tokio::sync::broadcast;

const TIMEOUT: Duration = Duration::from_secs(10);

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nBody of {name}: {description}.\n")
}

/// Writes a file atomically (temp file + rename), as editors and `git` do.
fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp-write");
    std::fs::write(&tmp, content).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

struct Fixture {
    dir: tempfile::TempDir,
    mw: SkillsMiddleware,
    events: broadcast::Receiver<CatalogEvent>,
    _watch: WatchHandle,
}

impl Fixture {
    async fn new(policy: ReloadPolicy) -> Self {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "skills/web/SKILL.md", &md("web", "Search the web"));
        write(dir.path(), "skills/sql/SKILL.md", &md("sql", "Review SQL"));
        let backend = Arc::new(FilesystemBackend::new(dir.path()).unwrap());
        let mw = SkillsMiddleware::builder()
            .paths(backend, ["/skills"])
            .reload_policy(policy)
            .build()
            .unwrap();
        mw.catalog().ensure_loaded().await;
        let events = mw.catalog().subscribe();
        let watch = mw.watch().unwrap();
        assert!(watch.unwatched().is_empty());
        Self {
            dir,
            mw,
            events,
            _watch: watch,
        }
    }

    fn write(&self, rel: &str, content: &str) {
        write(self.dir.path(), rel, content);
    }

    async fn next_event(&mut self) -> CatalogEvent {
        tokio::time::timeout(TIMEOUT, self.events.recv())
            .await
            .expect("no catalog event in time")
            .unwrap()
    }

    async fn thread(&self) -> AgentState {
        let mut state = AgentState::new(vec![Message::user("hi")]);
        if let Some(update) = self.mw.before_agent(&state).await.unwrap() {
            state.apply(update);
        }
        state
    }

    /// The system message the model gets on this thread's next call.
    async fn prompt(&self, state: &AgentState) -> String {
        common::system_prompt(&self.mw, state).await
    }

    async fn load(&self, state: &mut AgentState, name: &str) -> ToolOutput {
        let tool = self.mw.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
        let runtime = ToolRuntime {
            state,
            tool_call_id: "call_1",
            agent: None,
        };
        let output = tool.call(json!({ "skill_name": name }), runtime).await;
        if let Some(command) = output.as_command() {
            state.apply(command.update.clone());
        }
        output
    }
}

fn text(output: &ToolOutput) -> String {
    output.tool_message("call_1").unwrap().content.clone()
}

#[tokio::test]
async fn a_new_skill_appears_on_the_next_model_call() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let state = f.thread().await;
    assert!(!f.prompt(&state).await.contains("**pdf**"));
    f.write("skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let event = f.next_event().await;
    assert_eq!(event.changes, [CatalogChange::Added { name: "pdf".into() }]);
    assert!(f.prompt(&state).await.contains("- **pdf**: Read PDFs"));
}

#[tokio::test]
async fn an_edited_description_changes() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let state = f.thread().await;
    f.write("skills/web/SKILL.md", &md("web", "Search the web, carefully"));
    let event = f.next_event().await;
    assert_eq!(event.changes, [CatalogChange::Changed { name: "web".into() }]);
    assert!(f.prompt(&state).await.contains("- **web**: Search the web, carefully"));
}

#[tokio::test]
async fn a_deleted_skill_disappears_and_cannot_be_loaded() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let mut state = f.thread().await;
    std::fs::remove_dir_all(f.dir.path().join("skills/sql")).unwrap();
    let event = f.next_event().await;
    assert_eq!(event.changes, [CatalogChange::Removed { name: "sql".into() }]);
    assert!(!f.prompt(&state).await.contains("**sql**"));
    let output = f.load(&mut state, "sql").await;
    assert_eq!(text(&output), "Error: Skill 'sql' not found. Available skills: web");

    // Recreated, it comes back.
    f.write("skills/sql/SKILL.md", &md("sql", "Review SQL again"));
    let event = f.next_event().await;
    assert_eq!(event.changes, [CatalogChange::Added { name: "sql".into() }]);
    assert!(text(&f.load(&mut state, "sql").await).contains("Body of sql: Review SQL again."));
}

#[tokio::test]
async fn a_broken_edit_keeps_the_last_good_version_until_fixed() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let mut state = f.thread().await;
    f.write("skills/web/SKILL.md", "---\nname: web\ndescription: [unclosed\n---\n");
    let event = f.next_event().await;
    let [CatalogChange::KeptLastGood { name, reason }] = event.changes.as_slice() else {
        panic!("{:?}", event.changes)
    };
    assert_eq!(name, "web");
    assert!(reason.contains("invalid YAML"), "{reason}");
    let snapshot = f.mw.catalog().snapshot();
    assert_eq!(snapshot.get("web").unwrap().description, "Search the web");
    let kinds: Vec<_> = snapshot.diagnostics().iter().map(|d| d.kind).collect();
    assert!(kinds.contains(&DiagnosticKind::KeptLastGood) && kinds.contains(&DiagnosticKind::InvalidYaml));
    assert!(f.prompt(&state).await.contains("- **web**: Search the web"));
    // load_skill reads the file as it is now: the reader sees the broken text, and the
    // catalog still lists the skill.
    assert!(f.load(&mut state, "web").await.as_command().is_some());

    f.write("skills/web/SKILL.md", &md("web", "Fixed"));
    let event = f.next_event().await;
    assert_eq!(event.changes, [CatalogChange::Changed { name: "web".into() }]);
    assert!(f.mw.catalog().snapshot().diagnostics().is_empty());
    // The thread's loaded skills survive reloads.
    assert!(f.prompt(&state).await.contains("- **web** [Loaded]: Fixed"));
}

#[tokio::test]
async fn per_thread_policy_keeps_the_starting_snapshot_until_reset() {
    let mut f = Fixture::new(ReloadPolicy::PerThread).await;
    let mut state = f.thread().await;
    f.write("skills/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    f.next_event().await;
    assert!(!f.prompt(&state).await.contains("**pdf**"));
    assert!(text(&f.load(&mut state, "pdf").await).contains("not found"));
    // A new thread starts on the new snapshot.
    assert!(f.prompt(&f.thread().await).await.contains("**pdf**"));
    // Resetting the catalog of the old thread moves it forward too.
    let mut reset = state.get::<SkillsState>().unwrap().clone();
    reset.skills_metadata = None;
    state.insert(reset);
    if let Some(update) = f.mw.before_agent(&state).await.unwrap() {
        state.apply(update);
    }
    assert!(f.prompt(&state).await.contains("**pdf**"));
}

#[tokio::test]
async fn two_hundred_new_skills_at_once_are_one_reload() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let reloads_before = f.mw.catalog().stats().reloads;
    for i in 0..200 {
        f.write(
            &format!("skills/bulk-{i:03}/SKILL.md"),
            &md(&format!("bulk-{i:03}"), "Bulk"),
        );
    }
    let event = f.next_event().await;
    let added = event
        .changes
        .iter()
        .filter(|c| matches!(c, CatalogChange::Added { .. }))
        .count();
    assert_eq!(added, 200, "the whole burst is in the first event");
    assert_eq!(f.mw.catalog().stats().reloads, reloads_before + 1);
    // The next edit is the next event: nothing of the burst was left over.
    f.write("skills/web/SKILL.md", &md("web", "After the burst"));
    assert_eq!(
        f.next_event().await.changes,
        [CatalogChange::Changed { name: "web".into() }]
    );
}

#[tokio::test]
async fn reloads_read_only_changed_files_and_model_calls_reuse_the_section() {
    let mut f = Fixture::new(ReloadPolicy::Live).await;
    let catalog = f.mw.catalog().clone();
    let read = catalog.stats().files_read;
    assert!(catalog.reload().await.is_none(), "nothing changed");
    assert_eq!(catalog.stats().files_read, read, "an unchanged reload reads no file");

    let state = f.thread().await;
    f.prompt(&state).await;
    let renders = f.mw.section_renders();
    let reloads = catalog.stats().reloads;
    for _ in 0..5 {
        f.prompt(&state).await;
    }
    assert_eq!(f.mw.section_renders(), renders, "no rendering without a change");
    assert_eq!(catalog.stats().reloads, reloads, "no discovery on model calls");

    f.write("skills/sql/SKILL.md", &md("sql", "Edited"));
    f.next_event().await;
    assert_eq!(catalog.stats().files_read, read + 1, "one edit, one read");
    assert!(f.prompt(&state).await.contains("Edited"));
    assert_eq!(f.mw.section_renders(), renders + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_load_skill_calls_each_see_one_whole_snapshot_during_a_reload() {
    // No watcher: the one reload below is the only way the catalog changes, so every
    // snapshot is either all before (both skills old) or all after (both new).
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/web/SKILL.md", &md("web", "Old web"));
    write(dir.path(), "skills/sql/SKILL.md", &md("sql", "Old sql"));
    let backend = Arc::new(FilesystemBackend::new(dir.path()).unwrap());
    let mw = Arc::new(SkillsMiddleware::new(backend, ["/skills"]).unwrap());
    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(mw.before_agent(&state).await.unwrap().unwrap());
    let state = Arc::new(state);
    write(dir.path(), "skills/web/SKILL.md", &md("web", "New web"));
    write(dir.path(), "skills/sql/SKILL.md", &md("sql", "New sql"));

    let mut tasks = Vec::new();
    let mut reload = None;
    for i in 0..32 {
        let (skills, state) = (mw.clone(), state.clone());
        tasks.push(tokio::spawn(async move {
            let tool = skills.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
            let runtime = ToolRuntime {
                state: &state,
                tool_call_id: "call_1",
                agent: None,
            };
            let name = if i % 2 == 0 { "web" } else { "sql" };
            tool.call(json!({ "skill_name": name }), runtime).await
        }));
        if i == 8 {
            let skills = mw.clone();
            reload = Some(tokio::spawn(async move { skills.reload().await }));
        }
    }
    for task in tasks {
        let output = tokio::time::timeout(TIMEOUT, task).await.unwrap().unwrap();
        let command = output.as_command().expect("every call loads");
        let update = command.update.get::<SkillsState>().unwrap();
        let description = |name: &str| {
            let skills = update.skills_metadata.as_ref().unwrap();
            skills.iter().find(|s| s.name == name).unwrap().description.clone()
        };
        let pair = (description("web"), description("sql"));
        let old = ("Old web".to_owned(), "Old sql".to_owned());
        let new = ("New web".to_owned(), "New sql".to_owned());
        assert!(pair == old || pair == new, "a torn snapshot: {pair:?}");
    }
    let event = tokio::time::timeout(TIMEOUT, reload.unwrap())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(event.changes.len(), 2, "{:?}", event.changes);
    assert_eq!(mw.catalog().snapshot().get("web").unwrap().description, "New web");
}

#[tokio::test]
async fn backends_without_a_watcher_reload_on_demand() {
    let backend = Arc::new(skills_core::MemoryBackend::new());
    backend.insert("/skills/web/SKILL.md", md("web", "Web")).unwrap();
    let mw = SkillsMiddleware::new(backend.clone(), ["/skills"]).unwrap();
    let watch = mw.watch().unwrap();
    assert_eq!(watch.unwatched().len(), 1);
    mw.catalog().ensure_loaded().await;
    backend.insert("/skills/pdf/SKILL.md", md("pdf", "PDF")).unwrap();
    let event = mw.reload().await.unwrap();
    assert_eq!(event.changes, [CatalogChange::Added { name: "pdf".into() }]);
    assert_eq!(event.version, 2);
}

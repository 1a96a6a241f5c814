//! A server that lies (tests/hostile_server.py, on stdio): wrong digests, URIs outside
//! their skill, endless pages, a file over every limit, reads that never answer, a
//! server that dies. None of it crashes, hangs or serves unverified bytes.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use skills_backend_mcp::{McpBackend, McpTarget};
use skills_catalog::{CatalogSnapshot, SkillCatalog, SkillSource};
use skills_core::{BackendExt, BackendProtocol, Diagnostic, DiagnosticKind, FileErrorKind};

fn script() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hostile_server.py")
        .to_string_lossy()
        .into_owned()
}

fn python() -> String {
    std::env::var("SKILLS_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The diagnostics of `kind` in `snapshot`.
fn said(snapshot: &CatalogSnapshot, kind: DiagnosticKind) -> Vec<&Diagnostic> {
    snapshot.diagnostics().iter().filter(|d| d.kind == kind).collect()
}

fn hostile(mode: &str, log: Option<&std::path::Path>) -> McpBackend {
    let mut args = vec![script(), mode.to_owned()];
    args.extend(log.map(|l| l.to_string_lossy().into_owned()));
    McpBackend::new(McpTarget::stdio(python(), args)).with_timeout(Duration::from_secs(3))
}

fn catalog(backend: McpBackend) -> SkillCatalog {
    SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/").with_label("hostile")])
}

#[tokio::test]
async fn bytes_that_do_not_match_the_digest_are_never_served() {
    let backend = hostile("wrong-digest", None);
    let catalog = catalog(backend.clone());
    let snapshot = catalog.ensure_loaded().await;
    assert!(snapshot.get("honest").is_some());
    assert!(snapshot.get("liar").is_none(), "not served");
    let failed = said(&snapshot, DiagnosticKind::ReadFailed);
    assert_eq!(failed.len(), 1, "{:?}", snapshot.diagnostics());
    assert_eq!(failed[0].path, "/liar/SKILL.md");
    assert!(
        failed[0].message.contains("does not match the digest"),
        "{}",
        failed[0].message
    );
    let read = backend.download_file("/liar/SKILL.md").await;
    assert!(read.is_err());
    assert_eq!(
        backend.download_file("/honest/SKILL.md").await.unwrap(),
        b"---\nname: honest\ndescription: Tells the truth\n---\n# honest\n"
    );
}

#[tokio::test]
async fn uris_outside_their_skill_are_left_out_and_said() {
    let backend = hostile("escape", None);
    let entries = backend.walk("/", 4).await.unwrap();
    let paths: Vec<&str> = entries
        .entries
        .iter()
        .filter(|e| !e.is_dir)
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(paths, ["/escape/SKILL.md", "/honest/SKILL.md"]);
    let problems = backend.problems();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`skill://honest/stolen.txt` is outside the skill"))
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`skill://../up/SKILL.md` is not skill://PATH/SKILL.md"))
    );
    // Discovery says so, on the source.
    let snapshot = catalog(backend.clone()).ensure_loaded().await;
    let withheld = said(&snapshot, DiagnosticKind::Withheld);
    assert_eq!(withheld.len(), 3, "{:?}", snapshot.diagnostics());
    assert!(withheld.iter().all(|d| d.path == "/"));
    let read = backend
        .download_files(&["/honest/stolen.txt".to_owned(), "/../etc/passwd".to_owned()])
        .await;
    assert_eq!(read[0].error.as_ref().unwrap().kind, FileErrorKind::FileNotFound);
    assert_eq!(read[1].error.as_ref().unwrap().kind, FileErrorKind::InvalidPath);
}

#[tokio::test]
async fn endless_pages_end_in_an_error_not_a_hang() {
    let catalog = catalog(hostile("endless", None));
    let snapshot = catalog.ensure_loaded().await;
    assert!(snapshot.skills().is_empty());
    let unreadable = said(&snapshot, DiagnosticKind::SourceUnreadable);
    assert_eq!(unreadable.len(), 1, "{:?}", snapshot.diagnostics());
    assert!(
        unreadable[0].message.contains("past 1000 pages"),
        "{}",
        unreadable[0].message
    );
}

#[tokio::test]
async fn a_file_over_the_limit_is_never_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("reads.log");
    let backend = hostile("huge", Some(&log));
    let read = backend
        .download_files(&["/big/assets/huge.bin".to_owned(), "/big/SKILL.md".to_owned()])
        .await;
    assert_eq!(read[0].error.as_ref().unwrap().kind, FileErrorKind::TooLarge);
    assert!(read[1].error.is_none());
    let reads = std::fs::read_to_string(&log).unwrap();
    assert_eq!(reads, "skill://big/SKILL.md\n", "the huge file was never read");
}

#[tokio::test]
async fn a_read_that_never_answers_times_out() {
    let backend = hostile("slow", None).with_timeout(Duration::from_millis(500));
    let read = backend.download_files(&["/honest/SKILL.md".to_owned()]).await;
    let error = read[0].error.as_ref().unwrap();
    assert!(error.message.contains("took longer"), "{}", error.message);
}

#[tokio::test]
async fn a_server_that_dies_keeps_its_last_listing_and_is_started_again() {
    let backend = hostile("dies", None);
    let first = backend.ls_info("/").await.unwrap();
    assert_eq!(first.len(), 1);
    // The process exited after answering: the next listing finds the session closed
    // and serves the last listing, said stale...
    let again = backend.ls_info("/").await.unwrap();
    assert_eq!(again, first);
    let stale = backend.stale().unwrap();
    assert!(stale.contains("serving its last listing"), "{stale}");
    // ...and the one after starts the server again.
    let third = backend.ls_info("/").await.unwrap();
    assert_eq!(third, first);
    assert_eq!(backend.stale(), None);
}

#[tokio::test]
async fn a_server_that_cannot_start_is_an_unreadable_source() {
    let backend = McpBackend::new(McpTarget::stdio("/nonexistent/mcp-server", ["--stdio"]));
    let snapshot = catalog(backend).ensure_loaded().await;
    let diagnostic = &snapshot.diagnostics()[0];
    assert_eq!(diagnostic.kind, DiagnosticKind::SourceUnreadable);
    assert!(
        diagnostic.message.contains("cannot start `/nonexistent/mcp-server`"),
        "{}",
        diagnostic.message
    );
}

/// An agent on `SkillsMiddleware` with an MCP source: the model is offered and loads
/// the skill whose bytes check out, never the one whose bytes do not.
#[tokio::test]
async fn an_agent_sees_and_loads_only_verified_skills() {
    use skills_middleware::{Agent, AgentState, Message, ScriptedModel, SkillsMiddleware};
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(Arc::new(hostile("wrong-digest", None)), "/").with_label("vendor"))
        .build()
        .unwrap();
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", serde_json::json!({"skill_name": "honest"}))
            .tool_call("load_skill", serde_json::json!({"skill_name": "liar"}))
            .reply("done"),
    );
    let agent = Agent::builder(model.clone())
        .middleware(Arc::new(skills))
        .build()
        .unwrap();
    let mut state = AgentState::new(vec![Message::user("go")]);
    agent.invoke(&mut state).await.unwrap();
    let seen = model.seen();
    let system = seen[0].system_message.clone().unwrap();
    assert!(
        system.contains("**honest**") && !system.contains("**liar**"),
        "{system}"
    );
    let answers = seen[2].tool_results();
    assert!(answers[0].contains("# honest"), "{answers:?}");
    assert!(answers[1].starts_with("Error: Skill 'liar' not found"), "{answers:?}");
}

#[tokio::test]
async fn a_dynamic_skill_is_served_without_a_digest_and_said_so() {
    let backend = hostile("dynamic", None);
    let snapshot = catalog(backend.clone()).ensure_loaded().await;
    assert_eq!(snapshot.get("live").unwrap().description, "Generated on request");
    let problems = backend.problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("`skill://live/SKILL.md` publishes its resources as dynamic"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("`skill://honest/SKILL.md` is outside the skill"),
        "{}",
        problems[1]
    );
    // Its files, from resources/directory/read, without digests.
    let listed = backend.ls_info("/live").await.unwrap();
    let paths: Vec<&str> = listed.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/live/SKILL.md", "/live/templates"]);
    assert_eq!(listed[0].etag, None, "no digest to name it by");
    assert_eq!(
        backend.download_file("/live/templates/report.md").await.unwrap(),
        b"# Report\n"
    );
}

/// Skills are identified by server and URI: two skills of one server with one name are
/// both kept, the later named by its path, and said.
#[tokio::test]
async fn two_skills_with_one_name_are_both_kept_by_path() {
    let backend = hostile("twins", None);
    let catalog = SkillCatalog::new(vec![
        SkillSource::new(Arc::new(backend), "/")
            .with_label("hostile")
            .with_depth(2),
    ]);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.get("deploy").unwrap().description, "Deploy, the a way");
    assert_eq!(snapshot.get("b/deploy").unwrap().description, "Deploy, the b way");
    let said = said(&snapshot, DiagnosticKind::DuplicateName);
    assert_eq!(said.len(), 1, "{:?}", snapshot.diagnostics());
    assert_eq!(said[0].path, "/b/deploy/SKILL.md");
    assert!(said[0].message.contains("kept as 'b/deploy'"), "{}", said[0].message);
    let answer = skills_catalog::load_skill(&snapshot, "b/deploy", &[]).await.to_string();
    assert!(answer.contains("Deploy, the b way"), "{answer}");
}

/// A listing the server says is fresh for a minute (`ttlMs`) is not asked for again
/// within it, however often the root is listed.
#[tokio::test]
async fn no_listing_is_asked_for_before_the_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lists.log");
    let backend = hostile("ttl", Some(&log));
    for _ in 0..3 {
        assert_eq!(backend.ls_info("/").await.unwrap().len(), 1);
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "skills/list\n");
}

/// An answer over the transport's bound (16 MiB a message on stdio) is refused, not
/// held: the listing fails and nothing is served.
#[tokio::test]
async fn a_page_over_the_message_bound_is_refused() {
    let backend = hostile("huge-page", None).with_timeout(Duration::from_secs(2));
    let listed = backend.ls_info("/").await;
    assert!(listed.is_err(), "{listed:?}");
}

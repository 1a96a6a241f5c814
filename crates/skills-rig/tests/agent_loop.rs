//! rig's own agent loop, driven by a scripted completion model (no network), with a
//! skill library on disk: what the model sees and what the tools answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rig_agent::AgentBuilder;
use rig_core::tool::{Tool, ToolContext};
use serde_json::json;
use skills_backend_fs::FilesystemBackend;
use skills_catalog::{AllowedToolsPolicy, CatalogBudget, SkillCatalog, SkillSource};
use skills_rig::{SkillSession, Skills};
use support::{Scripted, preamble, tool_results, write_skill};

const BASE: &str = "You are a careful assistant.";

fn library(root: &std::path::Path) -> Arc<SkillCatalog> {
    let backend = Arc::new(FilesystemBackend::new(root).unwrap());
    Arc::new(SkillCatalog::new(vec![
        SkillSource::new(backend, "/").with_label("team"),
    ]))
}

fn pdf_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "pdf",
        "Extract text and tables from PDF files",
        "",
        "# PDF\nUse pdftotext first.",
    );
    std::fs::create_dir_all(dir.path().join("pdf/references")).unwrap();
    std::fs::write(
        dir.path().join("pdf/references/forms.md"),
        "Fill forms with the form tool.",
    )
    .unwrap();
    write_skill(
        dir.path(),
        "sql-review",
        "Review SQL migrations for locking problems",
        "",
        "Check locks.",
    );
    dir
}

#[tokio::test]
async fn the_preamble_lists_the_skills_after_the_agents_own() {
    let dir = pdf_library();
    let skills = Skills::new(library(dir.path()));
    let script = Scripted::new().text("Hello.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    let answer = agent.prompt("hi").max_turns(8).await.unwrap();

    assert_eq!(answer.output(), "Hello.");
    let sent = preamble(&script.requests()[0]);
    assert!(sent.starts_with(BASE), "{sent}");
    assert!(
        sent.contains("- **pdf**: Extract text and tables from PDF files"),
        "{sent}"
    );
    assert!(sent.contains("- **sql-review**: Review SQL migrations"), "{sent}");
    assert!(!sent.contains("[Loaded]"), "nothing is loaded yet: {sent}");
    // The tools the model is offered.
    let tools: Vec<String> = script.requests()[0].tools.iter().map(|t| t.name.to_string()).collect();
    for tool in ["load_skill", "read_skill_resource", "search_skills"] {
        assert!(tools.contains(&tool.to_owned()), "{tools:?}");
    }
    // Offering search_skills starts building its index, so the first search is fast.
    let catalog = session.catalog().clone();
    tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while !catalog.search_ready() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the search index was built without a search");
}

#[tokio::test]
async fn load_skill_returns_the_skill_and_its_resources_and_the_next_turn_shows_it_loaded() {
    let dir = pdf_library();
    let skills = Skills::new(library(dir.path()));
    let script = Scripted::new()
        .call("c1", "load_skill", json!({"skill_name": "pdf"}))
        .call("c2", "load_skill", json!({"skill_name": "pdf"}))
        .call(
            "c3",
            "read_skill_resource",
            json!({"skill_name": "pdf", "path": "references/forms.md"}),
        )
        .call(
            "c4",
            "read_skill_resource",
            json!({"skill_name": "pdf", "path": "../sql-review/SKILL.md"}),
        )
        .text("Done.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("read this pdf").max_turns(8).await.unwrap();

    let requests = script.requests();
    assert_eq!(requests.len(), 5);
    let results = tool_results(&requests[4]);
    let (loaded, is_error) = &results[0];
    assert!(!is_error);
    assert!(loaded.starts_with("---\nname: pdf"), "{loaded}");
    assert!(loaded.contains("Use pdftotext first."), "{loaded}");
    assert!(
        loaded.contains("/pdf/references/forms.md"),
        "the resource list: {loaded}"
    );
    assert_eq!(
        results[1],
        (
            "Skill 'pdf' is already loaded. Its instructions are already active.".to_owned(),
            false
        )
    );
    assert_eq!(results[2], ("Fill forms with the form tool.".to_owned(), false));
    assert!(results[3].1, "a path outside the skill is an error");
    assert!(results[3].0.contains("path contains `..`"), "{}", results[3].0);

    // The turn before the load lists pdf as available; every turn after marks it.
    assert!(!preamble(&requests[0]).contains("[Loaded]"));
    for request in &requests[1..] {
        assert!(
            preamble(request).contains("- **pdf** [Loaded]"),
            "{}",
            preamble(request)
        );
    }
    assert_eq!(session.loaded(), ["pdf"]);
}

#[tokio::test]
async fn an_unknown_skill_is_an_error_result_and_loads_nothing() {
    let dir = pdf_library();
    let skills = Skills::new(library(dir.path()));
    let script = Scripted::new()
        .call("c1", "load_skill", json!({"skill_name": "nope"}))
        .text("Sorry.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("go").max_turns(8).await.unwrap();

    let (text, is_error) = tool_results(&script.requests()[1]).remove(0);
    assert!(is_error);
    assert!(
        text.starts_with("Error: Skill 'nope' not found. Available skills: pdf, sql-review"),
        "{text}"
    );
    assert!(session.loaded().is_empty());
}

#[tokio::test]
async fn search_skills_finds_a_skill_the_budgeted_list_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..60 {
        let name = format!("helper-{i:02}");
        write_skill(
            dir.path(),
            &name,
            &format!("Generic helper number {i} for everyday chores"),
            "",
            "x",
        );
    }
    write_skill(
        dir.path(),
        "kubernetes-rollback",
        "Roll back a failed Kubernetes deployment to its previous revision",
        "",
        "kubectl rollout undo",
    );
    let skills = Skills::builder(library(dir.path()))
        .budget(CatalogBudget::of_chars(1_500))
        .build();
    let script = Scripted::new()
        .call(
            "c1",
            "search_skills",
            json!({"query": "roll back kubernetes deployment"}),
        )
        .text("Found it.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("undo the release").max_turns(8).await.unwrap();

    let requests = script.requests();
    let first = preamble(&requests[0]);
    assert!(
        first.len() < 1_500 + BASE.len() + 2_000,
        "the list keeps to its budget: {}",
        first.len()
    );
    assert!(
        !first.contains("Roll back a failed Kubernetes deployment"),
        "the budget leaves the skill without its full entry: {first}"
    );
    assert!(first.contains("search_skills"), "the section points at search: {first}");
    let (found, is_error) = tool_results(&requests[1]).remove(0);
    assert!(!is_error);
    assert!(
        found.starts_with("- kubernetes-rollback: Roll back a failed Kubernetes deployment"),
        "best first: {found}"
    );
}

/// A tool that counts its calls, standing for a shell.
#[derive(Clone, Default)]
struct Shell {
    runs: Arc<AtomicUsize>,
}

#[derive(serde::Deserialize)]
struct ShellArgs {
    command: String,
}

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

impl Tool for Shell {
    const NAME: &'static str = "shell";
    type Args = ShellArgs;
    type Output = String;
    type Error = Never;

    fn description(&self) -> String {
        "Run a command".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
    }

    async fn call(&self, _context: &mut ToolContext, args: ShellArgs) -> Result<String, Never> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(format!("ran {}", args.command))
    }
}

#[tokio::test]
async fn a_tool_the_loaded_skills_restrict_is_skipped_with_the_policys_message() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "git-status",
        "Inspect a repository",
        "allowed-tools: shell(git status:*)\n",
        "Run git status.",
    );
    let skills = Skills::builder(library(dir.path()))
        .policy(AllowedToolsPolicy::Restrict)
        .build();
    let shell = Shell::default();
    let script = Scripted::new()
        .call("c1", "shell", json!({"command": "rm -rf /tmp/x"}))
        .call("c2", "load_skill", json!({"skill_name": "git-status"}))
        .call("c3", "shell", json!({"command": "git status"}))
        .call("c4", "shell", json!({"command": "rm -rf /tmp/x"}))
        .text("Done.");
    let session = skills.session();
    // The host's own tool first, then the skills.
    let builder = AgentBuilder::new(script.model()).tool(shell.clone());
    let agent = session.install(builder, BASE).build();

    agent.prompt("clean up").max_turns(8).await.unwrap();

    let results = tool_results(&script.requests()[4]);
    assert_eq!(
        results[0],
        ("ran rm -rf /tmp/x".to_owned(), false),
        "nothing restricts before a skill loads"
    );
    assert_eq!(
        results[2],
        ("ran git status".to_owned(), false),
        "the allowed pattern runs"
    );
    let (skipped, is_error) = &results[3];
    assert!(is_error);
    assert!(
        skipped.contains("'shell' is not in the allowed-tools list for the currently loaded skills"),
        "{skipped}"
    );
    assert_eq!(shell.runs.load(Ordering::SeqCst), 2, "the skipped call never ran");
}

#[tokio::test]
async fn disallowed_tools_are_skipped_under_the_default_policy() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "offline",
        "Work without the shell",
        "disallowed-tools: shell\n",
        "No shell.",
    );
    let skills = Skills::new(library(dir.path()));
    let shell = Shell::default();
    let script = Scripted::new()
        .call("c1", "load_skill", json!({"skill_name": "offline"}))
        .call("c2", "shell", json!({"command": "ls"}))
        .text("Done.");
    let session = skills.session();
    let agent = session
        .install(AgentBuilder::new(script.model()), BASE)
        .tool(shell.clone())
        .build();

    agent.prompt("list").max_turns(8).await.unwrap();

    let (skipped, is_error) = tool_results(&script.requests()[2]).remove(1);
    assert!(is_error);
    assert!(
        skipped.contains("Tool 'shell' is disallowed while skill 'offline' is loaded"),
        "{skipped}"
    );
    assert_eq!(shell.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_skill_added_to_the_library_shows_to_the_running_agent() {
    let dir = pdf_library();
    let catalog = library(dir.path());
    let skills = Skills::new(catalog.clone());
    let script = Scripted::new()
        .text("First.")
        .call("c1", "load_skill", json!({"skill_name": "changelog"}))
        .text("Second.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("one").max_turns(8).await.unwrap();
    write_skill(
        dir.path(),
        "changelog",
        "Write release notes from merged pull requests",
        "",
        "Group by kind.",
    );
    catalog.reload().await.expect("the library changed");
    agent.prompt("two").max_turns(8).await.unwrap();

    let requests = script.requests();
    assert!(!preamble(&requests[0]).contains("changelog"));
    assert!(
        preamble(&requests[1]).contains("- **changelog**: Write release notes"),
        "{}",
        preamble(&requests[1])
    );
    let (loaded, is_error) = tool_results(&requests[2]).remove(0);
    assert!(!is_error);
    assert!(loaded.contains("Group by kind."), "{loaded}");
}

#[tokio::test]
async fn a_skill_for_people_only_is_refused_to_the_model_and_activated_by_the_host() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "deploy",
        "Deploy to production",
        "disable-model-invocation: true\nargument-hint: \"[env]\"\n",
        "Deploy to $0.",
    );
    write_skill(dir.path(), "notes", "Take notes", "", "Write notes.");
    let skills = Skills::new(library(dir.path()));
    let script = Scripted::new()
        .call("c1", "load_skill", json!({"skill_name": "deploy"}))
        .text("I cannot.");
    let session: SkillSession = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("deploy").max_turns(8).await.unwrap();

    assert!(
        !preamble(&script.requests()[0]).contains("deploy"),
        "left out of the model's list"
    );
    let (refused, is_error) = tool_results(&script.requests()[1]).remove(0);
    assert!(is_error);
    assert!(refused.contains("can only be invoked by the user"), "{refused}");
    assert!(session.loaded().is_empty());

    let arguments = skills_catalog::SkillArguments::Text("staging".to_owned());
    let activated = session.activate("deploy", Some(&arguments)).await;
    assert!(activated.to_string().contains("Deploy to staging."), "{activated}");
    assert_eq!(session.loaded(), ["deploy"]);
}

#[tokio::test]
async fn sessions_do_not_share_loaded_skills() {
    let dir = pdf_library();
    let skills = Skills::new(library(dir.path()));
    let (one, two) = (skills.session(), skills.session());
    one.load("pdf", None, skills_catalog::Invoker::Model).await;
    assert_eq!(one.loaded(), ["pdf"]);
    assert!(two.loaded().is_empty());
    assert!(one.section().await.contains("- **pdf** [Loaded]"));
    assert!(!two.section().await.contains("[Loaded]"));
    one.reset();
    assert!(one.loaded().is_empty());
}

#[tokio::test]
async fn a_watched_library_reaches_the_agent_without_a_reload_call() {
    let dir = pdf_library();
    let catalog = library(dir.path());
    catalog.ensure_loaded().await;
    let _watch = catalog.watch().expect("the disk backend watches");
    let mut events = catalog.subscribe();
    let skills = Skills::new(catalog.clone());
    let script = Scripted::new().text("First.").text("Second.");
    let session = skills.session();
    let agent = session.install(AgentBuilder::new(script.model()), BASE).build();

    agent.prompt("one").await.unwrap();
    write_skill(
        dir.path(),
        "changelog",
        "Write release notes from merged pull requests",
        "",
        "Group by kind.",
    );
    // The watcher reloads the catalog on its own; wait (bounded) until it has.
    let event = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            let event = events.recv().await.expect("the catalog lives");
            if catalog.snapshot().get("changelog").is_some() {
                return event;
            }
        }
    })
    .await
    .expect("the watcher saw the new skill");
    assert!(!event.changes.is_empty());
    agent.prompt("two").await.unwrap();

    let requests = script.requests();
    assert!(!preamble(&requests[0]).contains("changelog"));
    assert!(
        preamble(&requests[1]).contains("- **changelog**: Write release notes"),
        "{}",
        preamble(&requests[1])
    );
}

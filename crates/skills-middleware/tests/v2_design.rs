//! The unit tests of the V2 design's table (section 6.1), one per row and under the
//! row's name, plus the cases the table implies (decode errors, resets, escaping).

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::v2::{call_load_skill, discovered, load, message, middleware, skills};
use common::{FailingListings, library, md, run_before_agent, stand_in};
use serde_json::json;
use skills_catalog::*;
use skills_core::resources::discover_resources;
use skills_core::{DiagnosticKind, MemoryBackend, ResourceKind, SkillsState};
use skills_middleware::*;

// --- resource discovery ---------------------------------------------------------------

#[tokio::test]
async fn test_discover_resources_standard_dirs() {
    let backend = library();
    let found = discover_resources(&*backend, "/skills/user/web", "web").await;
    let scripts: Vec<_> = found
        .iter()
        .filter(|r| r.kind == ResourceKind::Script)
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(
        scripts,
        [
            "/skills/user/web/scripts/fetch.sh",
            "/skills/user/web/scripts/search.py"
        ]
    );
    let kinds: BTreeSet<_> = found.iter().map(|r| r.kind).collect();
    assert!(kinds.contains(&ResourceKind::Reference) && kinds.contains(&ResourceKind::Asset));
    assert!(found.iter().all(|r| r.skill_name == "web"));
}

#[tokio::test]
async fn test_discover_resources_empty_skill() {
    let backend = library();
    assert!(
        discover_resources(&*backend, "/skills/user/notes", "notes")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn test_discover_resources_backend_error() {
    let inner = (*library()).clone();
    let whole = FailingListings {
        inner: inner.clone(),
        failing: BTreeSet::from(["/skills/user/web".to_owned()]),
    };
    assert!(discover_resources(&whole, "/skills/user/web", "web").await.is_empty());

    // One failing resource directory costs only its own files.
    let part = FailingListings {
        inner,
        failing: BTreeSet::from(["/skills/user/web/scripts".to_owned()]),
    };
    let found = discover_resources(&part, "/skills/user/web", "web").await;
    assert!(!found.is_empty());
    assert!(found.iter().all(|r| r.kind != ResourceKind::Script), "{found:?}");

    // Through the middleware, the skill still loads and the failure is a diagnostic.
    let mw = SkillsMiddleware::new(Arc::new(part), ["/skills/user"]).unwrap();
    let state = discovered(&mw).await;
    let names: Vec<_> = skills(&state)
        .skills_metadata
        .as_ref()
        .unwrap()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert!(names.contains(&"web".to_owned()));
    let kinds: Vec<_> = skills(&state).skills_load_errors.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::ResourcesUnlisted]);
}

#[tokio::test]
async fn test_discover_resources_non_standard_dirs_ignored() {
    let backend = library();
    let found = discover_resources(&*backend, "/skills/user/web", "web").await;
    assert!(found.iter().all(|r| !r.path.contains("/temp/")), "{found:?}");
    // Nested files inside a standard directory are not offered either (one level).
    backend.insert("/skills/user/web/scripts/lib/helper.py", "").unwrap();
    let found = discover_resources(&*backend, "/skills/user/web", "web").await;
    assert!(found.iter().all(|r| !r.path.contains("/lib/")), "{found:?}");
}

#[tokio::test]
async fn test_discover_resources_root_level_files() {
    let backend = library();
    let found = discover_resources(&*backend, "/skills/user/web", "web").await;
    let other: Vec<_> = found
        .iter()
        .filter(|r| r.kind == ResourceKind::Other)
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(other, ["/skills/user/web/template.md"]);
    assert!(found.iter().all(|r| !r.path.ends_with("SKILL.md")));
}

// --- state initialization -------------------------------------------------------------

#[tokio::test]
async fn test_before_agent_initializes_new_state() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    let s = skills(&state);
    let names: Vec<_> = s
        .skills_metadata
        .as_ref()
        .unwrap()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["notes", "sql", "web"]);
    assert!(s.skills_loaded.is_empty());
    assert_eq!(s.skill_resources["web"].len(), 5);
    assert!(s.skill_resources.get("notes").is_none_or(|r| r.is_empty()));
    assert!(s.skills_load_errors.is_empty(), "{:?}", s.skills_load_errors);
}

#[tokio::test]
async fn test_before_agent_idempotent() {
    let backend = library();
    let mw = middleware(backend.clone(), AllowedToolsPolicy::Recommend);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    // A new skill on disk does not change a thread that already has its catalog.
    backend
        .insert("/skills/user/new/SKILL.md", md("new", "New", ""))
        .unwrap();
    assert!(mw.before_agent(&state).await.unwrap().is_none());
    assert_eq!(skills(&state).skills_loaded, ["web"]);
    assert_eq!(skills(&state).skills_metadata.as_ref().unwrap().len(), 3);
}

#[tokio::test]
async fn before_agent_rediscovers_after_the_catalog_is_reset() {
    let backend = library();
    let mw = middleware(backend.clone(), AllowedToolsPolicy::Recommend);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    backend
        .insert("/skills/user/new/SKILL.md", md("new", "New", ""))
        .unwrap();

    // deepagents' reload contract: setting skills_metadata back to None asks again.
    let mut reset = skills(&state).clone();
    reset.skills_metadata = None;
    state.insert(reset);
    run_before_agent(&mw, &mut state).await;
    assert_eq!(skills(&state).skills_metadata.as_ref().unwrap().len(), 4);
    assert!(skills(&state).skills_loaded.is_empty());
}

// --- load_skill -----------------------------------------------------------------------

#[tokio::test]
async fn test_load_skill_returns_command_with_content() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    let output = call_load_skill(&mw, &state, "web").await;
    let command = output.as_command().expect("success is a Command");
    let msg = message(&output);
    assert_eq!(msg.status, ToolStatus::Success);
    assert_eq!(command.messages.len(), 1);
    assert!(msg.content.starts_with("---\nname: web\n"), "{}", msg.content);
    assert!(msg.content.contains("Instructions for web."));
    assert!(msg.content.contains("\n\n---\n**Skill Resources:**\n"));
    assert!(msg.content.contains("- [script] `/skills/user/web/scripts/search.py`"));
    assert!(
        msg.content
            .contains("- [reference] `/skills/user/web/references/sources.md`")
    );
    assert!(msg.content.contains("- [other] `/skills/user/web/template.md`"));
}

#[tokio::test]
async fn test_load_skill_updates_skills_loaded() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "sql").await;
    let output = call_load_skill(&mw, &state, "web").await;
    let update = output.as_command().unwrap().update.get::<SkillsState>().unwrap();
    assert_eq!(update.skills_loaded, ["sql", "web"]);
    // The rest of the state travels unchanged.
    assert_eq!(update.skills_metadata, skills(&state).skills_metadata);
}

#[tokio::test]
async fn test_load_skill_not_found_returns_error() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    let output = call_load_skill(&mw, &state, "nope").await;
    assert!(output.as_command().is_none());
    let msg = message(&output);
    assert!(msg.is_error());
    assert_eq!(
        msg.content,
        "Error: Skill 'nope' not found. Available skills: notes, sql, web"
    );
}

#[tokio::test]
async fn test_load_skill_already_loaded_returns_message() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    let output = call_load_skill(&mw, &state, "web").await;
    assert!(output.as_command().is_none());
    assert_eq!(
        message(&output).content,
        "Skill 'web' is already loaded. Its instructions are already active."
    );
    assert_eq!(skills(&state).skills_loaded, ["web"]);
}

#[tokio::test]
async fn test_load_skill_file_read_error() {
    let backend = library();
    let mw = middleware(backend.clone(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    backend.remove("/skills/user/sql/SKILL.md");
    let output = call_load_skill(&mw, &state, "sql").await;
    assert!(output.as_command().is_none());
    let msg = message(&output);
    assert!(msg.is_error());
    assert!(
        msg.content
            .starts_with("Error: Failed to read skill file at /skills/user/sql/SKILL.md: "),
        "{}",
        msg.content
    );
}

#[tokio::test]
async fn test_load_skill_file_size_exceeded() {
    let backend = Arc::new(MemoryBackend::new().with_max_file_size(1024));
    backend
        .insert("/skills/user/big/SKILL.md", md("big", "Grows later", ""))
        .unwrap();
    let mw = middleware(backend.clone(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    let grown = format!("{}{}", md("big", "Grows later", ""), "x".repeat(2048));
    backend.insert("/skills/user/big/SKILL.md", grown).unwrap();
    let output = call_load_skill(&mw, &state, "big").await;
    assert!(output.as_command().is_none());
    assert_eq!(
        message(&output).content,
        "Error: Skill file at /skills/user/big/SKILL.md exceeds maximum size (1024 bytes)"
    );
}

#[tokio::test]
async fn test_load_skill_decode_error() {
    let backend = library();
    let mw = middleware(backend.clone(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    backend
        .insert("/skills/user/notes/SKILL.md", b"---\xff\xfe".to_vec())
        .unwrap();
    let output = call_load_skill(&mw, &state, "notes").await;
    assert!(output.as_command().is_none());
    let msg = message(&output);
    assert!(msg.is_error());
    assert!(
        msg.content
            .starts_with("Error: Failed to decode skill file at /skills/user/notes/SKILL.md: "),
        "{}",
        msg.content
    );
}

#[tokio::test]
async fn load_skill_with_bad_arguments_answers_an_error() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let state = discovered(&mw).await;
    let tool = mw.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
    let runtime = ToolRuntime {
        state: &state,
        tool_call_id: "call_1",
        agent: None,
    };
    let output = tool.call(json!({ "name": "web" }), runtime).await;
    let msg = output.tool_message("call_1").unwrap();
    assert!(msg.is_error());
    assert!(msg.content.contains("skill_name"), "{}", msg.content);
}

// --- allowed-tools policy -------------------------------------------------------------

/// Calls `tool` through the middleware's `wrap_tool_call`, ending at stand-in tools.
async fn call_through_policy(mw: &SkillsMiddleware, state: &AgentState, tool: &str) -> ToolMessage {
    let tools: Vec<Arc<dyn Tool>> = [
        "web_search",
        "bash",
        "psql",
        "read_file",
        "write_todos",
        "ls",
        "read_skill_resource",
    ]
    .iter()
    .map(|name| stand_in(name) as Arc<dyn Tool>)
    .chain(mw.tools())
    .collect();
    let request = ToolCallRequest {
        call: ToolCall::new("call_1", tool, json!({ "skill_name": "notes" })),
        state,
    };
    let output = mw.wrap_tool_call(request, ToolNext::new(&[], &tools)).await;
    output.tool_message("call_1").unwrap().clone()
}

#[tokio::test]
async fn test_allowed_tools_recommend_mode_passthrough() {
    let mw = middleware(library(), AllowedToolsPolicy::Recommend);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    let msg = call_through_policy(&mw, &state, "bash").await;
    assert_eq!((msg.status, msg.content.as_str()), (ToolStatus::Success, "ran bash"));
}

#[tokio::test]
async fn test_allowed_tools_restrict_mode_allows_listed() {
    let mw = middleware(library(), AllowedToolsPolicy::Restrict);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    let msg = call_through_policy(&mw, &state, "web_search").await;
    assert_eq!(
        (msg.status, msg.content.as_str()),
        (ToolStatus::Success, "ran web_search")
    );
    // The union of every loaded skill's list applies.
    load(&mw, &mut state, "sql").await;
    assert_eq!(call_through_policy(&mw, &state, "psql").await.content, "ran psql");
}

#[tokio::test]
async fn test_allowed_tools_restrict_mode_blocks_unlisted() {
    let mw = middleware(library(), AllowedToolsPolicy::Restrict);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "web").await;
    load(&mw, &mut state, "sql").await;
    let msg = call_through_policy(&mw, &state, "bash").await;
    assert_eq!(msg.status, ToolStatus::Error);
    assert_eq!(msg.tool_call_id, "call_1");
    assert_eq!(
        msg.content,
        "Tool 'bash' is not in the allowed-tools list for the currently loaded skills. \
         Allowed tools: psql, read_file, web_search. If you believe this tool is necessary, explain your reasoning."
    );
}

#[tokio::test]
async fn test_allowed_tools_whitelist_always_allowed() {
    let mw = middleware(library(), AllowedToolsPolicy::Restrict);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "sql").await;
    for tool in ALWAYS_ALLOWED_TOOLS
        .iter()
        .filter(|t| ![LOAD_SKILL, "search_skills"].contains(*t))
    {
        let msg = call_through_policy(&mw, &state, tool).await;
        assert_eq!(msg.content, format!("ran {tool}"));
    }
    // search_skills is reached (its own argument check answers, not the policy).
    let msg = call_through_policy(&mw, &state, "search_skills").await;
    assert!(
        msg.content.contains("invalid arguments for search_skills"),
        "{}",
        msg.content
    );
    // load_skill really runs (and loads another skill) while sql restricts tools.
    let msg = call_through_policy(&mw, &state, "load_skill").await;
    assert!(msg.content.contains("Instructions for notes."), "{}", msg.content);
}

#[tokio::test]
async fn test_allowed_tools_no_loaded_skills_passthrough() {
    let mw = middleware(library(), AllowedToolsPolicy::Restrict);
    let state = discovered(&mw).await;
    assert_eq!(call_through_policy(&mw, &state, "bash").await.content, "ran bash");
    // Also before any discovery.
    assert_eq!(
        call_through_policy(&mw, &AgentState::default(), "bash").await.content,
        "ran bash"
    );
}

#[tokio::test]
async fn test_allowed_tools_no_restrictions_defined_passthrough() {
    let mw = middleware(library(), AllowedToolsPolicy::Restrict);
    let mut state = discovered(&mw).await;
    load(&mw, &mut state, "notes").await;
    assert_eq!(call_through_policy(&mw, &state, "bash").await.content, "ran bash");
}

//! Tool dependencies and views through the real agent loop: what the model is shown and
//! what `load_skill` answers, per agent tools and per view, on one shared catalog.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::sync::Arc;

use common::{md, stand_in};
use serde_json::json;
use skills_catalog::SkillView;
use skills_core::MemoryBackend;
use skills_middleware::*;

fn library() -> Arc<MemoryBackend> {
    let b = MemoryBackend::new();
    let needs_pr = "dependencies:\n  tools: [github_create_pr]\n  skills: [review]\n";
    b.insert(
        "/skills/ship-pr/SKILL.md",
        md("ship-pr", "Open a pull request", needs_pr),
    )
    .unwrap();
    b.insert("/skills/review/SKILL.md", md("review", "Review a change", ""))
        .unwrap();
    b.insert("/skills/pdf/SKILL.md", md("pdf", "Fill PDF forms", ""))
        .unwrap();
    b.insert(
        "/skills/read-any/SKILL.md",
        md(
            "read-any",
            "Read files",
            "dependencies:\n  tools:\n    any: [Read, cat]\n",
        ),
    )
    .unwrap();
    Arc::new(b)
}

/// Runs an agent with `tools` (besides the skills tools) whose model loads `skill`, and
/// returns the system message of its first call and what `load_skill` answered.
async fn load_as(skills: &SkillsMiddleware, tools: &[&str], skill: &str) -> (String, String) {
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": skill}))
            .reply("done"),
    );
    let mut builder = Agent::builder(model.clone()).middleware(Arc::new(skills.clone()));
    for tool in tools {
        builder = builder.tool(stand_in(tool));
    }
    let agent = builder.build().unwrap();
    let mut state = AgentState::new(vec![Message::user("go")]);
    agent.invoke(&mut state).await.unwrap();
    let seen = model.seen();
    let system = seen[0].system_message.clone().unwrap();
    let answer = seen[1].tool_results().last().unwrap().to_string();
    (system, answer)
}

#[tokio::test]
async fn an_agent_without_the_tool_neither_sees_nor_loads_the_skill_until_it_has_it() {
    let skills = SkillsMiddleware::builder()
        .paths(library(), ["/skills"])
        .build()
        .unwrap();
    let (system, answer) = load_as(&skills, &["Read"], "ship-pr").await;
    assert!(!system.contains("**ship-pr**"), "{system}");
    assert!(system.contains("**review**"));
    assert!(
        answer.contains("needs tools this agent does not have: github_create_pr"),
        "{answer}"
    );

    // The same middleware, once the agent has the tool.
    let (system, answer) = load_as(&skills, &["Read", "github_create_pr"], "ship-pr").await;
    assert!(system.contains("**ship-pr**"), "{system}");
    assert!(answer.contains("# ship-pr"), "{answer}");
    assert!(
        answer.contains("`review`: not loaded; use `load_skill(\"review\")`"),
        "{answer}"
    );
}

#[tokio::test]
async fn any_means_one_of_the_tools_is_enough() {
    let skills = SkillsMiddleware::builder()
        .paths(library(), ["/skills"])
        .build()
        .unwrap();
    let (system, _) = load_as(&skills, &["cat"], "read-any").await;
    assert!(system.contains("**read-any**"));
    let (system, answer) = load_as(&skills, &["Write"], "read-any").await;
    assert!(!system.contains("**read-any**"));
    assert!(answer.contains("one of Read, cat"), "{answer}");
}

#[tokio::test]
async fn a_fixed_tool_set_and_unavailable_skills_shown_marked() {
    let skills = SkillsMiddleware::builder()
        .paths(library(), ["/skills"])
        .available_tools(["Read"])
        .show_unavailable_skills(true)
        .build()
        .unwrap();
    // The model's tools do not matter: the host said what the agent has.
    let (system, answer) = load_as(&skills, &["github_create_pr"], "ship-pr").await;
    assert!(
        system.contains(
            "- **ship-pr**: Open a pull request\n  -> Unavailable: needs tools you do not have: github_create_pr"
        ),
        "{system}"
    );
    assert!(answer.starts_with("Error: Skill 'ship-pr' needs tools"), "{answer}");
}

#[tokio::test]
async fn a_subagent_with_a_view_sees_its_skills_while_the_main_agent_sees_all_from_one_catalog() {
    let backend = library();
    let main = SkillsMiddleware::builder()
        .paths(backend.clone(), ["/skills"])
        .build()
        .unwrap();
    let view = SkillView::new("docs").include(["pdf"]).unwrap();
    let sub = main.with_view(view);
    assert!(Arc::ptr_eq(main.catalog(), sub.catalog()));
    assert_eq!(sub.view().unwrap().name(), "docs");

    // The section rendered from a thread's state is the view's too.
    let state = sub.discover().await;
    let rendered = sub.render_section(Some(&state));
    assert!(
        rendered.contains("**pdf**") && !rendered.contains("**review**"),
        "{rendered}"
    );
    assert!(main.render_section(Some(&state)).contains("**review**"));

    let (main_system, _) = load_as(&main, &["Read"], "pdf").await;
    let (sub_system, refused) = load_as(&sub, &[], "review").await;
    for name in ["pdf", "review", "read-any"] {
        assert!(main_system.contains(&format!("**{name}**")), "{name}");
    }
    assert!(sub_system.contains("**pdf**"));
    assert!(!sub_system.contains("**review**"), "{sub_system}");
    assert!(
        refused.starts_with("Error: Skill 'review' not found. Available skills: pdf"),
        "{refused}"
    );

    // One reload, seen by both.
    backend
        .insert("/skills/pdf-sign/SKILL.md", md("pdf-sign", "Sign PDFs", ""))
        .unwrap();
    main.reload().await;
    let (sub_system, _) = load_as(&sub, &[], "pdf").await;
    assert!(!sub_system.contains("**pdf-sign**"), "not in the view");
    let wider = main.with_view(SkillView::new("pdfs").include(["pdf*"]).unwrap());
    let (wide_system, _) = load_as(&wider, &[], "pdf").await;
    assert!(wide_system.contains("**pdf-sign**"), "{wide_system}");
    let (main_system, _) = load_as(&main, &[], "pdf").await;
    assert!(main_system.contains("**pdf-sign**"));
}

//! A middleware with a catalog budget: the skills list of the system prompt stays
//! within it, and a loaded skill keeps its full entry.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use common::library;
use common::v2::{discovered, load};
use skills_catalog::{CatalogBudget, PromptTemplate};
use skills_middleware::SkillsMiddleware;

/// The skills list of a section: from its first entry to the end of the list.
fn list_of(section: &str) -> &str {
    let start = section.find("- **").unwrap();
    let end = section[start..].find("\n\n").map_or(section.len(), |e| start + e);
    &section[start..end]
}

#[tokio::test]
async fn the_prompt_list_stays_within_the_budget_and_loaded_skills_stay_whole() {
    let budget = 260;
    let mw = SkillsMiddleware::builder()
        .paths(library(), ["/skills/user"])
        .catalog_budget(CatalogBudget::of_chars(budget))
        .build()
        .unwrap();
    let mut state = discovered(&mw).await;
    let section = mw.render_section(state.get());
    let list = list_of(&section);
    assert!(list.chars().count() <= budget, "{list}");
    assert!(list.contains(" skills shown in full, "), "the counting line: {list}");
    assert!(!list.contains("Resources:"), "no full entry fits: {list}");

    load(&mw, &mut state, "web").await;
    assert_eq!(mw.catalog().use_counts().get("web"), 1, "a load is a use");
    let section = mw.render_section(state.get());
    assert!(
        section.contains(
            "- **web** [Loaded]: Search the web (License: MIT)\n  -> Recommended tools: web_search, read_file\n"
        ),
        "{section}"
    );
    // Without a budget the section is the V2 one.
    let plain = SkillsMiddleware::builder()
        .paths(library(), ["/skills/user"])
        .system_prompt_template(PromptTemplate::default().as_str())
        .build()
        .unwrap();
    let state = discovered(&plain).await;
    assert!(!plain.render_section(state.get()).contains("to keep this list short"));
}

/// An agent over `library()` whose model searches, then answers.
async fn agent_run(budget: CatalogBudget, query: serde_json::Value) -> (Vec<skills_middleware::SeenRequest>, String) {
    use skills_middleware::{Agent, AgentState, ScriptedModel};
    use std::sync::Arc;
    let mw = SkillsMiddleware::builder()
        .paths(library(), ["/skills/user"])
        .catalog_budget(budget)
        .build()
        .unwrap();
    let model = Arc::new(ScriptedModel::new().tool_call("search_skills", query).reply("done"));
    let agent = Agent::builder(model.clone()).middleware(Arc::new(mw)).build().unwrap();
    let mut state = AgentState::default();
    agent.invoke(&mut state).await.unwrap();
    let seen = model.seen();
    let answer = seen[1].tool_results().first().unwrap().to_string();
    (seen, answer)
}

#[tokio::test]
async fn search_skills_is_offered_only_when_the_budget_cuts_the_list() {
    let (seen, answer) = agent_run(
        CatalogBudget::of_chars(60),
        serde_json::json!({"query": "web searching"}),
    )
    .await;
    assert!(
        seen[0].tools.contains(&"search_skills".to_owned()),
        "{:?}",
        seen[0].tools
    );
    assert_eq!(answer, "- web: Search the web (User)");

    // Everything fits: the model is not offered a search it does not need.
    let (seen, _) = agent_run(CatalogBudget::default(), serde_json::json!({"query": "web"})).await;
    assert!(
        !seen[0].tools.contains(&"search_skills".to_owned()),
        "{:?}",
        seen[0].tools
    );
    assert!(seen[0].tools.contains(&"load_skill".to_owned()));
}

#[tokio::test]
async fn search_skills_refuses_an_empty_query_and_a_zero_limit() {
    let (_, answer) = agent_run(CatalogBudget::of_chars(60), serde_json::json!({"query": " "})).await;
    assert!(answer.starts_with("Error: the search query is empty"), "{answer}");
    let (_, answer) = agent_run(
        CatalogBudget::of_chars(60),
        serde_json::json!({"query": "sql", "limit": 0}),
    )
    .await;
    assert!(
        answer.starts_with("Error: the search limit must be at least 1"),
        "{answer}"
    );
}

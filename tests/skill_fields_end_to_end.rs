//! End to end on real files: the skill fields beyond the specification with the
//! reference agent, a scripted model and the filesystem backend over the skills that
//! ship in `examples/skill-fields`.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use serde_json::json;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::middleware::*;
use skills_runtime::{AllowedToolsPolicy, SkillArguments, SkillSource, SkillsState};

const LIBRARY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skill-fields");

fn stand_in(name: &'static str) -> Arc<FnTool> {
    Arc::new(FnTool::new(name, "stand-in", move |_| Ok(format!("{name} ran"))))
}

fn tool_results(state: &AgentState, from: usize) -> Vec<(ToolStatus, String)> {
    state.messages[from..]
        .iter()
        .filter_map(Message::as_tool)
        .map(|m| (m.status, m.content.clone()))
        .collect()
}

#[tokio::test]
async fn manual_fork_model_and_disallowed_skills_on_real_files() {
    // A copy on a temporary disk, so that the test reads real files it owns.
    let dir = tempfile::tempdir().unwrap();
    for skill in ["release", "deep-research", "careful-shell"] {
        let to = dir.path().join(skill);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(format!("{LIBRARY}/{skill}/SKILL.md"), to.join("SKILL.md")).unwrap();
    }
    let backend = Arc::new(FilesystemBackend::new(dir.path()).unwrap());
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(backend, "/"))
        .allowed_tools_policy(AllowedToolsPolicy::Recommend)
        .resolve_model(|name| (name == "large-reasoning-model").then(|| "provider/large".to_owned()))
        .build()
        .unwrap();
    let (bash, web_fetch) = (stand_in("bash"), stand_in("web_fetch"));
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "release"}))
            .reply("That is for you to start.")
            .tool_call(
                "load_skill",
                json!({"skill_name": "deep-research", "arguments": "why 2.1?"}),
            )
            .reply("Because of the search tool.")
            .tool_call("load_skill", json!({"skill_name": "careful-shell"}))
            .tool_call("web_fetch", json!({"url": "https://example.org"}))
            .tool_call("bash", json!({"command": "git status"}))
            .reply("Released."),
    );
    let agent = Agent::builder(model.clone())
        .system_prompt("Base prompt.")
        .middleware(Arc::new(skills.clone()))
        .tool(bash.clone())
        .tool(web_fetch.clone())
        .build()
        .unwrap();

    // The model neither sees nor loads the skill for people.
    let mut state = AgentState::new(vec![Message::user("SECRET: release 2.1")]);
    agent.invoke(&mut state).await.unwrap();
    let first = &model.seen()[0];
    let listing = first.system_message.as_deref().unwrap();
    assert!(!listing.contains("release"), "{listing}");
    assert!(listing.contains("`load_skill(\"deep-research\", arguments=\"[question]\")`"));
    let results = tool_results(&state, 0);
    assert_eq!(results[0].0, ToolStatus::Error);
    assert!(results[0].1.contains("can only be invoked by the user"));

    // The host activates it with arguments; `${SKILL_DIR}` is the folder on this disk.
    let activation = skills
        .activate(&mut state, "release", Some(SkillArguments::Text("2.1 stable".into())))
        .await
        .unwrap();
    let Activation::Loaded { text } = activation else {
        panic!("{activation:?}")
    };
    assert!(text.contains("Cut release 2.1 on the stable channel."), "{text}");
    assert!(text.contains("The checklist is in /release/CHECKLIST.md."), "{text}");

    let from = state.messages.len();
    let answer = agent.invoke(&mut state).await.unwrap();
    assert_eq!(answer.content, "Released.");
    let seen = model.seen();
    // The fork: a fresh conversation holding only the task, the skill's body as
    // instructions, on the skill's model and effort; the parent gets its answer.
    let fork = &seen[3];
    assert_eq!(fork.messages, [Message::user("why 2.1?")]);
    assert!(
        fork.system_message
            .as_deref()
            .unwrap()
            .starts_with("# Deep research\n\nResearch this question: why 2.1?")
    );
    assert_eq!(
        (fork.model.as_deref(), fork.effort.as_deref()),
        (Some("provider/large"), Some("high"))
    );
    let results = tool_results(&state, from);
    assert_eq!(
        results[0],
        (ToolStatus::Success, "Because of the search tool.".to_owned())
    );
    // Back in the thread the fork's model does not apply.
    assert_eq!(seen[4].model, None);
    // A disallowed tool is refused naming the skill, in the Recommend policy too; an
    // allowed one runs.
    assert_eq!(results[2].0, ToolStatus::Error);
    assert!(
        results[2]
            .1
            .contains("disallowed while skill 'careful-shell' is loaded"),
        "{}",
        results[2].1
    );
    assert_eq!((web_fetch.calls(), bash.calls()), (0, 1));
    let loaded = &state.get::<SkillsState>().unwrap().skills_loaded;
    assert_eq!(loaded, &["release", "deep-research", "careful-shell"]);
}

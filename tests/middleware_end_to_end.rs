//! End to end on real files: the reference agent, a scripted model and the skills
//! middleware over the filesystem backend in a temporary directory.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::sync::Arc;

use serde_json::json;
use skills_runtime::SkillsState;
use skills_runtime::fs::FilesystemBackend;
use skills_runtime::middleware::*;
use skills_runtime::{AllowedToolsPolicy, SkillSource};

/// A stand-in for a real tool: counts its runs and answers a fixed text.
fn stand_in(name: &'static str) -> Arc<FnTool> {
    Arc::new(FnTool::new(name, "stand-in", move |_| Ok(format!("{name} ran"))))
}

fn write(root: &std::path::Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

#[tokio::test]
async fn discover_load_and_restrict_on_real_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "skills/web-research/SKILL.md",
        "---\nname: web-research\ndescription: Research a topic on the web\nallowed-tools: web_search read_file\n---\n# Web research\nPlan queries first.\n",
    );
    write(
        root,
        "skills/web-research/references/sources.md",
        "Prefer primary sources.\n",
    );
    write(root, "skills/web-research/scripts/plan.py", "print('plan')\n");
    write(
        root,
        "skills/sql-review/SKILL.md",
        "---\nname: sql-review\ndescription: Review SQL\n---\n# SQL review\n",
    );

    let backend = Arc::new(FilesystemBackend::new(root).unwrap());
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(backend.clone(), "/skills").with_label("Project"))
        .allowed_tools_policy(AllowedToolsPolicy::Restrict)
        .build()
        .unwrap();
    let web_search = stand_in("web_search");
    let bash = stand_in("bash");
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "web-research"}))
            .tool_call("bash", json!({"command": "curl example.org"}))
            .tool_call("web_search", json!({"query": "rust 2024"}))
            .tool_call(
                "read_file",
                json!({"file_path": "/skills/web-research/references/sources.md"}),
            )
            .reply("Here is the summary."),
    );
    let agent = Agent::builder(model.clone())
        .system_prompt("You are a research assistant.")
        .middleware(Arc::new(skills))
        .tools(filesystem_tools(backend))
        .tool(web_search.clone())
        .tool(bash.clone())
        .build()
        .unwrap();

    let mut state = AgentState::new(vec![Message::user("Research the Rust 2024 edition")]);
    let answer = agent.invoke(&mut state).await.unwrap();
    assert_eq!(answer.content, "Here is the summary.");

    let seen = model.seen();
    // Discovery: the first prompt lists both skills, with guidance and resources.
    let first = seen[0].system_message.as_deref().unwrap();
    assert!(
        first.starts_with("You are a research assistant.\n\n## Skills System"),
        "{first}"
    );
    assert!(
        first.contains("**Project Skills**: `/skills` (higher priority)"),
        "{first}"
    );
    assert!(
        first.contains("- **web-research**: Research a topic on the web"),
        "{first}"
    );
    assert!(first.contains("  -> Resources: 1 script, 1 reference"), "{first}");
    assert!(first.contains("load_skill(\"sql-review\")"), "{first}");
    // Loading: the next call marks the skill loaded.
    let second = seen[1].system_message.as_deref().unwrap();
    assert!(second.contains("- **web-research** [Loaded]"), "{second}");
    assert!(!second.contains("load_skill(\"web-research\")` to read"), "{second}");

    // The tool results, in order.
    let results: Vec<&ToolMessage> = state.messages.iter().filter_map(Message::as_tool).collect();
    assert!(results[0].content.contains("# Web research\nPlan queries first."));
    assert!(
        results[0]
            .content
            .contains("- [reference] `/skills/web-research/references/sources.md`")
    );
    // Restrict: bash is refused without running, web_search and read_file run.
    assert_eq!(results[1].status, ToolStatus::Error);
    assert!(
        results[1]
            .content
            .starts_with("Tool 'bash' is not in the allowed-tools list")
    );
    assert_eq!(bash.calls(), 0);
    assert_eq!(
        (results[2].status, results[2].content.as_str()),
        (ToolStatus::Success, "web_search ran")
    );
    assert_eq!(web_search.calls(), 1);
    assert_eq!(results[3].content, "     1\tPrefer primary sources.");
    assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["web-research"]);
}

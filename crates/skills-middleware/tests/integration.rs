//! The V2 design's integration tests (section 6.2): the skills middleware working with
//! file tools, subagents and history summarization, through the reference agent loop.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::Arc;

use common::library;
use serde_json::json;
use skills_core::SkillsState;
use skills_middleware::*;

fn skills_middleware() -> Arc<SkillsMiddleware> {
    Arc::new(SkillsMiddleware::new(library(), ["/skills/user"]).unwrap())
}

/// The first resource path of `kind` in the latest tool message.
fn resource_path(request: &ModelRequest<'_>, kind: &str) -> String {
    let Some(Message::Tool(last)) = request.messages.last() else {
        panic!("the last message is not a tool result")
    };
    let marker = format!("- [{kind}] `");
    let start = last.content.find(&marker).unwrap() + marker.len();
    let len = last.content[start..].find('`').unwrap();
    last.content[start..start + len].to_owned()
}

#[tokio::test]
async fn load_skill_then_read_file_of_a_resource() {
    let backend = library();
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "web"}))
            .respond_with(|request| {
                // Read the reference that load_skill listed, by the path it gave.
                let path = resource_path(request, "reference");
                AssistantMessage::tool_calls([ToolCall::new("call_read", "read_file", json!({"file_path": path}))])
            })
            .reply("Judged the sources."),
    );
    let agent = Agent::builder(model.clone())
        .middleware(skills_middleware())
        .tools(filesystem_tools(backend))
        .build()
        .unwrap();
    let mut state = AgentState::new(vec![Message::user("research something")]);
    agent.invoke(&mut state).await.unwrap();

    let Message::Tool(read) = &state.messages[4] else {
        panic!("{:?}", state.messages)
    };
    assert_eq!(read.tool_call_id, "call_read");
    assert_eq!(read.status, ToolStatus::Success);
    assert_eq!(read.content, "     1\t# Judging sources");
    assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["web"]);
    assert_eq!(model.seen()[0].tools, ["read_file", "ls", "load_skill"]);
}

#[tokio::test]
async fn parent_and_subskills_runtime_state_are_isolated() {
    // The subagent has its own skills middleware over the same library.
    let child_model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "sql"}))
            .reply("the query is fine"),
    );
    let child = Agent::builder(child_model.clone())
        .middleware(skills_middleware())
        .build()
        .unwrap();
    let parent_model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "web"}))
            .tool_call("task", json!({"description": "review this query"}))
            .reply("done"),
    );
    let parent = Agent::builder(parent_model.clone())
        .middleware(skills_middleware())
        .tool(Arc::new(SubAgentTool::new(
            "task",
            "Hand a task to a subagent",
            Arc::new(child),
        )))
        .build()
        .unwrap();

    let mut state = AgentState::new(vec![Message::user("go")]);
    parent.invoke(&mut state).await.unwrap();

    // The subagent saw none of the parent's loaded skills...
    let child_first = child_model.seen()[0].system_message.clone().unwrap();
    assert!(child_first.contains("- **web**: Search the web"), "{child_first}");
    assert!(!child_first.contains("[Loaded]"), "{child_first}");
    let child_second = child_model.seen()[1].system_message.clone().unwrap();
    assert!(child_second.contains("**sql** [Loaded]"), "{child_second}");
    // ...and what it loaded did not leak back.
    assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["web"]);
    let parent_last = parent_model.seen()[2].system_message.clone().unwrap();
    assert!(parent_last.contains("**web** [Loaded]"), "{parent_last}");
    assert!(!parent_last.contains("**sql** [Loaded]"), "{parent_last}");
    assert!(state.messages.iter().any(|m| m.content() == "the query is fine"));
}

/// Replaces the whole history with one summary message once it grows past `keep`
/// messages, as a summarization middleware does.
#[derive(Debug)]
struct Summarize {
    keep: usize,
}

#[async_trait]
impl AgentMiddleware for Summarize {
    fn name(&self) -> &str {
        "summarize"
    }

    async fn wrap_model_call(
        &self,
        mut request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        if request.messages.len() > self.keep {
            let summary = format!("Summary of {} earlier messages.", request.messages.len());
            request.messages = vec![Message::user(summary)].into();
        }
        next.run(request).await
    }
}

#[tokio::test]
async fn skills_section_survives_history_summarization() {
    // Summarization outermost and innermost: the skills section must be there either way.
    for outer in [true, false] {
        let summarize: Arc<dyn AgentMiddleware> = Arc::new(Summarize { keep: 2 });
        let skills: Arc<dyn AgentMiddleware> = skills_middleware();
        let (first, second) = if outer {
            (summarize, skills)
        } else {
            (skills, summarize)
        };
        let model = Arc::new(
            ScriptedModel::new()
                .tool_call("load_skill", json!({"skill_name": "web"}))
                .tool_call("load_skill", json!({"skill_name": "sql"}))
                .reply("done"),
        );
        let agent = Agent::builder(model.clone())
            .middleware(first)
            .middleware(second)
            .build()
            .unwrap();
        let mut state = AgentState::new(vec![Message::user("go")]);
        agent.invoke(&mut state).await.unwrap();

        let seen = model.seen();
        assert_eq!(seen.len(), 3);
        // The later calls saw a summarized history, without the load_skill results...
        assert_eq!(seen[2].messages.len(), 1, "{:?}", seen[2].messages);
        // ...yet every call had the skills section, and [Loaded] comes from state.
        for request in &seen {
            let system = request.system_message.as_deref().unwrap();
            assert_eq!(system.matches("## Skills System").count(), 1, "{system}");
        }
        let last = seen[2].system_message.as_deref().unwrap();
        assert!(
            last.contains("**web** [Loaded]") && last.contains("**sql** [Loaded]"),
            "{last}"
        );
    }
}

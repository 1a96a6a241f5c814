//! The middleware contract and the reference agent loop.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::sync::{Arc, Mutex};

use common::{library, md, stand_in};
use serde_json::json;
use skills_catalog::*;
use skills_core::{MemoryBackend, SkillsState};
use skills_middleware::*;

/// Records the order in which layers see requests and responses.
#[derive(Debug)]
struct Trace {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl AgentMiddleware for Trace {
    fn name(&self) -> &str {
        self.name
    }

    async fn wrap_model_call(
        &self,
        mut request: ModelRequest<'_>,
        next: ModelNext<'_>,
    ) -> Result<ModelResponse, AgentError> {
        self.log.lock().unwrap().push(format!("{} model in", self.name));
        request.append_system(self.name);
        let response = next.run(request).await;
        self.log.lock().unwrap().push(format!("{} model out", self.name));
        response
    }

    async fn wrap_tool_call(&self, request: ToolCallRequest<'_>, next: ToolNext<'_>) -> ToolOutput {
        self.log.lock().unwrap().push(format!("{} tool in", self.name));
        let output = next.run(request).await;
        self.log.lock().unwrap().push(format!("{} tool out", self.name));
        output
    }
}

#[tokio::test]
async fn first_middleware_added_is_the_outermost_layer() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = Arc::new(ScriptedModel::new().tool_call("echo", json!({})).reply("ok"));
    let agent = Agent::builder(model.clone())
        .system_prompt("base")
        .middleware(Arc::new(Trace {
            name: "a",
            log: log.clone(),
        }))
        .middleware(Arc::new(Trace {
            name: "b",
            log: log.clone(),
        }))
        .tool(stand_in("echo"))
        .build()
        .unwrap();
    agent
        .invoke(&mut AgentState::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            "a model in",
            "b model in",
            "b model out",
            "a model out",
            "a tool in",
            "b tool in",
            "b tool out",
            "a tool out",
            "a model in",
            "b model in",
            "b model out",
            "a model out",
        ]
    );
    // The outer layer edits the system message first.
    assert_eq!(model.seen()[0].system_message.as_deref(), Some("base\n\na\n\nb"));
}

#[tokio::test]
async fn unknown_tools_and_failed_calls_are_answered_not_fatal() {
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("no_such_tool", json!({}))
            .tool_call("read_file", json!({"file_path": "/etc/../passwd"}))
            .tool_call("read_file", json!({"path": "/x"}))
            .reply("ok"),
    );
    let agent = Agent::builder(model)
        .tools(filesystem_tools(library()))
        .build()
        .unwrap();
    let mut state = AgentState::new(vec![Message::user("hi")]);
    agent.invoke(&mut state).await.unwrap();
    let answers: Vec<&ToolMessage> = state.messages.iter().filter_map(Message::as_tool).collect();
    assert_eq!(answers.len(), 3);
    assert!(answers.iter().all(|a| a.is_error()));
    assert_eq!(
        answers[0].content,
        "Error: tool 'no_such_tool' does not exist. Available tools: read_file, ls"
    );
    assert!(answers[1].content.contains("invalid path"), "{}", answers[1].content);
    assert!(answers[2].content.contains("file_path"), "{}", answers[2].content);
}

#[tokio::test]
async fn the_step_limit_stops_a_model_that_never_answers() {
    let mut script = ScriptedModel::new();
    for _ in 0..5 {
        script = script.tool_call("echo", json!({}));
    }
    let agent = Agent::builder(Arc::new(script))
        .tool(stand_in("echo"))
        .max_steps(3)
        .build()
        .unwrap();
    let mut state = AgentState::new(vec![Message::user("hi")]);
    assert_eq!(agent.invoke(&mut state).await.unwrap_err(), AgentError::StepLimit(3));
    // Work done before the limit stays in the state: 3 turns, 3 answers.
    assert_eq!(state.messages.len(), 7);
}

#[tokio::test]
async fn a_model_error_is_an_agent_error() {
    let agent = Agent::builder(Arc::new(ScriptedModel::new())).build().unwrap();
    let err = agent.invoke(&mut AgentState::default()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "model call failed: the scripted model has no more responses"
    );
}

#[test]
fn duplicate_tool_names_are_refused_at_build_time() {
    let skills = Arc::new(SkillsMiddleware::new(library(), ["/skills/user"]).unwrap());
    let err = Agent::builder(Arc::new(ScriptedModel::new()))
        .tool(stand_in("load_skill"))
        .middleware(skills)
        .build()
        .unwrap_err();
    assert_eq!(err, AgentBuildError::DuplicateTool("load_skill".into()));
    let err = Agent::builder(Arc::new(ScriptedModel::new()))
        .max_steps(0)
        .build()
        .unwrap_err();
    assert_eq!(err, AgentBuildError::NoSteps);
}

#[tokio::test]
async fn threads_share_one_discovery_and_keep_their_loaded_skills_between_invocations() {
    let backend = library();
    let skills = Arc::new(SkillsMiddleware::new(backend.clone(), ["/skills/user"]).unwrap());
    let model = Arc::new(
        ScriptedModel::new()
            .tool_call("load_skill", json!({"skill_name": "web"}))
            .reply("first")
            .reply("second")
            .reply("third")
            .reply("fourth"),
    );
    let agent = Agent::builder(model.clone())
        .middleware(skills.clone())
        .build()
        .unwrap();
    let mut state = AgentState::new(vec![Message::user("one")]);
    agent.invoke(&mut state).await.unwrap();
    backend
        .insert("/skills/user/late/SKILL.md", md("late", "Added later", ""))
        .unwrap();
    state.messages.push(Message::user("two"));
    agent.invoke(&mut state).await.unwrap();
    // Same thread, next invocation: the loaded skill carries over.
    let second = model.seen()[2].system_message.clone().unwrap();
    assert!(second.contains("**web** [Loaded]"), "{second}");
    // A new thread reuses the one discovery: no storage work, so no late skill yet.
    let mut fresh = AgentState::new(vec![Message::user("three")]);
    agent.invoke(&mut fresh).await.unwrap();
    let third = model.seen()[3].system_message.clone().unwrap();
    assert!(!third.contains("late") && !third.contains("[Loaded]"), "{third}");
    assert_eq!(skills.catalog().stats().reloads, 1);
    // After a reload, every thread sees it, and the first keeps its loaded skill.
    skills.reload().await.unwrap();
    state.messages.push(Message::user("four"));
    agent.invoke(&mut state).await.unwrap();
    let fourth = model.seen()[4].system_message.clone().unwrap();
    assert!(
        fourth.contains("- **late**: Added later") && fourth.contains("**web** [Loaded]"),
        "{fourth}"
    );
}

#[tokio::test]
async fn each_skill_is_read_through_the_backend_of_its_source() {
    // Two backends with the same paths: the later source wins and is read from.
    let base = Arc::new(MemoryBackend::new());
    base.insert("/skills/web/SKILL.md", md("web", "Base web", "")).unwrap();
    base.insert("/skills/only-base/SKILL.md", md("only-base", "Base only", ""))
        .unwrap();
    let team = Arc::new(MemoryBackend::new());
    team.insert("/skills/web/SKILL.md", md("web", "Team web", "")).unwrap();
    team.insert("/skills/web/scripts/team.sh", "").unwrap();
    let skills = SkillsMiddleware::builder()
        .source(SkillSource::new(base.clone(), "/skills").with_label("Base"))
        .source(SkillSource::new(team, "/skills").with_label("Team"))
        .build()
        .unwrap();
    let mut state = AgentState::default();
    state.apply(skills.before_agent(&state).await.unwrap().unwrap());
    let snapshot = skills.catalog().snapshot();
    assert_eq!(snapshot.source_of("web"), Some(1));
    assert_eq!(snapshot.source_of("only-base"), Some(0));
    assert_eq!(snapshot.shadowed("web")[0].source, 0);
    let s = state.get::<SkillsState>().unwrap();
    assert_eq!(s.skill_resources["web"][0].path, "/skills/web/scripts/team.sh");

    // Remove the file from the base backend: loading still works, it never reads base.
    base.remove("/skills/web/SKILL.md");
    let tool = skills.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
    let runtime = ToolRuntime {
        state: &state,
        tool_call_id: "c",
        agent: None,
    };
    let output = tool.call(json!({"skill_name": "web"}), runtime).await;
    let msg = output.tool_message("c").unwrap();
    assert!(msg.content.contains("description: Team web"), "{}", msg.content);
    let output = tool.call(json!({"skill_name": "only-base"}), runtime).await;
    assert!(output.tool_message("c").unwrap().content.contains("Base only"));
}

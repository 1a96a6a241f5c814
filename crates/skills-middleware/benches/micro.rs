//! Micro-benchmarks (divan) of the hot paths, on in-memory data so the disk is out of the
//! picture: `parse_skill_md` of a ~4 KiB file, the last-wins merge of three sources of
//! 1,000 skills, the prompt section render at 1,000 skills, one `load_skill` call, and a
//! `wrap_model_call` whose section is cached.
//!
//! `cargo xtask bench micro` (or `cargo bench -p skills-middleware --bench micro`).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use divan::Bencher;
use skills_core::{MemoryBackend, SkillMetadata, merge_last_wins, parse_skill_md};
use skills_middleware::{
    AgentMiddleware, AgentState, AssistantMessage, ChatModel, FnTool, LOAD_SKILL, Message, ModelError, ModelNext,
    ModelRequest, ModelResponse, SkillsMiddleware, Tool, ToolCall, ToolCallRequest, ToolNext, ToolOutput, ToolRuntime,
    async_trait,
};

const SKILLS: usize = 1_000;

fn main() {
    divan::main();
}

fn skill_md(i: usize) -> String {
    let body = "Step by step instructions for the task. ".repeat(100);
    format!(
        "---\nname: skill-{i:04}\ndescription: Does task number {i} well, when asked about it\nlicense: MIT\n\
         allowed-tools: read_file grep\nmetadata:\n  owner: platform\n---\n\n# Skill {i}\n\n{body}\n"
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A middleware over an in-memory library of [`SKILLS`] skills with two resources each,
/// already discovered.
fn middleware(rt: &tokio::runtime::Runtime) -> SkillsMiddleware {
    let backend = MemoryBackend::new();
    for i in 0..SKILLS {
        backend
            .insert(&format!("/skills/skill-{i:04}/SKILL.md"), skill_md(i))
            .unwrap();
        backend
            .insert(&format!("/skills/skill-{i:04}/scripts/run.sh"), "echo\n")
            .unwrap();
        backend
            .insert(&format!("/skills/skill-{i:04}/references/guide.md"), "# Guide\n")
            .unwrap();
    }
    let skills = SkillsMiddleware::new(Arc::new(backend), ["/skills"]).unwrap();
    rt.block_on(skills.catalog().ensure_loaded());
    skills
}

#[divan::bench]
fn parse_skill_md_4kib(bencher: Bencher<'_, '_>) {
    let md = skill_md(7);
    bencher.bench(|| {
        parse_skill_md(
            divan::black_box(md.as_bytes()),
            "/skills/skill-0007/SKILL.md",
            "skill-0007",
        )
    });
}

#[divan::bench]
fn merge_3_sources_of_1000(bencher: Bencher<'_, '_>) {
    let source = |offset: usize| -> Vec<SkillMetadata> {
        (0..SKILLS)
            .map(|i| {
                let md = skill_md(i + offset);
                let path = format!("/s{offset}/skill-{:04}/SKILL.md", i + offset);
                parse_skill_md(md.as_bytes(), &path, &format!("skill-{:04}", i + offset))
                    .skill
                    .unwrap()
            })
            .collect()
    };
    // The second and third sources share 300 names with the first.
    let sources = [source(0), source(700), source(1_400)];
    bencher.bench(|| merge_last_wins(divan::black_box(sources.clone())));
}

#[divan::bench]
fn render_prompt_section_1000(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let skills = middleware(&rt);
    let state = rt.block_on(skills.discover());
    bencher.bench(|| skills.render_section(Some(divan::black_box(&state))));
}

#[divan::bench]
fn load_skill_call(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let skills = middleware(&rt);
    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(rt.block_on(skills.before_agent(&state)).unwrap().unwrap());
    let tool = skills.tools().into_iter().find(|t| t.name() == LOAD_SKILL).unwrap();
    let args = serde_json::json!({ "skill_name": "skill-0500" });
    bencher.bench(|| {
        let runtime = ToolRuntime {
            state: &state,
            tool_call_id: "bench",
            agent: None,
        };
        rt.block_on(tool.call(args.clone(), runtime))
    });
}

#[derive(Debug)]
struct Echo;

#[async_trait]
impl ChatModel for Echo {
    async fn invoke(&self, _request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse {
            message: AssistantMessage::text("ok"),
        })
    }
}

#[divan::bench]
fn wrap_model_call_cached_1000(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let skills = middleware(&rt);
    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(rt.block_on(skills.before_agent(&state)).unwrap().unwrap());
    let layers: Vec<Arc<dyn AgentMiddleware>> = Vec::new();
    let model = Echo;
    bencher.bench(|| {
        let request = ModelRequest {
            system_message: Some("You are helpful.".into()),
            messages: state.messages.as_slice().into(),
            tools: Vec::new().into(),
            state: &state,
            model: None,
            effort: None,
        };
        rt.block_on(skills.wrap_model_call(request, ModelNext::new(&layers, &model)))
            .unwrap()
    });
}

#[divan::bench]
fn wrap_tool_call_with_a_loaded_skill(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let skills = middleware(&rt);
    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(rt.block_on(skills.before_agent(&state)).unwrap().unwrap());
    let load = skills.tools().into_iter().find(|t| t.name() == LOAD_SKILL).unwrap();
    let runtime = ToolRuntime {
        state: &state,
        tool_call_id: "load",
        agent: None,
    };
    let loaded = rt.block_on(load.call(serde_json::json!({ "skill_name": "skill-0500" }), runtime));
    if let ToolOutput::Command(command) = loaded {
        state.apply(command.update);
    }
    let echo: Arc<dyn Tool> = Arc::new(FnTool::new("echo", "echo", |_| Ok("ok".into())));
    let tools = [echo];
    let layers: Vec<Arc<dyn AgentMiddleware>> = Vec::new();
    bencher.bench(|| {
        let request = ToolCallRequest {
            call: ToolCall::new("bench", "echo", serde_json::json!({"text": "hello"})),
            state: &state,
        };
        rt.block_on(skills.wrap_tool_call(request, ToolNext::new(&layers, &tools)))
    });
}

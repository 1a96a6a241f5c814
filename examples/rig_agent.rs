//! A rig agent with the example skills: the skills list in its preamble, `load_skill`,
//! `search_skills` and `read_skill_resource` as its tools.
//!
//! Any OpenAI-compatible server works (OpenAI, or a local llama.cpp, vLLM or Ollama
//! server): the key and address come from the environment.
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run --example rig_agent --features rig -- "Research the history of Rust editions"
//! # a local server:
//! OPENAI_API_KEY=none OPENAI_BASE_URL=http://127.0.0.1:8080/v1 SKILLS_RIG_MODEL=qwen3 \
//!     cargo run --example rig_agent --features rig -- "Review this diff: ..."
//! ```
//!
//! `SKILLS_RIG_MODEL` picks the model (default `gpt-4o-mini`). The example prints the
//! answer, then the skills the conversation loaded.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::sync::Arc;

use skills_runtime::fs::FilesystemBackend;
use skills_runtime::rig::rig_agent::AgentBuilder;
use skills_runtime::rig::rig_core::providers::openai::OpenAIConfig;
use skills_runtime::rig::{SkillSession, Skills};
use skills_runtime::{SkillCatalog, SkillSource};

const DEFAULT_MODEL: &str = "gpt-4o-mini";
const DEFAULT_PROMPT: &str = "Research what changed in the Rust 2024 edition and summarise it.";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rig_agent: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The skills that ship with the repository, as a live catalog.
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
    let backend = Arc::new(FilesystemBackend::new(examples)?);
    let catalog = Arc::new(SkillCatalog::new(vec![
        SkillSource::new(backend, "/").with_label("examples"),
    ]));
    let skills = Skills::new(catalog);

    // The model, from OPENAI_API_KEY and the optional OPENAI_BASE_URL.
    let config = OpenAIConfig::from_env().map_err(|error| {
        format!("{error}\nset OPENAI_API_KEY (and OPENAI_BASE_URL for a local server) to run this example")
    })?;
    let model_name = std::env::var("SKILLS_RIG_MODEL").unwrap_or_else(|_| DEFAULT_MODEL.to_owned());
    let model = config.client().chat(model_name);

    // One conversation: its session holds the skills it loads.
    let session: SkillSession = skills.session();
    let agent = session
        .install(
            AgentBuilder::new(model),
            "You are a careful assistant. Use a skill when one fits the task.",
        )
        .build();

    let prompt: Vec<String> = std::env::args().skip(1).collect();
    let prompt = if prompt.is_empty() {
        DEFAULT_PROMPT.to_owned()
    } else {
        prompt.join(" ")
    };
    let answer = agent.prompt(prompt).max_turns(8).await?;
    println!("{}", answer.output());
    println!("\nskills loaded: {:?}", session.loaded());
    Ok(())
}

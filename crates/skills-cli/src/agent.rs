//! What a model sees: `skills prompt` (the system-prompt section) and `skills load`
//! (the `load_skill` answer), both produced by the middleware itself; and `skills new`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;
use skills_core::validate_skill_name;
use skills_middleware::{
    AgentMiddleware, AgentState, LOAD_SKILL, Message, SkillsMiddleware, ToolMessage, ToolRuntime, ToolStatus,
};

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::output::print_diagnostics;
use crate::progress::Progress;
use crate::source::{Source, open_sources};

/// The id of the one tool call `load_answer` makes.
const CALL_ID: &str = "cli";

/// Opens the sources of a command and loads them into a middleware's catalog, printing
/// its diagnostics. `quiet` (JSON output, or a server whose client owns the terminal)
/// means no spinner.
pub async fn middleware(args: &SourceArgs, quiet: bool) -> anyhow::Result<(Vec<Source>, SkillsMiddleware)> {
    let progress = Progress::start(quiet, "reading skill sources");
    let sources = open_sources(args)?;
    let mut builder = SkillsMiddleware::builder();
    for source in &sources {
        builder = builder.source(source.to_skill_source());
    }
    let skills = builder.build().context("cannot build the skills middleware")?;
    let snapshot = skills.catalog().ensure_loaded().await;
    drop(progress);
    print_diagnostics(snapshot.diagnostics());
    Ok((sources, skills))
}

#[derive(Serialize)]
struct PromptJson<'a> {
    catalog_version: u64,
    loaded: &'a [String],
    section: &'a str,
}

/// `skills prompt [--loaded a,b]`: the exact skills section of the system prompt.
pub async fn prompt(args: &SourceArgs, loaded: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let (_, skills) = middleware(args, json).await?;
    let snapshot = skills.catalog().snapshot();
    if let Some(unknown) = loaded.iter().find(|name| snapshot.get(name).is_none()) {
        eprintln!("error: no skill named {unknown:?} in the sources");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let section = skills.render_section(Some(&snapshot.to_state(loaded.to_vec())));
    if json {
        let out = PromptJson {
            catalog_version: snapshot.version(),
            loaded,
            section: &section,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{section}");
    }
    Ok(ExitCode::from(EXIT_OK))
}

#[derive(Serialize)]
struct LoadJson<'a> {
    name: &'a str,
    status: &'static str,
    content: &'a str,
}

/// What the middleware's own `load_skill` tool answers for `name` in a fresh thread
/// (nothing loaded yet), so errors read exactly as a model would see them. Shared by
/// `skills load` and the MCP server's `load_skill`.
pub async fn load_answer(skills: &SkillsMiddleware, name: &str) -> anyhow::Result<ToolMessage> {
    let Some(tool) = skills.tools().into_iter().find(|t| t.name() == LOAD_SKILL) else {
        bail!("the middleware offers no {LOAD_SKILL} tool");
    };
    // A thread without skills state reads the catalog's current snapshot.
    let state = AgentState::new(vec![Message::user(format!("load {name}"))]);
    let runtime = ToolRuntime {
        state: &state,
        tool_call_id: CALL_ID,
    };
    let output = tool.call(serde_json::json!({ "skill_name": name }), runtime).await;
    match output.tool_message(CALL_ID) {
        Some(message) => Ok(message.clone()),
        None => bail!("{LOAD_SKILL} answered without a message"),
    }
}

/// `skills load NAME`: what the `load_skill` tool answers.
pub async fn load(args: &SourceArgs, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let (_, skills) = middleware(args, json).await?;
    let message = load_answer(&skills, name).await?;
    let ok = message.status == ToolStatus::Success;
    if json {
        let out = LoadJson {
            name,
            status: if ok { "success" } else { "error" },
            content: &message.content,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if ok {
        println!("{}", message.content);
    } else {
        eprintln!("{}", message.content);
    }
    Ok(ExitCode::from(if ok { EXIT_OK } else { EXIT_SOURCE_ERROR }))
}

/// `skills new NAME [--dir DIR]`: a skill folder with a valid `SKILL.md` and the three
/// standard resource directories. Refuses invalid names and existing folders.
pub fn new_skill(name: &str, dir: &Path, description: Option<&str>) -> anyhow::Result<ExitCode> {
    if let Err(problem) = validate_skill_name(name, name) {
        eprintln!("error: {name:?} is not a valid skill name: {problem}");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let root = dir.join(name);
    if root.exists() {
        eprintln!("error: {} already exists", root.display());
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let description = description.unwrap_or("TODO: what this skill does and when to use it.");
    if description.contains(['\n', '\r']) {
        eprintln!("error: the description must be one line");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let quoted = serde_json::to_string(description)?; // a JSON string is a valid YAML scalar
    let skill_md = format!(
        "---\nname: {name}\ndescription: {quoted}\n---\n\n# {name}\n\n\
         ## When to use\n\nDescribe the tasks this skill is for.\n\n\
         ## Instructions\n\n1. First step.\n2. Second step.\n\n\
         Scripts live in `scripts/`, reference documents in `references/`, templates and\n\
         other files in `assets/`.\n"
    );
    for sub in ["scripts", "references", "assets"] {
        std::fs::create_dir_all(root.join(sub))
            .with_context(|| format!("cannot create {}", root.join(sub).display()))?;
    }
    let path = root.join("SKILL.md");
    std::fs::write(&path, skill_md).with_context(|| format!("cannot write {}", path.display()))?;
    println!("created {}", path.display());
    Ok(ExitCode::from(EXIT_OK))
}

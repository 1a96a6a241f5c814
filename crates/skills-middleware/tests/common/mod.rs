//! Helpers shared by the middleware's integration tests.

#![allow(dead_code, clippy::unwrap_used)] // Each test binary uses part of this; helpers fail loudly.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use skills_core::{BackendError, BackendProtocol, FileDownloadResponse, FileInfo, MemoryBackend};
use skills_middleware::{AgentMiddleware, AgentState, FnTool, ModelNext, ModelRequest, ScriptedModel};

pub mod v2;

/// A `SKILL.md` with the given frontmatter lines after name and description.
pub fn md(name: &str, description: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nInstructions for {name}.\n")
}

/// A backend with three skills under `/skills/user`:
/// - `web`: two scripts, one reference, one asset, a root `template.md`, a non-standard
///   `temp/` dir; `allowed-tools: web_search read_file`;
/// - `sql`: no resources, `allowed-tools: [psql]`;
/// - `notes`: no `allowed-tools`, no resources.
pub fn library() -> Arc<MemoryBackend> {
    let b = MemoryBackend::new();
    let files = [
        (
            "/skills/user/web/SKILL.md",
            md(
                "web",
                "Search the web",
                "license: MIT\nallowed-tools: web_search read_file\n",
            ),
        ),
        ("/skills/user/web/scripts/search.py", "print('search')".into()),
        ("/skills/user/web/scripts/fetch.sh", "echo fetch".into()),
        ("/skills/user/web/references/sources.md", "# Judging sources".into()),
        ("/skills/user/web/assets/report.md", "# Report".into()),
        ("/skills/user/web/template.md", "template".into()),
        ("/skills/user/web/temp/scratch.txt", "ignored".into()),
        (
            "/skills/user/sql/SKILL.md",
            md("sql", "Review SQL", "allowed-tools:\n  - psql\n"),
        ),
        ("/skills/user/notes/SKILL.md", md("notes", "Take notes", "")),
    ];
    for (path, content) in files {
        b.insert(path, content).unwrap();
    }
    Arc::new(b)
}

/// Runs every middleware's `before_agent` on `state`, as the agent loop does.
pub async fn run_before_agent(middleware: &dyn AgentMiddleware, state: &mut AgentState) {
    if let Some(update) = middleware.before_agent(state).await.unwrap() {
        state.apply(update);
    }
}

/// A tool that records that it ran and answers `ran <name>`.
/// A stand-in tool that answers `ran NAME`.
pub fn stand_in(name: &str) -> Arc<FnTool> {
    let answer = format!("ran {name}");
    Arc::new(FnTool::new(name, "a stand-in tool for tests", move |_| {
        Ok(answer.clone())
    }))
}

/// A backend whose `ls_info` fails for the given directories (and everything else works
/// as the wrapped `MemoryBackend`).
#[derive(Debug)]
pub struct FailingListings {
    pub inner: MemoryBackend,
    pub failing: BTreeSet<String>,
}

#[async_trait]
impl BackendProtocol for FailingListings {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        if self.failing.contains(path) {
            return Err(BackendError::PermissionDenied { path: path.to_owned() });
        }
        self.inner.ls_info(path).await
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        self.inner.download_files(paths).await
    }
}

/// The system message a model gets from `middleware` on `state`'s next call.
pub async fn system_prompt(middleware: &dyn AgentMiddleware, state: &AgentState) -> String {
    let model = ScriptedModel::new().reply("ok");
    let request = ModelRequest {
        system_message: None,
        messages: state.messages.as_slice().into(),
        tools: Vec::new().into(),
        state,
        model: None,
        effort: None,
    };
    middleware
        .wrap_model_call(request, ModelNext::new(&[], &model))
        .await
        .unwrap();
    model.seen()[0].system_message.clone().unwrap()
}

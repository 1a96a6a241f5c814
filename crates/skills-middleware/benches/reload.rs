//! Hot-reload figures on a generated library of 1,000 skills in a temp directory:
//!
//! - latency from a file write to the new catalog snapshot (median, p99) over 60 edits,
//!   with the fs backend's default 100 ms debounce and with a 5 ms one;
//! - cost of reloading an unchanged library, and the files it re-reads (must be 0);
//! - cost of one `wrap_model_call` with a cached prompt section.
//!
//! `cargo xtask bench reload` (or `cargo bench -p skills-middleware --bench reload`);
//! `RELOAD_BENCH_SKILLS=10000` changes the library size.
//! Figures are wall-clock on whatever machine runs them: compare runs on one machine.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use skills_backend_fs::FilesystemBackend;
use skills_middleware::{
    AgentMiddleware, AgentState, AssistantMessage, ChatModel, Message, ModelError, ModelNext, ModelRequest,
    ModelResponse, SkillsMiddleware,
};

const EDITS: usize = 60;

fn skills() -> usize {
    std::env::var("RELOAD_BENCH_SKILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

fn write_library(root: &Path) {
    for i in 0..skills() {
        let dir = root.join(format!("skills/skill-{i:04}"));
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        let body = "Step by step instructions. ".repeat(150);
        let md = format!("---\nname: skill-{i:04}\ndescription: Does task number {i} well\n---\n\n{body}\n");
        std::fs::write(dir.join("SKILL.md"), md).unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "echo run\n").unwrap();
    }
}

/// Rewrites one skill with a description no earlier edit used (`tag` tells runs apart),
/// so every edit is a real catalog change.
fn edit(root: &Path, i: usize, tag: &str) {
    let path = root.join(format!("skills/skill-{i:04}/SKILL.md"));
    let md = format!("---\nname: skill-{i:04}\ndescription: Edited ({tag})\n---\n\nNew body.\n");
    let tmp = path.with_extension("tmp-write");
    std::fs::write(&tmp, md).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

async fn write_to_snapshot(root: &Path, debounce: Duration) {
    let backend = Arc::new(FilesystemBackend::new(root).unwrap().with_debounce(debounce));
    let mw = SkillsMiddleware::new(backend, ["/skills"]).unwrap();
    mw.catalog().ensure_loaded().await;
    let mut events = mw.catalog().subscribe();
    let _watch = mw.watch().unwrap();
    let mut latencies = Vec::with_capacity(EDITS);
    for round in 0..EDITS {
        let started = Instant::now();
        edit(
            root,
            (round * 17) % skills(),
            &format!("{round}, debounce {debounce:?}"),
        );
        tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .unwrap()
            .unwrap();
        latencies.push(started.elapsed());
    }
    latencies.sort();
    println!(
        "write -> new snapshot, debounce {:>3} ms: median {}, p99 {} ({EDITS} edits)",
        debounce.as_millis(),
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.99))
    );
}

#[derive(Debug)]
struct Instant0;

#[async_trait]
impl ChatModel for Instant0 {
    async fn invoke(&self, _request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse {
            message: AssistantMessage::text("ok"),
        })
    }
}

async fn unchanged_reload_and_model_call(root: &Path) {
    let backend = Arc::new(FilesystemBackend::new(root).unwrap());
    let mw = SkillsMiddleware::new(backend, ["/skills"]).unwrap();
    let started = Instant::now();
    mw.catalog().ensure_loaded().await;
    println!(
        "cold discovery of {} skills with resources: {}",
        skills(),
        ms(started.elapsed())
    );

    let catalog = mw.catalog();
    let read_before = catalog.stats().files_read;
    let mut times = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        assert!(catalog.reload().await.is_none());
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "unchanged reload: median {}, files re-read: {}",
        ms(percentile(&times, 0.5)),
        catalog.stats().files_read - read_before
    );

    let mut state = AgentState::new(vec![Message::user("hi")]);
    state.apply(mw.before_agent(&state).await.unwrap().unwrap());
    let model = Instant0;
    let call = || {
        let request = ModelRequest {
            system_message: Some("You are helpful.".into()),
            messages: state.messages.as_slice().into(),
            tools: Vec::new().into(),
            state: &state,
            model: None,
            effort: None,
        };
        mw.wrap_model_call(request, ModelNext::new(&[], &model))
    };
    call().await.unwrap();
    let renders = mw.section_renders();
    let rounds = 20_000;
    let started = Instant::now();
    for _ in 0..rounds {
        call().await.unwrap();
    }
    let per_call = started.elapsed() / rounds;
    println!(
        "wrap_model_call, cached section ({} skills): {:.2} us per call (renders during the loop: {})",
        skills(),
        per_call.as_secs_f64() * 1e6,
        mw.section_renders() - renders
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    write_library(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        unchanged_reload_and_model_call(dir.path()).await;
        write_to_snapshot(dir.path(), Duration::from_millis(100)).await;
        write_to_snapshot(dir.path(), Duration::from_millis(5)).await;
    });
}

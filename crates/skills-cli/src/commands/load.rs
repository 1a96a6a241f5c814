//! `skills load NAME`: what the `load_skill` tool answers a fresh thread.

use std::process::ExitCode;

use agent_skills::load_skill;
use serde::Serialize;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::print_diagnostics;

#[derive(Serialize)]
struct LoadJson<'a> {
    name: &'a str,
    status: &'static str,
    content: &'a str,
}

/// `skills load NAME`: the answer of `load_skill` with nothing loaded yet, so errors
/// read exactly as a model would see them.
pub async fn load(args: &SourceArgs, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(args, Need::Agent, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    let answer = load_skill(&snapshot, name, &[]).await;
    let ok = !answer.is_error();
    let content = answer.to_string();
    if json {
        let out = LoadJson {
            name,
            status: if ok { "success" } else { "error" },
            content: &content,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if ok {
        println!("{content}");
    } else {
        eprintln!("{content}");
    }
    Ok(ExitCode::from(library.exit(if ok {
        EXIT_OK
    } else {
        EXIT_SOURCE_ERROR
    })))
}

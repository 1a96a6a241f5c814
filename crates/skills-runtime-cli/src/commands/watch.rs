//! `skills watch`: one line per catalog change.

use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use skills_runtime::{CatalogChange, CatalogEvent};
use tokio::sync::broadcast::error::RecvError;

use crate::cli::EXIT_OK;
use crate::library::{self, Need};
use crate::output::print_diagnostics;

/// One change as `--json` prints it.
#[derive(Serialize)]
struct ChangeJson<'a> {
    version: u64,
    change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

pub async fn watch(specs: &crate::cli::SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(specs, Need::Live, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    let mut events = catalog.subscribe();
    let handle = catalog.watch().context("cannot watch the sources")?;
    for (i, reason) in handle.unwatched() {
        show_err!(
            "warning: source {} is not watched: {reason}",
            catalog.sources()[*i].label()
        );
    }
    show_err!(
        "watching {} skills in {} sources (version {}); press Ctrl-C to stop",
        snapshot.skills().len(),
        catalog.sources().len(),
        snapshot.version()
    );
    loop {
        match events.recv().await {
            Ok(event) => print_event(&event, json)?,
            Err(RecvError::Lagged(missed)) => show_err!("warning: {missed} change events were missed"),
            Err(RecvError::Closed) => break,
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

fn print_event(event: &CatalogEvent, json: bool) -> anyhow::Result<()> {
    for change in &event.changes {
        let (kind, name, reason) = match change {
            CatalogChange::Added { name } => ("added", Some(name.as_str()), None),
            CatalogChange::Changed { name } => ("changed", Some(name.as_str()), None),
            CatalogChange::Removed { name } => ("removed", Some(name.as_str()), None),
            CatalogChange::KeptLastGood { name, reason } => {
                ("kept-last-good", Some(name.as_str()), Some(reason.clone()))
            }
            CatalogChange::Problem(diagnostic) => ("problem", None, Some(diagnostic.to_string())),
            _ => ("other", None, Some(format!("{change:?}"))),
        };
        if json {
            let line = ChangeJson {
                version: event.version,
                change: kind,
                name,
                reason,
            };
            println!("{}", serde_json::to_string(&line)?);
        } else {
            let mut line = format!("v{} {kind}", event.version);
            if let Some(name) = name {
                line.push(' ');
                line.push_str(name);
            }
            if let Some(reason) = reason {
                line.push_str(": ");
                line.push_str(&reason);
            }
            show!("{line}");
        }
    }
    Ok(())
}

//! `skills search QUERY [--limit N] [--json]`: what the `search_skills` tool answers.

use std::process::ExitCode;

use serde::Serialize;
use skills_runtime::format_search_results;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::print_diagnostics;

#[derive(Serialize)]
struct HitJson<'a> {
    name: &'a str,
    description: &'a str,
    source: Option<&'a str>,
    score: f32,
}

/// `skills search QUERY`: the skills that best match QUERY, best first, as `search_skills`
/// lists them (or as JSON); an empty query or a limit of 0 is an error (exit 2).
pub async fn search(args: &SourceArgs, query: &str, limit: usize, json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(args, Need::Listing, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    let hits = match catalog.search_prepared(query, limit).await {
        Ok(hits) => hits,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
        }
    };
    if json {
        let out: Vec<HitJson<'_>> = hits
            .iter()
            .filter_map(|hit| {
                let skill = snapshot.get(&hit.name)?;
                Some(HitJson {
                    name: &skill.name,
                    description: &skill.description,
                    source: snapshot.source_for(&hit.name).map(|s| s.label()),
                    score: hit.score,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{}", format_search_results(&snapshot, &hits, &[]));
    }
    Ok(ExitCode::from(library.exit(EXIT_OK)))
}

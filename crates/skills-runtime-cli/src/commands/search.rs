//! `skills search QUERY [--limit N] [--json]`: what the `search_skills` tool answers.

use std::process::ExitCode;

use serde::Serialize;
use skills_runtime::{Explanation, SearchHit, format_search_results};

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::print_diagnostics_about;

#[derive(Serialize)]
struct HitJson<'a> {
    name: &'a str,
    description: &'a str,
    source: Option<&'a str>,
    score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<Vec<MatchJson<'a>>>,
}

#[derive(Serialize)]
struct MatchJson<'a> {
    field: &'a str,
    word: &'a str,
    points: f32,
}

/// `skills search QUERY`: the skills that best match QUERY, best first, as `search_skills`
/// lists them (or as JSON); an empty query or a limit of 0 is an error (exit 2).
pub async fn search(
    args: &SourceArgs,
    view: Option<&str>,
    query: &str,
    limit: usize,
    json: bool,
    explain: bool,
) -> anyhow::Result<ExitCode> {
    // A request that cannot be answered is said before the library is read.
    if let Err(error) = skills_runtime::check_search(query, limit) {
        show_err!("error: {error}");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    if limit > skills_runtime::MAX_SEARCH_RESULTS {
        show_err!(
            "warning: a search gives at most {} skills (asked for {limit})",
            skills_runtime::MAX_SEARCH_RESULTS
        );
    }
    let library = library::catalog(args, Need::Search, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics_about(snapshot.diagnostics(), &[]);
    let selection = library.selection(view)?;
    let selection = selection.as_ref();
    let hits = catalog
        .search_selected_prepared(query, limit, &snapshot, selection)
        .await;
    let explained = if explain {
        hits.and_then(|_| catalog.explain_selected(query, limit, &snapshot, selection))
    } else {
        hits.map(|hits| {
            hits.into_iter()
                .map(|hit| Explanation {
                    name: hit.name,
                    score: hit.score,
                    matches: Vec::new(),
                })
                .collect()
        })
    };
    let explained = match explained {
        Ok(explained) => explained,
        Err(error) => {
            show_err!("error: {error}");
            return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
        }
    };
    let hits: Vec<SearchHit> = explained
        .iter()
        .map(|e| SearchHit {
            name: e.name.clone(),
            score: e.score,
        })
        .collect();
    if json {
        let out: Vec<HitJson<'_>> = explained
            .iter()
            .filter_map(|hit| {
                let skill = snapshot.get(&hit.name)?;
                Some(HitJson {
                    name: &skill.name,
                    description: &skill.description,
                    source: snapshot.source_for(&hit.name).map(|s| s.label()),
                    score: hit.score,
                    matches: explain.then(|| {
                        hit.matches
                            .iter()
                            .map(|m| MatchJson {
                                field: m.field,
                                word: &m.word,
                                points: m.points,
                            })
                            .collect()
                    }),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if explain {
        for (hit, line) in explained
            .iter()
            .zip(format_search_results(&snapshot, &hits, &[]).lines())
        {
            show!("{line}");
            show!("    {}", why(hit));
        }
    } else {
        show!("{}", format_search_results(&snapshot, &hits, &[]));
    }
    Ok(ExitCode::from(library.finish(EXIT_OK)))
}

/// `3.42 = description: pdf 1.20, form 0.80; name: pdf 0.40`: a result's score and the
/// words that made it, by field, most first.
fn why(hit: &Explanation) -> String {
    let mut fields: Vec<(&str, Vec<String>)> = Vec::new();
    for m in &hit.matches {
        let part = format!("{} {:.2}", m.word, m.points);
        match fields.iter_mut().find(|(field, _)| *field == m.field) {
            Some((_, parts)) => parts.push(part),
            None => fields.push((m.field, vec![part])),
        }
    }
    let fields: Vec<String> = fields
        .into_iter()
        .map(|(field, parts)| format!("{field}: {}", parts.join(", ")))
        .collect();
    format!("{:.2} = {}", hit.score, fields.join("; "))
}

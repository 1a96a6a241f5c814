//! `skills prompt [--loaded a,b]`: the exact skills section of the system prompt, as an
//! agent with those skills loaded sees it.

use std::process::ExitCode;

use agent_skills::{AllowedToolsPolicy, PromptSection, PromptTemplate};
use serde::Serialize;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::print_diagnostics;

#[derive(Serialize)]
struct PromptJson<'a> {
    catalog_version: u64,
    loaded: &'a [String],
    section: &'a str,
}

/// `skills prompt [--loaded a,b]`: the exact skills section of the system prompt.
pub async fn prompt(args: &SourceArgs, loaded: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(args, Need::Agent, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    if let Some(unknown) = loaded.iter().find(|name| snapshot.get(name).is_none()) {
        eprintln!("error: no skill named {unknown:?} in the sources");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let section = PromptSection::new(
        catalog.sources(),
        AllowedToolsPolicy::Recommend,
        PromptTemplate::default(),
    );
    let section = section.render(&snapshot, loaded);
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
    Ok(ExitCode::from(library.exit(EXIT_OK)))
}

//! The catalog layer on its own, as the MCP server and the CLI use it: open sources with
//! the source syntax, load them into a `SkillCatalog`, ask which source serves a skill,
//! load one as `load_skill` answers it, and render the prompt section.
//!
//! ```sh
//! cargo run --example catalog                       # examples/skills
//! cargo run --example catalog -- team=./my-skills   # plus a source that wins
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;

use skills_runtime::sources::{OpenOptions, SourceSpec};
use skills_runtime::{AllowedToolsPolicy, LoadAnswer, PromptSection, PromptTemplate, SkillCatalog, load_skill};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = OpenOptions::new(std::env::current_dir()?);
    let mut specs = vec![format!("examples={}/examples/skills", env!("CARGO_MANIFEST_DIR"))];
    specs.extend(std::env::args().skip(1));
    let sources = specs
        .iter()
        .map(|text| text.parse::<SourceSpec>()?.open(&options))
        .collect::<Result<Vec<_>, _>>()?;

    let catalog = Arc::new(SkillCatalog::new(sources));
    let snapshot = catalog.ensure_loaded().await;
    for diagnostic in snapshot.diagnostics() {
        eprintln!("{diagnostic}");
    }
    println!(
        "catalog version {}: {} skills",
        snapshot.version(),
        snapshot.skills().len()
    );
    for skill in snapshot.skills() {
        let source = snapshot.source_for(&skill.name).map_or("?", |s| s.label());
        println!("  {:<20} from {source}", skill.name);
    }

    let first = snapshot.skills().first().map(|s| s.name.clone()).unwrap_or_default();
    match load_skill(&snapshot, &first, &[]).await {
        LoadAnswer::Loaded { text } => {
            let lines = text.lines().count();
            println!("\nload_skill({first:?}): {lines} lines, ending with its resources:");
            for line in text.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev() {
                println!("  {line}");
            }
        }
        other => println!("\nload_skill({first:?}): {other}"),
    }

    let section = PromptSection::new(
        catalog.sources(),
        AllowedToolsPolicy::Recommend,
        PromptTemplate::default(),
    );
    let text = section.render(&snapshot, std::slice::from_ref(&first));
    println!("\nprompt section with {first} loaded: {} characters", text.len());
    Ok(())
}

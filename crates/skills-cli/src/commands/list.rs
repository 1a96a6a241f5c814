//! `skills list`: every skill of the sources, merged (the last source wins).

use std::process::ExitCode;

use serde::Serialize;

use super::{ShadowedJson, SkillJson, print_json, shadowed_of};
use crate::cli::{EXIT_OK, SourceArgs};
use crate::library::{self, Need};
use crate::output::{print_diagnostics, shorten, table};

pub async fn list(specs: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(specs, Need::Listing, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    let label = |name: &str| snapshot.source_for(name).map_or("", |s| s.label());
    if json {
        let skills: Vec<_> = snapshot
            .skills()
            .iter()
            .map(|skill| ListJson {
                skill: SkillJson::new(skill, label(&skill.name)),
                shadowed: shadowed_of(&snapshot, &skill.name),
            })
            .collect();
        print_json(&skills)?;
    } else if snapshot.skills().is_empty() {
        let searched: Vec<_> = catalog.sources().iter().map(|s| s.location()).collect();
        eprintln!("no skills found in: {}", searched.join(", "));
    } else {
        let rows: Vec<_> = snapshot
            .skills()
            .iter()
            .map(|skill| {
                let mut source = label(&skill.name).to_owned();
                let hidden = shadowed_of(&snapshot, &skill.name);
                if !hidden.is_empty() {
                    let hidden: Vec<_> = hidden.iter().map(|s| s.source).collect();
                    source = format!("{source} (hides {})", hidden.join(", "));
                }
                vec![skill.name.clone(), shorten(&skill.description, 60), source]
            })
            .collect();
        print!("{}", table(&["NAME", "DESCRIPTION", "SOURCE"], &rows));
    }
    Ok(ExitCode::from(library.exit(EXIT_OK)))
}

/// A skill as `list --json` prints it: with the copies it hides.
#[derive(Serialize)]
struct ListJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    shadowed: Vec<ShadowedJson<'a>>,
}

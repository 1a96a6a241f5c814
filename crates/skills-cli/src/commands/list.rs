//! `skills list`: every skill of the sources, merged (the last source wins).

use std::process::ExitCode;

use serde::Serialize;

use agent_skills::{ResourceKind, ResourceMetadata};

use super::{ShadowedJson, SkillJson, flags, print_json, shadowed_of};
use crate::cli::{EXIT_OK, SourceArgs};
use crate::library::{self, Need};
use crate::output::{print_diagnostics, shorten, table};

pub async fn list(specs: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let library = library::catalog(specs, Need::Inventory, json).await?;
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
                resources: ResourceCounts::of(&snapshot.resources_of(&skill.name).unwrap_or_default()),
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
                let resources = snapshot.resources_of(&skill.name).unwrap_or_default();
                vec![
                    skill.name.clone(),
                    shorten(&skill.description, 60),
                    ResourceCounts::of(&resources).short(),
                    flags(skill).join(","),
                    source,
                ]
            })
            .collect();
        print!(
            "{}",
            table(&["NAME", "DESCRIPTION", "RESOURCES", "FLAGS", "SOURCE"], &rows)
        );
    }
    Ok(ExitCode::from(library.exit(EXIT_OK)))
}

/// A skill as `list --json` prints it: with the copies it hides.
#[derive(Serialize)]
struct ListJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    resources: ResourceCounts,
    shadowed: Vec<ShadowedJson<'a>>,
}

/// How many resource files of each kind a skill has.
#[derive(Serialize, Default)]
struct ResourceCounts {
    scripts: usize,
    references: usize,
    assets: usize,
    other: usize,
}

impl ResourceCounts {
    fn of(resources: &[ResourceMetadata]) -> Self {
        let mut counts = Self::default();
        for resource in resources {
            *match resource.kind {
                ResourceKind::Script => &mut counts.scripts,
                ResourceKind::Reference => &mut counts.references,
                ResourceKind::Asset => &mut counts.assets,
                ResourceKind::Other => &mut counts.other,
            } += 1;
        }
        counts
    }

    /// `2s 1r 1a 1o` (scripts, references, assets, other files), the kinds it has;
    /// `-` for none.
    fn short(&self) -> String {
        let parts: Vec<String> = [
            (self.scripts, 's'),
            (self.references, 'r'),
            (self.assets, 'a'),
            (self.other, 'o'),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{n}{kind}"))
        .collect();
        if parts.is_empty() {
            "-".to_owned()
        } else {
            parts.join(" ")
        }
    }
}

//! The skill file's two names: a folder without `SKILL.md` is read through its
//! lowercase `skill.md`, as the specification's reference library reads it.

use skills_core::{BackendProtocol, DiagnosticKind, Discovery, path::join};

use crate::check::{ensure_eq, paths};

/// Discovery reads a folder's lowercase `skill.md` when it has no `SKILL.md`, with a
/// `lowercase-skill-file` warning naming it, and prefers `SKILL.md` when both exist; at
/// depth 1 (one lookup per folder) as deeper (a walk), and with resources.
pub async fn list_skills_reads_a_lowercase_skill_md(b: &dyn BackendProtocol, root: &str) {
    let source = join(root, "cased");
    for (depth, resources) in [(1, false), (2, false), (1, true)] {
        let listing = Discovery::new(b, &source)
            .depth(depth)
            .resources(resources)
            .run()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let what = format!("depth {depth}, resources {resources}");
        let skills: Vec<_> = listing
            .skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str(), s.path.clone()))
            .collect();
        ensure_eq(
            skills,
            vec![
                ("both", "Upper case wins", join(root, "cased/both/SKILL.md")),
                ("lower", "Read from skill.md", join(root, "cased/lower/skill.md")),
            ],
            &format!("skills ({what})"),
        );
        let diagnostics: Vec<_> = listing.diagnostics.iter().map(|d| (d.path.clone(), d.kind)).collect();
        ensure_eq(
            diagnostics,
            vec![(join(root, "cased/lower/skill.md"), DiagnosticKind::LowercaseSkillFile)],
            &format!("diagnostics ({what})"),
        );
        ensure_eq(listing.folders, 2, &format!("folders ({what})"));
        if resources {
            // Neither name of the skill file is offered as a resource.
            let offered: Vec<_> = listing.resources.values().flatten().map(|r| r.path.clone()).collect();
            ensure_eq(offered, paths(root, &[]), &format!("resources ({what})"));
        }
    }
}

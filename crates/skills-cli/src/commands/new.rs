//! `skills new NAME`: scaffold a skill folder.

use std::path::Path;
use std::process::ExitCode;

use agent_skills::validate_skill_name;
use anyhow::Context;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR};

/// `skills new NAME [--dir DIR]`: a skill folder with a valid `SKILL.md` and the three
/// standard resource directories. Refuses invalid names and existing folders.
pub fn new_skill(name: &str, dir: &Path, description: Option<&str>) -> anyhow::Result<ExitCode> {
    if let Err(problem) = validate_skill_name(name, name) {
        eprintln!("error: {name:?} is not a valid skill name: {problem}");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let root = dir.join(name);
    if root.exists() {
        eprintln!("error: {} already exists", root.display());
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let description = description.unwrap_or("TODO: what this skill does and when to use it.");
    if description.contains(['\n', '\r']) {
        eprintln!("error: the description must be one line");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let quoted = serde_json::to_string(description)?; // a JSON string is a valid YAML scalar
    let skill_md = format!(
        "---\nname: {name}\ndescription: {quoted}\n---\n\n# {name}\n\n\
         ## When to use\n\nDescribe the tasks this skill is for.\n\n\
         ## Instructions\n\n1. First step.\n2. Second step.\n\n\
         Scripts live in `scripts/`, reference documents in `references/`, templates and\n\
         other files in `assets/`.\n"
    );
    for sub in ["scripts", "references", "assets"] {
        std::fs::create_dir_all(root.join(sub))
            .with_context(|| format!("cannot create {}", root.join(sub).display()))?;
    }
    let path = root.join("SKILL.md");
    std::fs::write(&path, skill_md).with_context(|| format!("cannot write {}", path.display()))?;
    println!("created {}", path.display());
    Ok(ExitCode::from(EXIT_OK))
}

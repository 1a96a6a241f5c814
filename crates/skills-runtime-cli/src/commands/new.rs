//! `skills new NAME`: scaffold a skill folder.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use skills_runtime::validate_skill_name;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR};

/// What `skills new` writes into the frontmatter.
#[derive(Debug, Default)]
pub struct Scaffold<'a> {
    pub description: Option<&'a str>,
    /// `disable-model-invocation: true`.
    pub manual: bool,
    /// `context: fork`.
    pub fork: bool,
    pub argument_hint: Option<&'a str>,
}

/// `skills new NAME [--dir DIR]`: a skill folder with a valid `SKILL.md` and the three
/// standard resource directories (each kept in git by a `.gitkeep`). Refuses invalid names and existing folders.
pub fn new_skill(name: &str, dir: &Path, scaffold: &Scaffold<'_>) -> anyhow::Result<ExitCode> {
    if let Err(problem) = validate_skill_name(name, name) {
        show_err!("error: {name:?} is not a valid skill name: {problem}");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let root = dir.join(name);
    if root.exists() {
        show_err!("error: {} already exists", root.display());
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let description = scaffold
        .description
        .unwrap_or("TODO: what this skill does and when to use it.");
    for (field, value) in [
        ("description", Some(description)),
        ("argument hint", scaffold.argument_hint),
    ] {
        if value.is_some_and(|v| v.contains(['\n', '\r'])) {
            show_err!("error: the {field} must be one line");
            return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
        }
    }
    // A JSON string is a valid YAML scalar.
    let mut frontmatter = format!("name: {name}\ndescription: {}\n", serde_json::to_string(description)?);
    if scaffold.manual {
        frontmatter.push_str("disable-model-invocation: true\n");
    }
    if scaffold.fork {
        frontmatter.push_str("context: fork\n");
    }
    let mut arguments = "";
    if let Some(hint) = scaffold.argument_hint {
        frontmatter.push_str(&format!("argument-hint: {}\n", serde_json::to_string(hint)?));
        arguments = "## Arguments\n\nWrite \\$ARGUMENTS for every argument as given, \\$0 for the first, \\$1 for \
                     the second (a backslash keeps a placeholder as written, as here).\n\n";
    }
    let skill_md = format!(
        "---\n{frontmatter}---\n\n# {name}\n\n\
         ## When to use\n\nDescribe the tasks this skill is for.\n\n{arguments}\
         ## Instructions\n\n1. First step.\n2. Second step.\n\n\
         Scripts live in `scripts/`, reference documents in `references/`, templates and\n\
         other files in `assets/`.\n"
    );
    // Each resource folder holds an empty `.gitkeep`, so that git keeps the folder
    // (it drops empty ones); it is not offered as a resource.
    for sub in ["scripts", "references", "assets"] {
        let keep = root.join(sub).join(".gitkeep");
        std::fs::create_dir_all(root.join(sub))
            .and_then(|()| std::fs::write(&keep, ""))
            .with_context(|| format!("cannot create {}", keep.display()))?;
    }
    let path = root.join("SKILL.md");
    std::fs::write(&path, skill_md).with_context(|| format!("cannot write {}", path.display()))?;
    show!("created {}", path.display());
    Ok(ExitCode::from(EXIT_OK))
}

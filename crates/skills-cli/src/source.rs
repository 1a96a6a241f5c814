//! Which sources a command reads: `--source` values, a `skills.toml`, or the default
//! chain. Parsing and opening are the library's (`agent_skills::sources`), so the CLI,
//! the MCP server and Rust code read a library the same way.

use std::path::{Path, PathBuf};

use agent_skills::sources::{CONFIG_FILE, OpenOptions, OpenedSource, SourceSpec, SourcesConfig};
use anyhow::Context;
use skills_core::{SkillListing, list_skills};

use crate::cli::SourceArgs;

/// A source ready to be listed.
pub type Source = OpenedSource;

/// The sources of a command, in priority order: those of `--config FILE` (or of
/// `./skills.toml` when there is one and no `--source` is given), then every `--source`.
/// With neither, the default chain.
pub fn open_sources(args: &SourceArgs) -> anyhow::Result<Vec<Source>> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let config = match &args.config {
        Some(path) => Some(path.clone()),
        None if args.sources.is_empty() && Path::new(CONFIG_FILE).is_file() => Some(PathBuf::from(CONFIG_FILE)),
        None => None,
    };
    let mut opened = Vec::new();
    if let Some(path) = &config {
        let file = SourcesConfig::load(path)?;
        let options = OpenOptions::new(cwd.join(SourcesConfig::base_dir_of(path)));
        opened.extend(file.open(&options)?);
    }
    let options = OpenOptions::new(&cwd);
    for text in &args.sources {
        opened.push(open_with(text, &options)?);
    }
    if config.is_none() && args.sources.is_empty() {
        return Ok(default_sources(&options));
    }
    Ok(opened)
}

/// One source given on the command line (`[LABEL=]LOCATION`), relative paths taken from
/// the current directory.
pub fn open_source(text: &str) -> anyhow::Result<Source> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    open_with(text, &OpenOptions::new(cwd))
}

fn open_with(text: &str, options: &OpenOptions) -> anyhow::Result<Source> {
    let spec: SourceSpec = text.parse()?;
    Ok(spec.open(options)?)
}

/// The skills of one source, errors naming it.
pub async fn list_source(source: &Source) -> anyhow::Result<SkillListing> {
    list_skills(source.backend.as_ref(), &source.path)
        .await
        .with_context(|| format!("source {} ({})", source.label, source.location))
}

/// The default chain: shipped examples, then the user's, then the project's skills.
/// Missing directories are skipped.
fn default_sources(options: &OpenOptions) -> Vec<Source> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".agents/skills"));
    let project = PathBuf::from(".agents/skills");
    [("examples", Some(examples)), ("user", home), ("project", Some(project))]
        .into_iter()
        .filter_map(|(label, dir)| {
            let spec = SourceSpec {
                label: Some(label.to_owned()),
                location: dir?.to_str()?.to_owned(),
            };
            spec.open(options).ok()
        })
        .collect()
}

//! The one route from a command's arguments to skills: `--source` values, a
//! `skills.toml` (`--config`, or `./skills.toml`), or the default chain, opened into
//! [`SkillSource`]s (parsing and opening are the library's, `agent_skills::sources`, so
//! the CLI, the MCP server and Rust code read a library the same way) and loaded into a
//! [`SkillCatalog`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_skills::sources::{CONFIG_FILE, OpenOptions, SourceSpec, SourcesConfig};
use agent_skills::{SkillCatalog, SkillSource};
use anyhow::Context;

use crate::cli::SourceArgs;
use crate::progress::Progress;

/// What a command needs of its catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The skills only, once; a source that cannot be read fails the command (list,
    /// info).
    Listing,
    /// Skills and their resources once, as an agent sees them; a source that cannot be
    /// read is a diagnostic, as it is for an agent (prompt, load).
    Agent,
    /// As [`Need::Agent`], kept up to date: incremental reloads, last good versions
    /// (watch, serve).
    Live,
}

/// Opens the sources of a command and discovers them into a catalog; `quiet` (JSON
/// output, or a server whose client owns the terminal) means no spinner.
pub async fn catalog(args: &SourceArgs, need: Need, quiet: bool) -> anyhow::Result<Arc<SkillCatalog>> {
    let progress = Progress::start(quiet, "reading skill sources");
    let catalog = SkillCatalog::new(open_sources(args)?)
        .with_resources(need != Need::Listing)
        // A one-shot command holds one copy of the skills, not three.
        .with_incremental_reload(need == Need::Live);
    let catalog = Arc::new(catalog);
    catalog.ensure_loaded().await;
    drop(progress);
    if need == Need::Listing {
        if let Some((i, error)) = catalog.source_errors().await.into_iter().next() {
            let source = &catalog.sources()[i];
            return Err(anyhow::Error::new(error).context(format!(
                "source {} ({})",
                source.label(),
                source.location()
            )));
        }
    }
    Ok(catalog)
}

/// The sources of a command, in priority order: those of `--config FILE` (or of
/// `./skills.toml` when there is one and no `--source` is given), then every `--source`.
/// With neither, the default chain.
pub fn open_sources(args: &SourceArgs) -> anyhow::Result<Vec<SkillSource>> {
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
pub fn open_source(text: &str) -> anyhow::Result<SkillSource> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    open_with(text, &OpenOptions::new(cwd))
}

fn open_with(text: &str, options: &OpenOptions) -> anyhow::Result<SkillSource> {
    let spec: SourceSpec = text.parse()?;
    Ok(spec.open(options)?)
}

/// The default chain: shipped examples, then the user's, then the project's skills.
/// Missing directories are skipped.
fn default_sources(options: &OpenOptions) -> Vec<SkillSource> {
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

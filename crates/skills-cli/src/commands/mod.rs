//! The subcommands, one file each; every one that reads skills gets them through
//! [`crate::library`].

mod info;
mod list;
mod load;
mod new;
mod prompt;
mod search;
mod validate;
mod watch;

use std::process::ExitCode;

use agent_skills::{CatalogSnapshot, SkillMetadata};
use anyhow::Context;
use serde::Serialize;

use crate::cli::{Cli, Command};

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { sources, json } => list::list(&sources, json).await,
        Command::Info { name, sources, json } => info::info(&name, &sources, json).await,
        Command::Validate {
            paths,
            json,
            strict,
            profile,
            discovery,
        } => validate::validate(&paths, json, strict, profile, discovery).await,
        Command::Watch { sources, json } => watch::watch(&sources, json).await,
        Command::Prompt {
            sources,
            loaded,
            json,
            budget,
            report,
        } => prompt::prompt(&sources, &loaded, json, budget, report).await,
        Command::Load { name, sources, json } => load::load(&sources, &name, json).await,
        Command::Search {
            query,
            sources,
            limit,
            json,
        } => search::search(&sources, &query, limit, json).await,
        Command::New { name, dir, description } => new::new_skill(&name, &dir, description.as_deref()),
        Command::Serve { sources, http, budget } => {
            let transport = match http {
                None => crate::mcp::Transport::Stdio,
                Some(addr) => crate::mcp::Transport::Http(parse_http_addr(&addr)?),
            };
            crate::mcp::serve(&sources, transport, budget).await
        }
    }
}

/// `PORT` (on 127.0.0.1) or `HOST:PORT`.
fn parse_http_addr(text: &str) -> anyhow::Result<std::net::SocketAddr> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let text = text
        .strip_prefix("localhost:")
        .map_or_else(|| text.to_owned(), |port| format!("127.0.0.1:{port}"));
    text.parse()
        .with_context(|| format!("--http wants PORT or HOST:PORT (such as 127.0.0.1:8765), not {text:?}"))
}

/// A skill as `--json` prints it: the `SkillMetadata` fields plus its source's label.
#[derive(Serialize)]
struct SkillJson<'a> {
    name: &'a str,
    description: &'a str,
    path: &'a str,
    license: Option<&'a str>,
    compatibility: Option<&'a str>,
    metadata: &'a agent_skills::FieldMap<String>,
    allowed_tools: &'a [String],
    source: &'a str,
}

impl<'a> SkillJson<'a> {
    fn new(skill: &'a SkillMetadata, source: &'a str) -> Self {
        Self {
            name: &skill.name,
            description: &skill.description,
            path: &skill.path,
            license: skill.license.as_deref(),
            compatibility: skill.compatibility.as_deref(),
            metadata: &skill.metadata,
            allowed_tools: &skill.allowed_tools,
            source,
        }
    }
}

/// Writes `value` as pretty JSON to stdout, streamed: a large catalog is never held as
/// one string.
fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// The copies a skill of `snapshot` hides, earliest source first.
fn shadowed_of<'a>(snapshot: &'a CatalogSnapshot, name: &str) -> Vec<ShadowedJson<'a>> {
    snapshot
        .shadowed(name)
        .iter()
        .map(|s| ShadowedJson {
            source: snapshot.sources().get(s.source).map_or("", |source| source.label()),
            path: &s.path,
        })
        .collect()
}

#[derive(Serialize)]
struct ShadowedJson<'a> {
    source: &'a str,
    path: &'a str,
}

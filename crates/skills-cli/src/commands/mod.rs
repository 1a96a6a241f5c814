//! The subcommands, one file each; every one that reads skills gets them through
//! [`crate::library`].

mod info;
mod list;
mod load;
mod lock;
mod new;
mod prompt;
mod publish;
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
        Command::List {
            sources,
            json,
            resources,
            no_resources: _,
        } => list::list(&sources, json, resources).await,
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
        Command::Load {
            name,
            sources,
            json,
            arguments,
        } => load::load(&sources, &name, json, arguments).await,
        Command::Lock { sources, update, sign } => lock::lock(&sources, &update, sign.as_deref()).await,
        Command::Verify { sources, json } => lock::verify(&sources, json).await,
        Command::Publish {
            location,
            well_known,
            discovery,
        } => match well_known {
            Some(dir) => publish::well_known(&location, &dir, &discovery).await,
            None => publish::publish(&location, &discovery).await,
        },
        Command::Search {
            query,
            sources,
            limit,
            json,
        } => search::search(&sources, &query, limit, json).await,
        Command::New {
            name,
            dir,
            description,
            manual,
            fork,
            argument_hint,
        } => new::new_skill(
            &name,
            &dir,
            &new::Scaffold {
                description: description.as_deref(),
                manual,
                fork,
                argument_hint: argument_hint.as_deref(),
            },
        ),
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
    /// The model may see and load it (no `disable-model-invocation`).
    model_invocable: bool,
    /// People may invoke it (no `user-invocable: false`).
    user_invocable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<&'a agent_skills::SkillExtensions>,
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
            model_invocable: skill.model_invocable(),
            user_invocable: skill.user_invocable(),
            extensions: skill.extensions(),
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

/// A JSON array whose items are made one at a time while it is written: `list --json`
/// of 100,000 skills never holds 100,000 items at once. The closure is called once per
/// serialization.
struct Streamed<F>(F);

impl<F, I> Serialize for Streamed<F>
where
    F: Fn() -> I,
    I: IntoIterator,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
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

/// The short flags of a skill's invocation fields, for tables: `manual` (for people
/// only), `model-only` (not for people), `fork`, `model=NAME`.
fn flags(skill: &SkillMetadata) -> Vec<String> {
    let mut flags = Vec::new();
    if !skill.model_invocable() {
        flags.push("manual".to_owned());
    }
    if !skill.user_invocable() {
        flags.push("model-only".to_owned());
    }
    if skill.is_fork() {
        flags.push("fork".to_owned());
    }
    if let Some(model) = skill.extensions().and_then(|e| e.model.as_deref()) {
        flags.push(format!("model={model}"));
    }
    flags
}

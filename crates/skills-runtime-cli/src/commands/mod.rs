//! The subcommands, one file each; every one that reads skills gets them through
//! [`crate::library`].

mod add;
mod containers;
mod info;
mod install_table;
mod installed;
mod json_items;
mod json_text;
mod list;
mod load;
mod lock;
mod lock_keys;
mod lock_read;
mod new;
mod npm_lock;
mod outdated;
mod prompt;
mod publish;
mod remove;
mod search;
mod shell;
mod sync;
mod sync_watch;
mod update;
mod validate;
mod watch;

use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use skills_runtime::{CatalogSnapshot, SkillMetadata};

use crate::cli::{Cli, Command};

/// Set when a command printed a kept answer (`skills list` on files unchanged since):
/// nothing was loaded or written, so `main` lets the process end without stopping the
/// runtime's threads one by one first (0.16 ms of a 9 ms start, decision 125).
pub(crate) static NOTHING_LEFT_TO_DO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List {
            sources,
            view,
            json,
            resources,
            no_resources: _,
            installed,
            global,
        } => {
            if installed {
                installed::list_installed(global, &sources, json).await
            } else {
                list::list(&sources, view.view.as_deref(), json, resources).await
            }
        }
        Command::Info {
            name,
            sources,
            json,
            available_tools,
        } => info::info(&name, &sources, json, available_tools.as_deref()).await,
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
            view,
            available_tools,
            loaded,
            json,
            budget,
            report,
        } => {
            let agent = prompt::Agent {
                view: view.view.as_deref(),
                tools: available_tools.as_deref(),
            };
            prompt::prompt(&sources, agent, &loaded, json, budget, report).await
        }
        Command::Load {
            name,
            sources,
            json,
            arguments,
        } => load::load(&sources, &name, json, arguments).await,
        Command::Lock { sources, update, sign } => lock::lock(&sources, &update, sign.as_deref()).await,
        Command::Verify { sources, json } => lock::verify(&sources, json).await,
        Command::Outdated { sources, json } => outdated::outdated(&sources, json).await,
        Command::Publish {
            location,
            well_known,
            sources,
        } => match (well_known, location) {
            (Some(dir), location) => publish::well_known(location.as_deref(), &dir, &sources).await,
            (None, Some(location)) => publish::publish(&location, &sources).await,
            (None, None) => anyhow::bail!(
                "publish needs LOCATION (the library whose skills-index.json to write) or --well-known DIR"
            ),
        },
        Command::Add {
            source,
            skills,
            agents,
            copy,
            yes: _,
            flags,
            discovery,
        } => {
            let request = add::AddRequest {
                source: &source,
                skills: &skills,
                agents: &agents,
                copy,
                flags,
                record: true,
                view: None,
                keep_gone: None,
                depth: None,
            };
            add::add(&request, &installer_args(discovery)).await
        }
        Command::Sync {
            frozen,
            watch,
            dry_run,
            from_npm_lock,
            trusted_key,
            view,
            discovery,
        } => {
            let options = sync::SyncOptions {
                frozen,
                watch,
                dry_run,
                from_npm_lock,
                view: view.view,
            };
            let mut args = installer_args(discovery);
            args.lock.trusted_key = trusted_key;
            sync::sync(options, &args).await
        }
        Command::Update {
            names,
            flags,
            trusted_key,
            discovery,
        } => {
            let mut args = installer_args(discovery);
            args.lock.trusted_key = trusted_key;
            update::update(&names, flags, &args).await
        }
        Command::Remove { names, agents, flags } => remove::remove(&names, &agents, flags),
        Command::Completions { shell } => shell::completions(shell),
        Command::Manpage => shell::manpage(),
        Command::Search {
            query,
            sources,
            view,
            limit,
            json,
            explain,
        } => search::search(&sources, view.view.as_deref(), &query, limit, json, explain).await,
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
        Command::Serve {
            sources,
            view,
            http,
            budget,
            instructions_budget,
        } => {
            let transport = match http {
                None => crate::mcp::Transport::Stdio,
                Some(addr) => crate::mcp::Transport::Http(parse_http_addr(&addr)?),
            };
            crate::mcp::serve(&sources, view.view.as_deref(), transport, budget, instructions_budget).await
        }
    }
}

/// The source arguments of an installer command: no sources of its own (it names its
/// source, or reads them from skills.toml and the lock), the discovery flags given.
fn installer_args(discovery: crate::cli::DiscoveryArgs) -> crate::cli::SourceArgs {
    crate::cli::SourceArgs {
        sources: Vec::new(),
        config: None,
        discovery,
        lock: crate::cli::LockArgs::default(),
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
    metadata: &'a skills_runtime::FieldMap<String>,
    allowed_tools: &'a [String],
    /// The model may see and load it (no `disable-model-invocation`).
    model_invocable: bool,
    /// People may invoke it (no `user-invocable: false`).
    user_invocable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<&'a skills_runtime::SkillExtensions>,
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
    if skill.extensions().is_some_and(|e| e.requires_tools()) {
        flags.push("needs-tools".to_owned());
    }
    if !skill.required_skills().is_empty() {
        flags.push("depends".to_owned());
    }
    flags
}

//! The subcommands, one file each; every one that reads skills gets them through
//! [`crate::library`].

mod add;
mod info;
mod installed;
mod json_items;
mod list;
mod load;
mod lock;
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

/// Items formatted by each thread of [`write_json_items`] at a time.
const JSON_BATCH: usize = 256;

/// Writes `item(0)`, ..., `item(n - 1)` to stdout as a pretty JSON array (see
/// [`write_json_items`]).
fn print_json_items<T: Serialize>(n: usize, item: impl Fn(usize) -> T + Sync) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    write_json_items(&mut out, n, item)?;
    std::io::Write::flush(&mut out)?;
    Ok(())
}

/// Writes `item(0)`, ..., `item(n - 1)` as a pretty JSON array, byte for byte what
/// `serde_json::to_writer_pretty` writes for them in a list, with the items formatted
/// on two threads a batch at a time: formatting is most of the output's time, and the
/// other core is idle by then (`list --json` of 8,000 real skills: median 374 to 361 ms
/// over 20 interleaved runs). One helper thread formats every other batch for the whole
/// output while this one formats the rest and writes (a thread started for each pair of
/// batches was 26 thread starts for 13,209 skills).
/// Memory stays at a few batches of text; no item is held longer than its batch.
fn write_json_items<T: Serialize>(
    out: &mut impl std::io::Write,
    n: usize,
    item: impl Fn(usize) -> T + Sync,
) -> anyhow::Result<()> {
    // Each item written one level in, where the list holds it. Each thread keeps its
    // buffers from batch to batch: fresh ones cost a page fault for every 4 KiB of text
    // (a sixth of a warm `list --json`'s faults).
    let format = |batch: usize, out: &mut Vec<u8>| -> serde_json::Result<()> {
        out.clear();
        for i in batch * JSON_BATCH..((batch + 1) * JSON_BATCH).min(n) {
            out.extend_from_slice(if i > 0 { b",\n  " } else { b"  " });
            let mut serializer =
                serde_json::Serializer::with_formatter(&mut *out, json_items::ListItemFormatter::new());
            item(i).serialize(&mut serializer)?;
        }
        Ok(())
    };
    if n == 0 {
        writeln!(out, "[]")?;
        return Ok(());
    }
    out.write_all(b"[\n")?;
    let batches = n.div_ceil(JSON_BATCH);
    let mut mine = Vec::new();
    if batches == 1 {
        format(0, &mut mine)?;
        out.write_all(&mine)?;
    } else {
        // The helper formats the odd batches into buffers this thread hands back once
        // written; it stops at its first error, or when this thread stops taking.
        let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<serde_json::Result<Vec<u8>>>(1);
        let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let written = std::thread::scope(|scope| {
            let helper = scope.spawn(move || {
                for batch in (1..batches).step_by(2) {
                    let mut text = spare_rx.try_recv().unwrap_or_default();
                    let formatted = format(batch, &mut text).map(|()| text);
                    let failed = formatted.is_err();
                    if done_tx.send(formatted).is_err() || failed {
                        return;
                    }
                }
            });
            let mut write = || -> anyhow::Result<()> {
                for batch in (0..batches).step_by(2) {
                    format(batch, &mut mine)?;
                    out.write_all(&mine)?;
                    if batch + 1 < batches {
                        let Ok(odd) = done_rx.recv() else {
                            anyhow::bail!("a thread formatting the JSON output failed");
                        };
                        let odd = odd?;
                        out.write_all(&odd)?;
                        let _ = spare_tx.send(odd);
                    }
                }
                Ok(())
            };
            let written = write();
            // Unblocks a helper still formatting ahead after a failed write.
            drop(done_rx);
            match helper.join() {
                Ok(()) => written,
                Err(_) => Err(anyhow::anyhow!("a thread formatting the JSON output failed")),
            }
        });
        written?;
    }
    out.write_all(b"\n]\n")?;
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Serialize)]
    struct Item {
        name: String,
        tags: Vec<&'static str>,
        empty: Vec<u8>,
        nested: BTreeMap<&'static str, Option<u32>>,
    }

    fn item(i: usize) -> Item {
        Item {
            name: format!("skill-{i}: \"quoted\"\nand a line break"),
            tags: if i % 2 == 0 { vec!["a", "b"] } else { Vec::new() },
            empty: Vec::new(),
            nested: BTreeMap::from([("x", Some(i as u32)), ("y", None)]),
        }
    }

    #[test]
    fn json_items_are_written_as_serde_json_writes_the_list() {
        // None, one, one batch and a bit, an odd number of batches (the last one this
        // thread's, with none from the helper after it), an even number with a short
        // last one.
        for n in [0, 1, JSON_BATCH + 3, 2 * JSON_BATCH + 1, 5 * JSON_BATCH + 1] {
            let mut ours = Vec::new();
            write_json_items(&mut ours, n, item).unwrap();
            let mut theirs = serde_json::to_vec_pretty(&(0..n).map(item).collect::<Vec<_>>()).unwrap();
            theirs.push(b'\n');
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(theirs).unwrap(),
                "{n} items"
            );
        }
    }

    /// A writer that takes `left` bytes, then fails as a closed pipe does.
    struct Closing {
        left: usize,
    }

    impl std::io::Write for Closing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.left == 0 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            let taken = buf.len().min(self.left);
            self.left -= taken;
            Ok(taken)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// An item that fails to serialize when its index is `bad`.
    struct Failing {
        i: usize,
        bad: usize,
    }

    impl Serialize for Failing {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            if self.i == self.bad {
                return Err(serde::ser::Error::custom("no such item"));
            }
            serializer.serialize_u64(self.i as u64)
        }
    }

    #[test]
    fn a_failed_write_or_item_stops_the_output_with_an_error() {
        let n = 7 * JSON_BATCH + 5;
        // A pipe closed in the first batch, in a batch the other thread formats, and
        // near the end: an error each time, and no thread left waiting.
        let whole = {
            let mut whole = Vec::new();
            write_json_items(&mut whole, n, item).unwrap();
            whole.len()
        };
        for left in [0, 10, whole / 3, whole - 3] {
            let failed = write_json_items(&mut Closing { left }, n, item);
            assert!(failed.is_err(), "{left} bytes");
        }
        // An item that cannot be written, in a batch of either thread.
        for bad in [0, JSON_BATCH + 1, 4 * JSON_BATCH, n - 1] {
            let mut out = Vec::new();
            let failed = write_json_items(&mut out, n, |i| Failing { i, bad });
            let message = failed.unwrap_err().to_string();
            assert!(message.contains("no such item"), "{bad}: {message}");
        }
    }
}

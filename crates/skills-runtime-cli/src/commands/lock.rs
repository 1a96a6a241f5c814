//! `skills lock` and `skills verify`: pin a library in skills.lock, and check a library
//! against its pin.

use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use skills_runtime::lock::Drift;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need, lock_settings};
use crate::output::print_diagnostics;

/// Exit code of `verify` when the library differs from its lock.
const EXIT_DRIFT: u8 = 1;

/// `skills lock [--update NAME]... [--sign KEY]`: writes the lock of the library (or
/// re-pins the named skills in the existing lock) and, with a key, its signature.
pub async fn lock(args: &SourceArgs, update: &[String], sign: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    // Pin what is there, not what an earlier lock allows.
    let mut unfrozen = args.clone();
    unfrozen.lock.frozen = false;
    let settings = lock_settings(args)?;
    refuse_the_install_lock(args, &settings.path)?;
    let library = library::catalog(&unfrozen, Need::Listing, false).await?;
    print_diagnostics(library.catalog.snapshot().diagnostics());
    let (pinned, problems) = library.catalog.pin().await;
    for problem in &problems {
        show_err!("error: {problem}");
    }
    let lock = if update.is_empty() {
        pinned
    } else {
        let mut lock = settings.read().context("--update re-pins skills of an existing lock")?;
        for name in update {
            match pinned.skills.get(name) {
                Some(skill) => {
                    lock.skills.insert(name.clone(), skill.clone());
                }
                None if lock.skills.remove(name).is_some() => show_err!("unpinned {name}: it is gone"),
                None => {
                    show_err!("error: no skill named '{name}' in the library or the lock");
                    return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
                }
            }
        }
        lock.sources = pinned.sources;
        lock
    };
    let mut lock = lock;
    relative_locations(&mut lock, &settings.path);
    let text = lock.to_toml();
    skills_install::write::write_file(&settings.path, text.as_bytes())?;
    show!("locked {} skills in {}", lock.skills.len(), settings.path.display());
    if let Some(key) = sign {
        let signature = crate::signing::sign(&settings.path, &text, key)?;
        show!("signed: {}", signature.display());
    }
    let code = if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_SOURCE_ERROR
    };
    Ok(ExitCode::from(library.exit(code)))
}

/// Local locations under the lockfile's folder written relative to it, so that the
/// same library pins to the same text in every clone.
fn relative_locations(lock: &mut skills_runtime::lock::Lock, lockfile: &std::path::Path) {
    let Some(base) = lockfile
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                p
            }
        })
        .and_then(|p| p.canonicalize().ok())
    else {
        return;
    };
    let relative = |text: &mut String| {
        if let Ok(rel) = std::path::Path::new(text.as_str()).strip_prefix(&base) {
            let rel = rel.to_string_lossy();
            *text = if rel.is_empty() {
                ".".to_owned()
            } else {
                rel.into_owned()
            };
        }
    };
    for source in lock.sources.values_mut() {
        relative(&mut source.location);
        if let Some(spec) = &mut source.spec {
            relative(spec);
        }
    }
}

#[derive(Serialize)]
struct VerifyJson {
    matches: bool,
    skills: usize,
    drift: Vec<String>,
}

/// `skills verify`: the library against its lock, one line per difference; exit 1 when
/// there is any (or the signature a trusted key asks for is missing or wrong). The
/// sources are those the lock was made from (each source's `spec`, folders relative to
/// the lockfile), unless `--source` or `--config` names others, or the lock predates
/// specs.
pub async fn verify(args: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let settings = lock_settings(args)?;
    let lock = match settings.read() {
        Ok(lock) => lock,
        Err(error) => {
            show_err!("error: {error:#}");
            return Ok(ExitCode::from(EXIT_DRIFT));
        }
    };
    let mut unfrozen = args.clone();
    unfrozen.lock.frozen = false;
    let named = !args.sources.is_empty() || args.config.is_some();
    let library = match library::specs_of_lock(&lock, &settings.path) {
        Some(specs) if !named => library::catalog_of(&specs, &unfrozen, Need::Listing, json).await?,
        _ => library::catalog(&unfrozen, Need::Listing, json).await?,
    };
    let (found, problems) = library.catalog.pin().await;
    // A skill that cannot be read is reported as such, not also as gone.
    let unreadable: Vec<String> = problems.iter().map(|d| d.skill().to_owned()).collect();
    let mut drift: Vec<Drift> = problems;
    drift.extend(
        lock.drift(&found)
            .into_iter()
            .filter(|d| !(matches!(d, Drift::Gone { .. }) && unreadable.iter().any(|s| s == d.skill()))),
    );
    let lines: Vec<String> = drift.iter().map(ToString::to_string).collect();
    if json {
        let out = VerifyJson {
            matches: lines.is_empty(),
            skills: found.skills.len(),
            drift: lines.clone(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for line in &lines {
            show!("{line}");
        }
        if lines.is_empty() {
            show!("{} skills match {}", found.skills.len(), settings.path.display());
        }
    }
    Ok(ExitCode::from(if lines.is_empty() {
        library.exit(EXIT_OK)
    } else {
        EXIT_DRIFT
    }))
}

/// In a project whose `skills.toml` has `[[install]]` tables, `skills.lock` pins what
/// `skills add` installed and where from; a library lock written over it would lose
/// that. Such a lock is written only where `--lockfile` says.
fn refuse_the_install_lock(args: &SourceArgs, path: &std::path::Path) -> anyhow::Result<()> {
    if args.lock.lockfile.is_some() || !path.is_file() {
        return Ok(());
    }
    let Some(config) = library::config_file(args).or_else(|| {
        let here = std::path::PathBuf::from(skills_runtime::sources::CONFIG_FILE);
        here.is_file().then_some(here)
    }) else {
        return Ok(());
    };
    let installs = skills_runtime::sources::SourcesConfig::load(&config).is_ok_and(|c| !c.install.is_empty());
    if installs {
        anyhow::bail!(
            "{} pins the skills `skills add` installed here: `skills update` re-pins them; \
             write a lock of the library elsewhere with --lockfile FILE",
            path.display()
        );
    }
    Ok(())
}

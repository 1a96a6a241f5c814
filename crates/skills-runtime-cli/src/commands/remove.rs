//! `skills remove NAME...`: installed skills out of `.agents/skills`, out of every
//! agent folder that links to them (or holds our copy), and out of `skills.lock`. A
//! skill edited here is kept unless `--force`, which keeps the edited version as a
//! backup.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use skills_install::agents;
use skills_install::link::{Shown, shown as shown_as, shown_in};
use skills_install::write::digests_of;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, InstallFlags};
use skills_install::lock::InstallLock;
use skills_install::write::backup_path;

use crate::commands::lock_read::{installed_digests, read_lock};

pub fn remove(names: &[String], only: &[String], flags: InstallFlags) -> anyhow::Result<ExitCode> {
    let root = crate::commands::add::install_root(flags.global)?;
    let canonical = agents::canonical_dir(&root);
    if !only.is_empty() {
        return unlink(&root, &canonical, names, only, flags);
    }
    let lockfile = crate::commands::add::lockfile_of(&root, flags.global);
    let _guard = (!flags.dry_run)
        .then(|| InstallLock::take(&canonical, crate::commands::add::say_waiting))
        .transpose()?;
    let mut lock = read_lock(&lockfile)?.unwrap_or_default();
    let mut code = EXIT_OK;
    for name in names {
        let dir = canonical.join(name);
        let now = digests_of(&dir)?;
        let pinned = installed_digests(&lock, name);
        if now.is_none() && pinned.is_none() {
            say_err!("error: {name} is not installed in {}", canonical.display());
            code = EXIT_SOURCE_ERROR;
            continue;
        }
        let edited = now.is_some() && now != pinned;
        if edited && !flags.force {
            say_err!("keep {name}: edited here (or not installed by skills); --force removes it and keeps a backup");
            code = EXIT_SOURCE_ERROR;
            continue;
        }
        let links = shown_in(&root, flags.global, &canonical, name, now.as_ref());
        say!(
            "remove {name}{}",
            if links.is_empty() {
                String::new()
            } else {
                format!(" and its links in {}", shown(&links))
            }
        );
        if flags.dry_run {
            continue;
        }
        for (dir, how) in &links {
            take_out(&dir.join(name), *how)?;
        }
        if now.is_some() {
            if edited {
                let backup = backup_path(&canonical, name);
                if let Some(parent) = backup.parent() {
                    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
                }
                std::fs::rename(&dir, &backup).with_context(|| format!("cannot move {}", dir.display()))?;
                say!("{name}: your edited version is kept at {}", backup.display());
            } else {
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
            }
        }
        lock.skills.remove(name);
    }
    if flags.dry_run {
        say!("dry run: nothing removed");
    } else {
        skills_install::write::write_file(&lockfile, lock.to_toml().as_bytes())?;
    }
    Ok(ExitCode::from(code))
}

fn shown(dirs: &[(PathBuf, Shown)]) -> String {
    dirs.iter()
        .map(|(dir, _)| dir.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Takes our link, or our copy, out of an agent's folder.
fn take_out(entry: &Path, how: Shown) -> anyhow::Result<()> {
    let removed = match how {
        Shown::Link => std::fs::remove_file(entry),
        Shown::Copy => std::fs::remove_dir_all(entry),
    };
    removed.with_context(|| format!("cannot remove {}", entry.display()))
}

/// `remove --agent`: the skills' links (or our copies) taken out of those agents'
/// folders only; the skills stay installed and pinned.
fn unlink(
    root: &Path,
    canonical: &Path,
    names: &[String],
    only: &[String],
    flags: InstallFlags,
) -> anyhow::Result<ExitCode> {
    let chosen = only
        .iter()
        .map(|name| agents::find(name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut code = EXIT_OK;
    for name in names {
        let installed = digests_of(&canonical.join(name))?;
        for agent in &chosen {
            let dir = agent.dir(root, flags.global);
            let entry = dir.join(name);
            if agent.reads_canonical(flags.global) {
                say_err!(
                    "{}: reads {} itself; `skills remove {name}` removes the skill",
                    agent.name,
                    canonical.display()
                );
                code = EXIT_SOURCE_ERROR;
                continue;
            }
            let Some(how) = shown_as(&dir, canonical, name, installed.as_ref()) else {
                say_err!("{}: no {name} of ours in {}", agent.name, dir.display());
                code = EXIT_SOURCE_ERROR;
                continue;
            };
            say!("remove {name} from {}", dir.display());
            if !flags.dry_run {
                take_out(&entry, how)?;
            }
        }
    }
    Ok(ExitCode::from(code))
}

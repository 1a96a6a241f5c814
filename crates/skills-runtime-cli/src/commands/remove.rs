//! `skills remove NAME...`: installed skills out of `.agents/skills`, out of every
//! agent folder that links to them (or holds our copy), and out of `skills.lock`. A
//! skill edited here is kept unless `--force`, which keeps the edited version as a
//! backup.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use skills_install::agents::{self, AGENTS};
use skills_install::link::is_our_link;
use skills_install::write::digests_of;

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, InstallFlags};
use skills_install::write::{InstallLock, backup_path};

use crate::commands::add::{installed_digests, read_lock, write_atomically};

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
        let links = agent_entries(&root, flags.global, &canonical, name, now.as_ref());
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
        for link in &links {
            let removed = if link.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
                std::fs::remove_file(link)
            } else {
                std::fs::remove_dir_all(link)
            };
            removed.with_context(|| format!("cannot remove {}", link.display()))?;
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
        write_atomically(&lockfile, &lock.to_toml())?;
    }
    Ok(ExitCode::from(code))
}

/// The entries in agents' folders under `root` that show the installed `name`: our
/// links to it, and copies of it (files as `installed`).
fn agent_entries(
    root: &Path,
    global: bool,
    canonical: &Path,
    name: &str,
    installed: Option<&std::collections::BTreeMap<String, String>>,
) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = AGENTS
        .iter()
        .map(|agent| agent.dir(root, global))
        .filter(|dir| dir != canonical)
        .filter(|dir| {
            is_our_link(dir, canonical, name)
                || (installed.is_some() && digests_of(&dir.join(name)).ok().flatten().as_ref() == installed)
        })
        .map(|dir| dir.join(name))
        .collect();
    found.sort();
    found.dedup();
    found
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .filter_map(|p| p.parent().map(|d| d.display().to_string()))
        .collect::<Vec<_>>()
        .join(", ")
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
            let ours_copy =
                installed.is_some() && digests_of(&entry)? == installed && !is_our_link(&dir, canonical, name);
            if !is_our_link(&dir, canonical, name) && !ours_copy {
                say_err!("{}: no {name} of ours in {}", agent.name, dir.display());
                code = EXIT_SOURCE_ERROR;
                continue;
            }
            say!("remove {name} from {}", dir.display());
            if flags.dry_run {
                continue;
            }
            if ours_copy {
                std::fs::remove_dir_all(&entry).with_context(|| format!("cannot remove {}", entry.display()))?;
            } else {
                std::fs::remove_file(&entry).with_context(|| format!("cannot remove {}", entry.display()))?;
            }
        }
    }
    Ok(ExitCode::from(code))
}

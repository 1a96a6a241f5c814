//! `skills list --installed`: the skills `skills.lock` says were installed into the
//! project (or with `--global` the home directory), where each is visible (the agents'
//! folders that link to it or hold its copy), and its state: up to date, outdated (its
//! source has other files now), modified here, missing, or gone from its source.

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use serde::Serialize;
use skills_install::agents;
use skills_install::link::shown_in;
use skills_install::write::digests_of;

use crate::cli::{EXIT_OK, SourceArgs};
use crate::commands::add::install_root;
use crate::commands::lock_read::{installed_digests, read_lock};
use crate::commands::outdated::{compare, upstream};

#[derive(Serialize)]
struct InstalledJson {
    name: String,
    /// `up-to-date`, `outdated`, `modified`, `missing`, `gone`, or `unchecked` (the
    /// source could not be read).
    state: &'static str,
    source: String,
    path: String,
    /// The agents' folders it is visible in besides the canonical one.
    linked: Vec<String>,
}

pub async fn list_installed(global: bool, args: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let root = install_root(global)?;
    let lockfile = crate::commands::add::lockfile_of(&root, global);
    let Some(lock) = read_lock(&lockfile)? else {
        bail!(
            "nothing is installed here: {} does not exist (`skills add SOURCE` installs)",
            lockfile.display()
        );
    };
    let canonical = agents::canonical_dir(&root);
    // The sources, asked once for every pinned skill; a source that cannot be read
    // leaves its skills unchecked, not the listing unmade.
    let upstream = match upstream(&lock, &lockfile, args, true).await {
        Ok((now, problems)) => {
            for problem in &problems {
                show_err!("warning: {problem}");
            }
            Some(compare(&lock, &now))
        }
        Err(error) => {
            show_err!("warning: the sources were not checked: {error:#}");
            None
        }
    };
    let mut rows = Vec::new();
    for (name, skill) in &lock.skills {
        let here = digests_of(&canonical.join(name))?;
        let state = match (&here, &upstream) {
            (None, _) => "missing",
            (Some(here), _) if Some(here) != installed_digests(&lock, name).as_ref() => "modified",
            (_, None) => "unchecked",
            (_, Some(report)) => report
                .iter()
                .find(|entry| &entry.name == name)
                .map_or("up-to-date", |entry| entry.state),
        };
        rows.push(InstalledJson {
            name: name.clone(),
            state,
            source: skill.source.clone(),
            path: canonical.join(name).display().to_string(),
            linked: shown_in(&root, global, &canonical, name, here.as_ref())
                .into_iter()
                .map(|(dir, _)| dir.strip_prefix(&root).unwrap_or(&dir).display().to_string())
                .collect(),
        });
    }
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(ExitCode::from(EXIT_OK));
    }
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    writeln!(out, "{:width$}  {:10}  {:12}  LINKED IN", "NAME", "STATE", "SOURCE")?;
    for row in &rows {
        let linked = if row.linked.is_empty() {
            "-".to_owned()
        } else {
            row.linked.join(", ")
        };
        writeln!(
            out,
            "{:width$}  {:10}  {:12}  {linked}",
            row.name, row.state, row.source
        )?;
    }
    writeln!(out, "{} skills in {}", rows.len(), canonical.display())?;
    Ok(ExitCode::from(EXIT_OK))
}

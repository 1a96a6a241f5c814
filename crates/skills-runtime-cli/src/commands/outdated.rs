//! `skills outdated`: each skill `skills.lock` pins against its source now: the sources
//! the lock names are read again (git at its ref's head), and a skill is outdated when
//! its files' digests differ from the pinned ones (not merely because its source moved).

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde::Serialize;
use skills_install::plan::Changes;
use skills_runtime::lock::{Drift, Lock};

use crate::cli::{EXIT_OK, SourceArgs};
use crate::library::{self, Need, lock_settings};

/// Exit code when a skill is outdated or gone.
const EXIT_OUTDATED: u8 = 1;

#[derive(Serialize)]
pub(crate) struct OutdatedJson {
    pub name: String,
    pub state: &'static str,
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

pub async fn outdated(args: &SourceArgs, json: bool) -> anyhow::Result<ExitCode> {
    let settings = lock_settings(args)?;
    let lock = settings.read()?;
    let (now, problems) = upstream(&lock, &settings.path, args, json).await?;
    for problem in &problems {
        show_err!("warning: {problem}");
    }
    let report = compare(&lock, &now);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if report.is_empty() {
        show!("{} skills up to date ({})", lock.skills.len(), settings.path.display());
    } else {
        for entry in &report {
            let changes = Changes {
                added: entry.added.clone(),
                changed: entry.changed.clone(),
                removed: entry.removed.clone(),
            };
            match entry.state {
                "gone" => show!("{}: gone from its source", entry.name),
                _ => show!("{}: outdated: {changes}", entry.name),
            }
        }
    }
    Ok(ExitCode::from(if report.is_empty() { EXIT_OK } else { EXIT_OUTDATED }))
}

/// What the sources `lock` names (read again, git at its ref's head) have now of the
/// skills it pins, and what could not be read.
pub(crate) async fn upstream(
    lock: &Lock,
    lockfile: &std::path::Path,
    args: &SourceArgs,
    quiet: bool,
) -> anyhow::Result<(Lock, Vec<String>)> {
    let Some(specs) = library::specs_of_lock(lock, lockfile) else {
        anyhow::bail!(
            "{} does not say where its sources are (it predates source specs): run `skills lock` again",
            lockfile.display()
        );
    };
    let mut unfrozen = args.clone();
    unfrozen.lock.frozen = false;
    let library = library::catalog_of(&specs, &unfrozen, Need::Listing, quiet).await?;
    // Only the pinned skills are read, not the rest of their sources.
    let names: Vec<String> = lock.skills.keys().cloned().collect();
    let (now, problems) = library.catalog.pin_only(&names).await;
    Ok((now, problems.iter().map(ToString::to_string).collect()))
}

/// Each pinned skill whose files now differ (or whose source does), or that is gone,
/// by name: the lock's own drift of `now`, by skill.
pub(crate) fn compare(lock: &Lock, now: &Lock) -> Vec<OutdatedJson> {
    let mut report: BTreeMap<String, OutdatedJson> = BTreeMap::new();
    for drift in lock.drift(now) {
        let (skill, state) = match &drift {
            Drift::Gone { skill } => (skill, "gone"),
            Drift::Changed { skill, .. }
            | Drift::Added { skill, .. }
            | Drift::Removed { skill, .. }
            | Drift::Moved { skill, .. } => (skill, "outdated"),
            // `now` pins only the skills `lock` does.
            _ => continue,
        };
        let entry = report.entry(skill.clone()).or_insert_with(|| OutdatedJson {
            name: skill.clone(),
            state,
            added: Vec::new(),
            changed: Vec::new(),
            removed: Vec::new(),
        });
        match drift {
            Drift::Added { file, .. } => entry.added.push(file),
            Drift::Changed { file, .. } => entry.changed.push(file),
            Drift::Removed { file, .. } => entry.removed.push(file),
            _ => {}
        }
    }
    report.into_values().collect()
}

//! `skills update [NAME]...`: the installed skills that `skills.lock` pins, read again
//! from the sources the lock names and installed as `skills add` installs them: the
//! plan printed (files added, changed, removed), a skill edited here kept unless
//! `--force`, the new versions pinned.

use std::process::ExitCode;

use anyhow::bail;

use crate::cli::{EXIT_OK, InstallFlags, SourceArgs};
use crate::commands::add::{self, AddRequest, install_root};
use crate::commands::lock_keys::label_in_lock;
use crate::commands::lock_read::read_trusted_lock;
use crate::library;
use skills_runtime::sources::{CONFIG_FILE, SourcesConfig};

pub async fn update(names: &[String], flags: InstallFlags, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let root = install_root(flags.global)?;
    let lockfile = crate::commands::add::lockfile_of(&root, flags.global);
    let Some(lock) = read_trusted_lock(&lockfile, args.lock.trusted_key.as_deref())? else {
        bail!(
            "nothing is installed here: {} does not exist (`skills add SOURCE` installs)",
            lockfile.display()
        );
    };
    let unknown: Vec<&str> = names
        .iter()
        .filter(|n| !lock.skills.contains_key(*n))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let installed: Vec<&str> = lock.skills.keys().map(String::as_str).collect();
        bail!(
            "not installed: {}; installed: {}",
            unknown.join(", "),
            installed.join(", ")
        );
    }
    let Some(specs) = library::specs_of_lock(&lock, &lockfile) else {
        bail!(
            "{} does not say where its sources are: add the skills again",
            lockfile.display()
        );
    };
    // The agents and the copy mode each source was installed with, as `skills add`
    // recorded them (a global install records nothing: the agents found are linked).
    let installs = if flags.global {
        Vec::new()
    } else {
        SourcesConfig::load(&root.join(CONFIG_FILE)).map_or_else(|_| Vec::new(), |c| c.install)
    };
    let mut code = ExitCode::from(EXIT_OK);
    for spec in specs {
        let label = spec.label.clone().unwrap_or_default();
        let recorded = installs
            .iter()
            .find(|i| label_in_lock(&lockfile, &lock, &i.source).as_deref() == Some(label.as_str()));
        let skills: Vec<String> = lock
            .skills
            .iter()
            .filter(|(name, skill)| skill.source == label && (names.is_empty() || names.contains(name)))
            .map(|(name, _)| name.clone())
            .collect();
        if skills.is_empty() {
            continue;
        }
        say!("from {label} ({}):", spec.location);
        let mut source_args = args.clone();
        source_args.discovery.depth = spec.depth;
        let source = format!("{label}={}", spec.location);
        let add = AddRequest {
            source: &source,
            skills: &skills,
            agents: recorded.map_or(&[][..], |i| &i.agents[..]),
            copy: recorded.is_some_and(|i| i.copy),
            flags,
            record: false,
            view: None,
            // A skill the source no longer has stays installed, said; the others are
            // updated.
            keep_gone: Some(&spec.location),
            depth: None,
        };
        let done = add::add(&add, &source_args).await?;
        if done != ExitCode::from(EXIT_OK) {
            code = done;
        }
    }
    Ok(code)
}

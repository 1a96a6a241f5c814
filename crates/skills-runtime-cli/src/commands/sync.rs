//! `skills sync`: the project's agent folders made to match its `skills.toml`
//! (`[[install]]`, what `skills add` records) and `skills.lock`. Idempotent: a second
//! run changes nothing and says so. `--frozen` installs exactly what the lock pins (git
//! at the locked commit) and fails when a source no longer has it.

use std::process::ExitCode;

use anyhow::{Context, bail};
use skills_runtime::sources::{CONFIG_FILE, SourcesConfig};

use crate::cli::{EXIT_OK, InstallFlags, SourceArgs};
use crate::commands::add::{self, AddRequest, install_root};

pub async fn sync(frozen: bool, watch: bool, dry_run: bool, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let root = install_root(false)?;
    let path = root.join(CONFIG_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "nothing to sync: cannot read {} (`skills add SOURCE` writes it)",
            path.display()
        )
    })?;
    let config = SourcesConfig::parse(&text).with_context(|| format!("in {}", path.display()))?;
    if config.install.is_empty() {
        bail!(
            "nothing to sync: {} has no [[install]] (`skills add SOURCE` records one)",
            path.display()
        );
    }
    if watch {
        let mut args = args.clone();
        args.lock.lockfile = Some(root.join(skills_runtime::lock::LOCK_FILE));
        return crate::commands::sync_watch::watch(&config.install, dry_run, &args).await;
    }
    let mut code = ExitCode::from(EXIT_OK);
    for spec in &config.install {
        println!("from {}:", spec.source);
        let mut source_args = args.clone();
        // Frozen: the catalog serves only what the lock pins, git at the locked commit.
        source_args.lock.frozen = frozen;
        source_args.lock.lockfile = Some(root.join(skills_runtime::lock::LOCK_FILE));
        let request = AddRequest {
            source: &spec.source,
            skills: &spec.skills,
            agents: &spec.agents,
            copy: spec.copy,
            flags: InstallFlags {
                dry_run,
                ..InstallFlags::default()
            },
            record: false,
        };
        let done = add::add(&request, &source_args)
            .await
            .with_context(|| format!("syncing {}", spec.source))?;
        if done != ExitCode::from(EXIT_OK) {
            code = done;
        }
    }
    Ok(code)
}

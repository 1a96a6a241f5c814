//! `skills sync`: the project's agent folders made to match its `skills.toml`
//! (`[[install]]`, what `skills add` records) and `skills.lock`. Idempotent: a second
//! run changes nothing and says so. `--frozen` installs exactly what the lock pins (git
//! at the locked commit) and fails when a source no longer has it.

use std::process::ExitCode;

use anyhow::{Context, bail};
use std::path::Path;

use skills_runtime::sources::{CONFIG_FILE, InstallSpec, SourcesConfig};

use crate::commands::npm_lock::{NPM_LOCK_FILE, specs_from_npm_lock};

use crate::cli::{EXIT_OK, InstallFlags, SourceArgs};
use crate::commands::add::{self, AddRequest, install_root};

pub async fn sync(options: SyncOptions, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let SyncOptions {
        frozen,
        watch,
        dry_run,
        from_npm_lock,
    } = options;
    let root = install_root(false)?;
    let specs = if from_npm_lock {
        import_npm_lock(&root, dry_run)?
    } else {
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
        config.install
    };
    if watch {
        let mut args = args.clone();
        args.lock.lockfile = Some(root.join(skills_runtime::lock::LOCK_FILE));
        return crate::commands::sync_watch::watch(&specs, dry_run, &args).await;
    }
    let mut code = ExitCode::from(EXIT_OK);
    for spec in &specs {
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

/// What `skills sync` was asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncOptions {
    pub frozen: bool,
    pub watch: bool,
    pub dry_run: bool,
    pub from_npm_lock: bool,
}

/// The `[[install]]` tables the npm installer's `skills-lock.json` stands for, recorded
/// in `skills.toml` (unless a dry run); what cannot be taken over is said.
fn import_npm_lock(root: &Path, dry_run: bool) -> anyhow::Result<Vec<InstallSpec>> {
    let path = root.join(NPM_LOCK_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (specs, left) = specs_from_npm_lock(&text, root).with_context(|| format!("in {}", path.display()))?;
    for line in &left {
        eprintln!("warning: {NPM_LOCK_FILE}: {line}; not taken over");
    }
    if specs.is_empty() {
        bail!("{} has no skill this can install", path.display());
    }
    let count: usize = specs.iter().map(|s| s.skills.len()).sum();
    println!("{NPM_LOCK_FILE}: {count} skills from {} sources", specs.len());
    if !dry_run {
        for spec in &specs {
            add::record(root, spec.clone())?;
        }
        println!("recorded in {}", root.join(CONFIG_FILE).display());
    }
    Ok(specs)
}

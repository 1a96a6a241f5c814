//! `skills sync`: the project's agent folders made to match its `skills.toml`
//! (`[[install]]`, what `skills add` records) and `skills.lock`. Idempotent: a second
//! run changes nothing and says so, reading only the project. A skill missing here (a
//! fresh clone) is installed at the version the lock pins (git at the locked commit);
//! when its source no longer has that version, `--frozen` fails and a plain sync
//! installs the current one and says so. Moving to new versions is `skills update`'s
//! work (`skills outdated` says which), or `--watch`'s.

use std::process::ExitCode;

use anyhow::{Context, bail};
use std::path::Path;

use skills_runtime::sources::{CONFIG_FILE, InstallSpec, SourcesConfig};

use crate::commands::npm_lock::{NPM_LOCK_FILE, specs_from_npm_lock};

use crate::cli::{EXIT_OK, SourceArgs};
use crate::commands::add::{self, AddRequest, install_root};
use crate::commands::install_table;
use crate::commands::lock_keys::label_in_lock;
use crate::commands::lock_read::{installed_digests, read_trusted_lock};
use skills_install::agents::{self, Agent};
use skills_install::link::shown;
use skills_install::write::digests_of;
use skills_runtime::lock::Lock;

pub async fn sync(options: SyncOptions, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let SyncOptions {
        frozen,
        watch,
        dry_run,
        from_npm_lock,
        view,
    } = options;
    let root = install_root(false)?;
    let mut chosen_view = None;
    if view.is_some() && (watch || from_npm_lock) {
        bail!(
            "--view installs a view of skills.toml's [[install]] once; it does not go with --watch or --from-npm-lock"
        );
    }
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
        if let Some(name) = &view {
            let found = config
                .view(name)
                .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message))?;
            chosen_view = Some(std::sync::Arc::new(found));
        }
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
    let lockfile = root.join(skills_runtime::lock::LOCK_FILE);
    let lock = read_trusted_lock(&lockfile, args.lock.trusted_key.as_deref())?;
    let mut code = ExitCode::from(EXIT_OK);
    for spec in &specs {
        say!("from {}:", spec.source);
        // What is installed as the lock pins it needs no source: a sync with nothing to
        // do reads only the project.
        let in_place = lock.as_ref().and_then(|lock| in_place(&root, &lockfile, lock, spec));
        if let Some(count) = in_place.filter(|_| chosen_view.is_none()) {
            say!("nothing to change: {count} skills up to date");
            continue;
        }
        let mut source_args = args.clone();
        // The catalog serves what the lock pins (git at the locked commit); a source
        // that no longer has it fails a frozen sync, and otherwise gives its current
        // version, said.
        source_args.lock.frozen = lock.is_some();
        source_args.lock.lockfile = Some(lockfile.clone());
        let mut request = AddRequest::of_install(spec, &spec.skills, dry_run);
        request.view = chosen_view.clone();
        let done = match add::add(&request, &source_args).await {
            Err(error) if !frozen && source_args.lock.frozen && is_not_pinned(&error) => {
                say_err!("warning: {error:#}; installing its current version");
                source_args.lock.frozen = false;
                add::add(&request, &source_args).await
            }
            done => done,
        }
        .with_context(|| format!("syncing {}", spec.source))?;
        if done != ExitCode::from(EXIT_OK) {
            code = done;
        }
    }
    Ok(code)
}

/// What `skills sync` was asked.
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    pub frozen: bool,
    pub watch: bool,
    pub dry_run: bool,
    pub from_npm_lock: bool,
    /// Install only the skills of this view of skills.toml.
    pub view: Option<String>,
}

/// The `[[install]]` tables the npm installer's `skills-lock.json` stands for, recorded
/// in `skills.toml` (unless a dry run); what cannot be taken over is said.
fn import_npm_lock(root: &Path, dry_run: bool) -> anyhow::Result<Vec<InstallSpec>> {
    let path = root.join(NPM_LOCK_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (specs, left) = specs_from_npm_lock(&text, root).with_context(|| format!("in {}", path.display()))?;
    for line in &left {
        say_err!("warning: {NPM_LOCK_FILE}: {line}; not taken over");
    }
    if specs.is_empty() {
        bail!("{} has no skill this can install", path.display());
    }
    let count: usize = specs.iter().map(|s| s.skills.len()).sum();
    say!("{NPM_LOCK_FILE}: {count} skills from {} sources", specs.len());
    if !dry_run {
        for spec in &specs {
            install_table::record(root, spec.clone())?;
        }
        say!("recorded in {}", root.join(CONFIG_FILE).display());
    }
    Ok(specs)
}

/// Whether `error` is a frozen catalog's answer that the source no longer has what the
/// lock pins.
fn is_not_pinned(error: &anyhow::Error) -> bool {
    format!("{error:#}").contains("no longer has the pinned version")
}

/// The number of skills of `spec` that are installed exactly as `lock` pins them and
/// visible in each agent's folder, when all are; `None` when anything is to do (a skill
/// missing, edited, not yet pinned, a link missing) or the lock does not know the
/// source.
fn in_place(root: &Path, lockfile: &Path, lock: &Lock, spec: &InstallSpec) -> Option<usize> {
    let label = label_in_lock(lockfile, lock, &spec.source)?;
    let names: Vec<&String> = if spec.skills.is_empty() {
        lock.skills
            .iter()
            .filter(|(_, s)| s.source == label)
            .map(|(n, _)| n)
            .collect()
    } else {
        spec.skills.iter().collect()
    };
    if names.is_empty() {
        return None;
    }
    let canonical = agents::canonical_dir(root);
    let chosen: Vec<&Agent> = if spec.agents.is_empty() {
        agents::detect(root, false)
    } else {
        spec.agents
            .iter()
            .map(|a| agents::find(a).ok())
            .collect::<Option<_>>()?
    };
    // Each skill's files are read and hashed: spread over the cores.
    let check = |name: &String| -> Option<()> {
        lock.skills
            .get(name)
            .filter(|s| s.source == label && !s.files.is_empty())?;
        let here = digests_of(&canonical.join(name)).ok()??;
        if Some(&here) != installed_digests(lock, name).as_ref() {
            return None;
        }
        chosen
            .iter()
            .filter(|a| !a.reads_canonical(false))
            .all(|agent| shown(&agent.dir(root, false), &canonical, name, Some(&here)).is_some())
            .then_some(())
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let chunk = names.len().div_ceil(threads);
    let all = std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().all(|name| check(name).is_some())))
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    });
    if !all {
        return None;
    }
    Some(names.len())
}

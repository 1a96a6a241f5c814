//! `skills sync --watch`: after the first sync, every `[[install]]` source is watched
//! (the file system's events, S3's and HTTP's polls, git's fetches), and each change is
//! installed as `skills update` installs it: only the skills whose files now differ
//! from what the lock pins, a skill edited here kept, the new versions pinned.
//!
//! The watch is the backend's own, not the catalog's: a catalog reports changes of
//! metadata, while an installed copy must follow every file (a script fixed upstream).

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use skills_runtime::lock::Lock;
use skills_runtime::sources::InstallSpec;
use skills_runtime::{ChangeEvent, SkillCatalog, WatchGuard};
use tokio::sync::mpsc;

use crate::cli::{EXIT_OK, SourceArgs};
use crate::commands::add::{self, AddRequest, install_root};
use crate::commands::lock_read::{installed_digests, read_lock};
use crate::library::Need;

/// One watched `[[install]]`: its source read live, and the guards of its watches.
struct Watched<'a> {
    spec: &'a InstallSpec,
    source: String,
    catalog: Arc<SkillCatalog>,
    _guards: Vec<WatchGuard>,
}

pub async fn watch(specs: &[InstallSpec], dry_run: bool, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let (tx, mut rx) = mpsc::unbounded_channel::<usize>();
    let mut watched = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        say!("from {}:", spec.source);
        let source = add::resolve_source(&spec.source);
        let lockfile = install_root(false)?.join(skills_runtime::lock::LOCK_FILE);
        let lock = read_lock(&lockfile).ok().flatten();
        let locked = crate::commands::lock_keys::locked_as(&source, &lockfile, lock.as_ref());
        let library = add::open(&locked, args, Need::Live).await?;
        let catalog = library.catalog.clone();
        let request = AddRequest::of_install(spec, &spec.skills, dry_run);
        add::install(&request, &source, &catalog, false)
            .await
            .with_context(|| format!("syncing {}", spec.source))?;
        let mut guards = Vec::new();
        for s in catalog.sources() {
            let Some(watch) = s.backend().as_watch() else {
                say_err!("warning: {} cannot be watched: it is synced only now", spec.source);
                continue;
            };
            let tx = tx.clone();
            let sink = Arc::new(move |_event: ChangeEvent| {
                let _ = tx.send(i);
            });
            guards.push(
                watch
                    .watch(s.path(), sink)
                    .with_context(|| format!("cannot watch {}", spec.source))?,
            );
        }
        watched.push(Watched {
            spec,
            source,
            catalog,
            _guards: guards,
        });
    }
    drop(tx);
    say_err!(
        "watching {} sources; every change is installed as it comes (Ctrl-C stops)",
        watched.len()
    );
    while let Some(first) = rx.recv().await {
        // A burst of events (a checkout, a sync of a bucket) is one pass per source.
        let mut changed = BTreeSet::from([first]);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        while let Ok(next) = rx.try_recv() {
            changed.insert(next);
        }
        for i in changed {
            if let Err(error) = follow(&watched[i], dry_run).await {
                // A source that fails now is tried again at its next change.
                say_err!("error: {}: {error:#}", watched[i].spec.source);
            }
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// One pass over a changed source: the catalog read again, and the skills of the
/// `[[install]]` whose files differ from the lock installed.
async fn follow(watched: &Watched<'_>, dry_run: bool) -> anyhow::Result<()> {
    let catalog = &watched.catalog;
    catalog.reload().await;
    let lockfile = install_root(false)?.join(skills_runtime::lock::LOCK_FILE);
    let lock = read_lock(&lockfile)?.unwrap_or_default();
    let snapshot = catalog.snapshot();
    // The source's entry in the lock, found by where it is (two sources may carry one
    // label, and the lock then keeps the second under another).
    let label = crate::commands::lock_keys::label_in_lock(&lockfile, &lock, &watched.spec.source)
        .or_else(|| catalog.sources().first().map(|s| s.label().to_owned()))
        .unwrap_or_default();
    // The skills this `[[install]]` covers: those named, or every one of the source
    // (new ones included) and every one installed from it.
    let mut names: BTreeSet<String> = watched.spec.skills.iter().cloned().collect();
    if names.is_empty() {
        names.extend(snapshot.skills().iter().map(|s| s.name.clone()));
        names.extend(
            lock.skills
                .iter()
                .filter(|(_, s)| s.source == label)
                .map(|(n, _)| n.clone()),
        );
    }
    let names: Vec<String> = names.into_iter().collect();
    let (now, _) = catalog.pin_only(&names).await;
    let mut due = Vec::new();
    for name in &names {
        match now.skills.get(name) {
            None if lock.skills.contains_key(name) => say_err!("{}", add::gone_and_kept(name, &watched.spec.source)),
            None => {}
            Some(_) if differs(&lock, &now, name) => due.push(name.clone()),
            Some(_) => {}
        }
    }
    if due.is_empty() {
        return Ok(());
    }
    let request = AddRequest::of_install(watched.spec, &due, dry_run);
    add::install(&request, &watched.source, catalog, false).await?;
    Ok(())
}

/// Whether `name`'s files in `now` differ from what `lock` pins (or it is not pinned).
fn differs(lock: &Lock, now: &Lock, name: &str) -> bool {
    installed_digests(lock, name) != installed_digests(now, name)
}

//! `skills add SOURCE`: install skills of any source into the project's (or the home
//! directory's) `.agents/skills`, and make them visible in each agent's own folder.
//! The work is the install layer's (`skills_install`); this file reads the source,
//! prints the plan and applies it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use skills_install::agents::{self, Agent};
use skills_install::link::{Linked, link_skill};
use skills_install::lock::InstallLock;
use skills_install::plan::{Action, Step, plan_skill};
use skills_install::write::{SkillFile, backup_path, recover, replace, write_file};
use skills_runtime::sources::{CONFIG_FILE, InstallSpec, expand_git_shorthand};
use skills_runtime::{CatalogSnapshot, DiagnosticKind, Severity, SkillCatalog, SkillMetadata, with_dependencies};

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, InstallFlags, SourceArgs};
use crate::commands::lock_keys::{label_in_lock, lock_key, locked_as};
use crate::commands::lock_read::{installed_digests, read_lock};
use crate::commands::{containers, install_table};
use crate::library::{self, Need};
use crate::output::{about_asked, print_diagnostics, print_diagnostics_where};

/// What `skills add` was asked.
#[derive(Debug)]
pub struct AddRequest<'a> {
    pub source: &'a str,
    pub skills: &'a [String],
    pub agents: &'a [String],
    pub copy: bool,
    pub flags: InstallFlags,
    /// Write the request into ./skills.toml as an `[[install]]` (what `skills sync`
    /// installs), unless one there already covers it.
    pub record: bool,
    /// Install only what this view offers of the source (`skills sync --view`).
    pub view: Option<std::sync::Arc<skills_runtime::SkillView>>,
    /// A skill named or pinned that the source no longer has is said (naming the source
    /// so) and left as it is (`skills update`, `skills sync`), not an error.
    pub keep_gone: Option<&'a str>,
    /// The depth the source is read at (an `[[install]]`'s `depth`), over the flags'.
    pub depth: Option<usize>,
}

impl<'a> AddRequest<'a> {
    /// What installing `skills` of the `[[install]]` `spec` asks (nothing recorded:
    /// the table is there already).
    pub fn of_install(spec: &'a InstallSpec, skills: &'a [String], dry_run: bool) -> Self {
        Self {
            source: &spec.source,
            skills,
            agents: &spec.agents,
            copy: spec.copy,
            flags: InstallFlags {
                dry_run,
                ..InstallFlags::default()
            },
            record: false,
            view: None,
            keep_gone: Some(&spec.source),
            depth: spec.depth,
        }
    }
}

/// The lock of what is installed under `root`: `skills.lock` of the project, or with
/// `global` `~/.agents/skills.lock` (the home directory is no project).
pub fn lockfile_of(root: &Path, global: bool) -> PathBuf {
    if global {
        root.join(".agents").join(skills_runtime::lock::LOCK_FILE)
    } else {
        root.join(skills_runtime::lock::LOCK_FILE)
    }
}

/// Where installed skills go: the current project, or the home directory.
pub fn install_root(global: bool) -> anyhow::Result<PathBuf> {
    if global {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .context("--global installs under the home directory, and HOME is not set")
    } else {
        std::env::current_dir().context("cannot read the current directory")
    }
}

pub async fn add(request: &AddRequest<'_>, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let mut args = std::borrow::Cow::Borrowed(args);
    if let Some(depth) = request.depth {
        args.to_mut().discovery.depth = Some(depth);
    }
    let source = resolve_source(request.source);
    let lockfile = match &args.lock.lockfile {
        Some(lockfile) => lockfile.clone(),
        None => lockfile_of(&install_root(request.flags.global)?, request.flags.global),
    };
    let lock = read_lock(&lockfile).ok().flatten();
    let open_locked = |source: String, depth: Option<usize>| {
        let locked = locked_as(&source, &lockfile, lock.as_ref());
        let mut args = args.clone();
        if let Some(depth) = depth {
            args.to_mut().discovery.depth = Some(depth);
        }
        async move { open(&locked, &args, Need::Listing).await }
    };
    let library = open_locked(source.clone(), None).await?;
    let found = containers::where_skills_are(&source, &library, open_locked).await;
    if found.is_empty() {
        if containers::is_one_skill(&library) {
            // A repository, or a folder of one, that is one skill: read as such.
            say_err!("{} is one skill folder: reading it at depth 0", request.source);
            let mut one = args.clone().into_owned();
            one.discovery.depth = Some(0);
            let locked = locked_as(&source, &lockfile, lock.as_ref());
            let library = open(&locked, &one, Need::Listing).await?;
            return install(request, &source, &library.catalog, args.lock.frozen).await;
        }
        let deeper = named_deeper(request, &source, &library, &args, &open_locked).await;
        let library = deeper.as_ref().unwrap_or(&library);
        return install(request, &source, &library.catalog, args.lock.frozen).await;
    }
    let mut code = ExitCode::from(EXIT_OK);
    for (place, names) in containers::share(request.skills, &found) {
        let (down, at) = place.deeper.map_or_else(Default::default, |depth| {
            (format!(", {depth} levels down"), format!(" at depth {depth}"))
        });
        say_err!(
            "{} keeps its skills in {}/{down}: reading {}{at}",
            request.source,
            place.dir,
            place.source
        );
        let request = AddRequest {
            source: &place.source,
            skills: &names,
            view: request.view.clone(),
            ..*request
        };
        let deeper = named_deeper(&request, &place.source, &place.library, &args, &open_locked).await;
        let library = deeper.as_ref().unwrap_or(&place.library);
        let done = install(&request, &place.source, &library.catalog, args.lock.frozen).await?;
        if done != ExitCode::from(EXIT_OK) {
            code = done;
        }
    }
    Ok(code)
}

/// `library` (the source `source`) read as deep as the skills `request` names and it
/// lacks ([`containers::deeper_for_names`]), said on stderr: for `skills add` without a
/// depth given, not for `sync` and `update`, which read a source as `skills.toml`
/// recorded it (a skill gone from there is said and kept).
async fn named_deeper<F, Fut>(
    request: &AddRequest<'_>,
    source: &str,
    library: &library::Library,
    args: &SourceArgs,
    open: &F,
) -> Option<library::Library>
where
    F: Fn(String, Option<usize>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<library::Library>>,
{
    if request.keep_gone.is_some() || request.depth.is_some() || args.discovery.depth.is_some() {
        return None;
    }
    let (depth, deeper) = containers::deeper_for_names(source, library, request.skills, open).await?;
    say_err!("{source}: a skill asked for is {depth} levels down: reading it at depth {depth}");
    Some(deeper)
}

/// The source `skills add` reads for `text`: `owner/repo[/path][@ref]` (when no folder
/// has that name) stands for a repository on GitHub, and the expansion is said.
pub fn resolve_source(text: &str) -> String {
    match expand_git_shorthand(text) {
        Some(expanded) if !Path::new(text).exists() => {
            say_err!("reading {text} as {expanded}");
            expanded
        }
        _ => text.to_owned(),
    }
}

/// The one source `source`, read as every command reads one (the lock flags of `args`
/// apply; its sources and config do not).
pub async fn open(source: &str, args: &SourceArgs, need: Need) -> anyhow::Result<library::Library> {
    let mut source_args = args.clone();
    source_args.sources = vec![source.to_owned()];
    source_args.config = None;
    library::catalog(&source_args, need, true).await
}

/// Installs what `request` asks of the source `source`, read into `catalog`: the plan
/// printed, then (unless a dry run) written, linked, pinned and recorded.
pub async fn install(
    request: &AddRequest<'_>,
    source: &str,
    catalog: &SkillCatalog,
    frozen: bool,
) -> anyhow::Result<ExitCode> {
    let root = install_root(request.flags.global)?;
    let chosen_agents: Vec<&Agent> = if request.agents.is_empty() {
        agents::detect(&root, request.flags.global)
    } else {
        request
            .agents
            .iter()
            .map(|name| agents::find(name))
            .collect::<Result<_, _>>()?
    };
    let snapshot = catalog.snapshot();
    // What the source could not give (a skill skipped, a source unreadable) is said
    // before the plan: the plan leaves it out.
    let problems: Vec<_> = snapshot
        .diagnostics()
        .iter()
        .filter(|d| {
            d.severity() != Severity::Warning
                || matches!(
                    d.kind,
                    DiagnosticKind::DeeperSkills | DiagnosticKind::SourceIsASkill | DiagnosticKind::HiddenSkills
                )
        })
        // A frozen install says in one line which pinned skills the source no longer
        // has as pinned (below), not one line per skill the frozen catalog withheld.
        .filter(|d| !(frozen && d.kind == DiagnosticKind::LockMismatch))
        .cloned()
        .collect();
    // Installing skills by name, what the rest of the source holds is counted, not listed.
    match request.skills {
        [] => print_diagnostics(&problems),
        asked => print_diagnostics_where(&problems, |d| about_asked(d, asked)),
    }
    let canonical = agents::canonical_dir(&root);
    // One run at a time from the plan to the lock written: a second run plans on what
    // the first wrote. A run killed halfway is finished first.
    let _guard = if request.flags.dry_run {
        None
    } else {
        let guard = InstallLock::take(&canonical, say_waiting)?;
        for name in recover(&canonical)? {
            say_err!("{name}: put back the version an interrupted run had moved aside");
        }
        Some(guard)
    };
    let lockfile = lockfile_of(&root, request.flags.global);
    let lock = read_lock(&lockfile)?;
    // What the lock pins from this source (of the skills asked for) and the source does
    // not serve: with a frozen catalog, not as pinned; else, not at all.
    let label = lock
        .as_ref()
        .and_then(|lock| label_in_lock(&lockfile, lock, source))
        .or_else(|| catalog.sources().first().map(|s| s.label().to_owned()))
        .unwrap_or_default();
    let absent: Vec<&str> = lock
        .iter()
        .flat_map(|lock| lock.skills.iter())
        .filter(|(name, skill)| skill.source == label && (request.skills.is_empty() || request.skills.contains(name)))
        .filter(|(name, _)| snapshot.get(name).is_none())
        .map(|(name, _)| name.as_str())
        .collect();
    if frozen && !absent.is_empty() {
        bail!(
            "frozen: {} no longer has the pinned version of {}",
            request.source,
            absent.join(", ")
        );
    }
    // A pinned skill gone from the source is said, whether it is installed here (it is
    // kept) or not (a fresh clone: it cannot be); a name the lock does not pin is an
    // error (a typo in skills.toml).
    let gone: &[&str] = if request.keep_gone.is_some() { &absent } else { &[] };
    let mut skills = choose(&snapshot, request.skills, gone)?;
    if let Some(shown) = request.keep_gone.filter(|_| !frozen) {
        for &name in gone {
            if canonical.join(name).is_dir() {
                say_err!("{}", gone_and_kept(name, shown));
            } else {
                say_err!("{name}: gone from {shown}; not installed (`skills remove {name}` takes it out of the lock)");
            }
        }
    }
    if let Some(view) = &request.view {
        let filter = skills_runtime::SkillFilter {
            view: Some(view.clone()),
            ..Default::default()
        };
        let offered = skills_runtime::Selection::of(&snapshot, &filter);
        skills.retain(|s| offered.offers(&snapshot, &s.name));
        say!("view {}: {} skills of this source", view.name(), skills.len());
    }

    let mut plan = Vec::new();
    for skill in &skills {
        let files = read_files(catalog, skill).await?;
        let installed = lock.as_ref().and_then(|lock| installed_digests(lock, &skill.name));
        let step = plan_skill(&canonical, &skill.name, &files, installed.as_ref(), request.flags.force)?;
        say!("{}", describe(&step));
        plan.push((step, files, installed));
    }
    let names: Vec<&str> = chosen_agents.iter().map(|a| a.name).collect();
    if names.is_empty() {
        say!(
            "into {} (read by the agents of the Agent Skills convention)",
            canonical.display()
        );
    } else {
        say!("into {}, linked for {}", canonical.display(), names.join(", "));
    }
    if request.flags.dry_run {
        say!("dry run: nothing written");
        return Ok(ExitCode::from(EXIT_OK));
    }
    let mut kept = 0;
    for (step, files, installed) in &plan {
        match step.action {
            Action::KeepLocalEdit => {
                kept += 1;
                continue;
            }
            Action::Unchanged => {}
            Action::Install | Action::Update => {
                replace(&canonical, &step.name, files, None)?;
            }
            Action::ReplaceLocalEdit => {
                let backup = backup_path(&canonical, &step.name);
                replace(&canonical, &step.name, files, Some(&backup))?;
                say!("{}: your edited version is kept at {}", step.name, backup.display());
            }
        }
        // An agent that reads the canonical folder itself needs no link.
        for agent in chosen_agents
            .iter()
            .filter(|a| !a.reads_canonical(request.flags.global))
        {
            let dir = agent.dir(&root, request.flags.global);
            match link_skill(&dir, &canonical, &step.name, files, request.copy, installed.as_ref())? {
                Linked::Occupied(path) => say_err!(
                    "warning: {} is not ours (a folder of {}'s own, or an edited copy): left alone",
                    path.display(),
                    agent.display
                ),
                Linked::Linked(_) | Linked::Copied(_) | Linked::Unchanged(_) => {}
            }
        }
    }
    // What is installed now, pinned with each file's digest (known from the reads above:
    // the rest of the source is not read).
    let names: Vec<String> = plan.iter().map(|(step, ..)| step.name.clone()).collect();
    let (pinned, problems) = catalog.pin_only(&names).await;
    let mut lock = lock.unwrap_or_default();
    // Each source keeps its own entry in the lock, although two may carry one label
    // (`skills`, the last folder of both `anthropics/skills#path=skills` and
    // `obra/superpowers#path=skills`): the second took the first's place, and the first
    // one's skills were then looked for in the second.
    let mut keys: BTreeMap<String, String> = BTreeMap::new();
    for (label, source) in pinned.sources {
        let key = lock_key(&lock, &label, &source);
        lock.sources.insert(key.clone(), source);
        keys.insert(label, key);
    }
    for (step, ..) in plan.iter().filter(|(step, ..)| step.action != Action::KeepLocalEdit) {
        if let Some(skill) = pinned.skills.get(&step.name) {
            let mut skill = skill.clone();
            if let Some(key) = keys.get(&skill.source) {
                skill.source.clone_from(key);
            }
            lock.skills.insert(step.name.clone(), skill);
        }
    }
    write_file(&lockfile, lock.to_toml().as_bytes())?;
    for problem in &problems {
        say_err!("error: {problem}");
    }
    if request.record && !request.flags.global {
        let spec = InstallSpec {
            source: source.to_owned(),
            skills: request.skills.to_vec(),
            agents: request.agents.to_vec(),
            copy: request.copy,
            // A source read deeper than one level, or as one skill folder, is read so
            // again by `skills sync`.
            depth: catalog.sources().first().map(|s| s.depth()).filter(|&depth| depth != 1),
        };
        if install_table::record(&root, spec)? {
            say!("recorded in {}", root.join(CONFIG_FILE).display());
        }
    }
    let installed = plan.len() - kept;
    if plan.iter().all(|(step, ..)| step.action == Action::Unchanged) {
        say!("nothing to change: {installed} skills up to date");
    } else {
        say!(
            "{installed} skills in place, {kept} kept as edited here; {}",
            lockfile.display()
        );
    }
    Ok(ExitCode::from(if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_SOURCE_ERROR
    }))
}

/// The skills named (every one of the source without names) with the skills they depend
/// on, or an error naming the missing ones (but those of `gone`, left out: the caller
/// says so) and what the source has. A dependency the source does not have is said, not
/// an error: it may be installed from elsewhere.
fn choose<'a>(
    snapshot: &'a CatalogSnapshot,
    names: &[String],
    gone: &[&str],
) -> anyhow::Result<Vec<&'a SkillMetadata>> {
    let all = snapshot.skills();
    if names.is_empty() {
        if all.is_empty() {
            bail!("the source has no skills");
        }
        return Ok(all.iter().map(|s| &**s).collect());
    }
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !all.iter().any(|s| &s.name == *n) && !gone.contains(&n.as_str()))
        .map(String::as_str)
        .collect();
    if let Some(first) = missing.first() {
        let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        bail!(
            "the source has no skill {}; it has: {}",
            missing.join(", "),
            skills_runtime::available_names(first, &names)
        );
    }
    let names: Vec<String> = names.iter().filter(|n| !gone.contains(&n.as_str())).cloned().collect();
    let (with, missing) = with_dependencies(snapshot, &names);
    for name in with.iter().filter(|n| !names.contains(n)) {
        say!("{name}: added, a skill asked for depends on it");
    }
    for name in &missing {
        say_err!("warning: {name}: a skill asked for depends on it and the source has no skill of that name");
    }
    Ok(all.iter().filter(|s| with.contains(&s.name)).map(|s| &**s).collect())
}

/// What is said of an installed skill `name` that `source` no longer has.
pub fn gone_and_kept(name: &str, source: &str) -> String {
    format!("{name}: gone from {source}; the installed version is kept (`skills remove {name}` removes it)")
}

/// Every file of `skill`'s folder, read once through its source (the containment,
/// the size limits and the MCP extension's per-skill limits of a manifest applied).
async fn read_files(catalog: &SkillCatalog, skill: &SkillMetadata) -> anyhow::Result<Vec<SkillFile>> {
    let snapshot = catalog.snapshot();
    let (Some(index), Some(source)) = (snapshot.source_of(&skill.name), snapshot.source_for(&skill.name)) else {
        bail!("{}: no source serves it", skill.name);
    };
    let (manifest, bytes) = catalog
        .digests()
        .manifest_with_files(source.backend().as_ref(), index, skill)
        .await
        .map_err(|reason| anyhow::anyhow!("{}: cannot be installed: {reason}", skill.name))?;
    Ok(manifest
        .files
        .into_iter()
        .zip(bytes)
        .map(|(file, bytes)| SkillFile { rel: file.rel, bytes })
        .collect())
}

/// One line of the plan.
fn describe(step: &Step) -> String {
    match step.action {
        Action::Install => format!("install {} ({} files)", step.name, step.changes.added.len()),
        Action::Update => format!("update {}: {}", step.name, step.changes),
        Action::Unchanged => format!("unchanged {}", step.name),
        Action::KeepLocalEdit => format!(
            "keep {}: edited here ({}); --force replaces it and keeps your version as a backup",
            step.name, step.changes
        ),
        Action::ReplaceLocalEdit => format!("replace {} (edited here: {})", step.name, step.changes),
    }
}

/// Said when another run holds the install lock of the folder.
pub fn say_waiting(pid: Option<u32>) {
    let pid = pid.map_or_else(|| "?".to_owned(), |p| p.to_string());
    say_err!("waiting for another skills run (process {pid}) installing here");
}

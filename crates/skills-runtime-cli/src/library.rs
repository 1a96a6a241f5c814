//! The one route from a command's arguments to skills: `--source` values, a
//! `skills.toml` (`--config`, or `./skills.toml`), or the default chain, opened into
//! [`SkillSource`]s (parsing and opening are the library's, `skills_runtime::sources`, so
//! the CLI, the MCP server and Rust code read a library the same way) and loaded into a
//! [`SkillCatalog`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use skills_runtime::lock::Lock;
use skills_runtime::sources::{
    CONFIG_FILE, CacheConfig, OpenOptions, PromptConfig, SearchConfig, ServeConfig, SourceSpec, SourcesConfig,
    ViewConfig,
};
use skills_runtime::{CatalogSnapshot, DiscoveryLimits, PersistentCache, SkillCatalog, SkillSource};

use crate::cli::{DiscoveryArgs, EXIT_OK, EXIT_PARTIAL, SourceArgs};
use crate::progress::Progress;

mod answered;
mod views;

pub use answered::{Opened, catalog_or_answer};
pub use views::{warn_view, write_view_warnings};

/// What a command needs of its catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The skills only, once; a source that cannot be read fails the command (list, lock,
    /// add, outdated, publish).
    Listing,
    /// As [`Need::Listing`], for a search: the kept search index is read while the
    /// library is discovered, not after.
    Search,
    /// As [`Need::Listing`], with every skill's resources (list, info).
    Inventory,
    /// Skills once, as an agent sees them, resources listed for the skills shown in
    /// full or loaded; a source that cannot be read is a diagnostic, as it is for an
    /// agent (prompt, load).
    Agent,
    /// Skills and their resources, kept up to date: incremental reloads, last good
    /// versions (watch).
    Live,
    /// As [`Need::Live`], resources listed when needed (serve: `skills/list` walks each
    /// skill's folder for its manifest anyway).
    Serve,
}

/// A command's catalog, loaded, and whether a limit left skills out of it.
#[derive(Debug)]
pub struct Library {
    /// The catalog.
    pub catalog: Arc<SkillCatalog>,
    /// A limit cut a source (each cut was said on stderr).
    pub cut: bool,
    allow_partial: bool,
    /// The `[prompt]` table of the skills.toml read, if any.
    pub prompt: PromptConfig,
    /// The `[serve]` table of the skills.toml read, if any.
    pub serve: ServeConfig,
    /// The `[views]` of the skills.toml read, if any.
    pub views: std::collections::BTreeMap<String, ViewConfig>,
    /// The question the library was opened to answer ([`catalog_or_answer`]), whole.
    question: Option<String>,
}

/// The lockfile settings of a command: the command line's over skills.toml's `[lock]`.
#[derive(Debug, Clone)]
pub struct LockSettings {
    /// The lockfile.
    pub path: PathBuf,
    /// Serve only what it pins.
    pub frozen: bool,
    /// The public key its signature must verify with.
    pub trusted_key: Option<PathBuf>,
}

impl LockSettings {
    /// Reads the lockfile, checking its signature when a key is trusted.
    pub fn read(&self) -> anyhow::Result<Lock> {
        let text = std::fs::read_to_string(&self.path).with_context(|| {
            format!(
                "cannot read the lockfile {} (`skills lock` writes it)",
                self.path.display()
            )
        })?;
        if let Some(key) = &self.trusted_key {
            crate::signing::check_signature(&self.path, &text, key)?;
        }
        Lock::parse(&text).with_context(|| format!("in {}", self.path.display()))
    }
}

impl Library {
    /// The exit code of a command that would exit with `code`: a cut source turns
    /// success into [`EXIT_PARTIAL`], unless `--allow-partial` was given.
    pub fn exit(&self, code: u8) -> u8 {
        exit_code(code, self.cut, self.allow_partial)
    }

    /// [`exit`](Self::exit), for a command done with its library: the library is left
    /// to the process's end instead of freed (a large catalog with its search index
    /// takes tens of milliseconds to free, at 40,000 skills).
    pub fn finish(self, code: u8) -> u8 {
        let code = self.exit(code);
        std::mem::forget(self);
        code
    }
}

/// `code`, or [`EXIT_PARTIAL`] for a success that a limit cut.
pub fn exit_code(code: u8, cut: bool, allow_partial: bool) -> u8 {
    if code == EXIT_OK && cut && !allow_partial {
        EXIT_PARTIAL
    } else {
        code
    }
}

/// Opens the sources of a command and discovers them into a catalog; `quiet` (JSON
/// output, or a server whose client owns the terminal) means no spinner. Every source a
/// limit cut is said on stderr, in one line naming the flag that raises it.
pub async fn catalog(args: &SourceArgs, need: Need, quiet: bool) -> anyhow::Result<Library> {
    let progress = Progress::start(quiet, "reading skill sources");
    let settings = lock_settings(args)?;
    let lock = settings.frozen.then(|| settings.read()).transpose()?;
    let (sources, settings) = open_pinned(args, lock.as_ref())?;
    load(sources, settings, lock, args, need, progress).await
}

/// The sources a lock was made from, as specs that open them again (folders relative
/// to the lockfile made absolute); `None` when a source of the lock has no spec (a lock
/// written before specs were recorded).
pub fn specs_of_lock(lock: &Lock, lockfile: &Path) -> Option<Vec<SourceSpec>> {
    let base = lockfile
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut sources: Vec<_> = lock.sources.iter().collect();
    sources.sort_by_key(|(_, source)| source.priority);
    sources
        .into_iter()
        .map(|(label, source)| {
            let spec = source.spec.as_ref()?;
            let location = if skills_runtime::sources::is_path(spec) {
                base.join(spec).to_str()?.to_owned()
            } else {
                spec.clone()
            };
            Some(SourceSpec {
                label: Some(label.clone()),
                location,
                depth: Some(source.depth),
                ..SourceSpec::default()
            })
        })
        .collect()
}

/// A catalog of `specs` (in priority order), with the limits and options of `args`'
/// flags: what `verify` reads when the lock names its sources.
pub async fn catalog_of(specs: &[SourceSpec], args: &SourceArgs, need: Need, quiet: bool) -> anyhow::Result<Library> {
    let progress = Progress::start(quiet, "reading skill sources");
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let options = args.discovery.options(OpenOptions::new(&cwd));
    let sources = specs
        .iter()
        .map(|spec| spec.open(&options))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = Settings {
        limits: args.discovery.apply(DiscoveryLimits::default()),
        prompt: PromptConfig::default(),
        search: SearchConfig::default(),
        serve: ServeConfig::default(),
        cache: CacheConfig::default(),
        views: Default::default(),
    };
    load(sources, settings, None, args, need, progress).await
}

/// Discovers `sources` into a catalog as [`catalog`] does.
async fn load(
    sources: Vec<SkillSource>,
    settings: Settings,
    lock: Option<Lock>,
    args: &SourceArgs,
    need: Need,
    progress: Progress,
) -> anyhow::Result<Library> {
    let catalog = new_catalog(sources, &settings, lock, args, need);
    let snapshot = catalog.ensure_loaded().await;
    drop(progress);
    library_of(catalog, &snapshot, settings, args, need).await
}

/// The catalog of `sources` with the settings a command's `need` asks for; nothing is
/// discovered yet.
fn new_catalog(
    sources: Vec<SkillSource>,
    settings: &Settings,
    lock: Option<Lock>,
    args: &SourceArgs,
    need: Need,
) -> Arc<SkillCatalog> {
    let mut catalog = SkillCatalog::new(sources)
        .with_limits(settings.limits)
        .with_search_instructions(settings.search.instructions())
        .with_resources(!matches!(need, Need::Listing | Need::Search))
        // A one-shot agent command shows a few skills in full: their resources are
        // listed when needed, not the whole library's.
        .with_lazy_resources(matches!(need, Need::Agent | Need::Serve))
        // A one-shot command holds one copy of the skills, not three.
        .with_incremental_reload(matches!(need, Need::Live | Need::Serve))
        // A search (a server's first one too) should find the kept index ready.
        .with_search_prefetch(matches!(need, Need::Search | Need::Serve));
    // A one-shot command's peak is what counts: what a large start lets go of goes back
    // to the system before more comes. A server's first answers count more; it gives
    // memory back once they are sent.
    if !matches!(need, Need::Serve) {
        catalog = catalog.with_memory_release(crate::heap::trim);
    }
    if let Some(lock) = lock {
        catalog = catalog.with_lock(lock);
    }
    if settings.cache.enabled() && !args.discovery.no_cache {
        if let Some(dir) = PersistentCache::default_dir() {
            catalog = catalog.with_persistent_cache(PersistentCache::new(dir));
        }
    }
    Arc::new(catalog)
}

/// The library of a discovered `catalog`: a source that could not be read fails a
/// command that lists, and each cut a limit made is said on stderr.
async fn library_of(
    catalog: Arc<SkillCatalog>,
    snapshot: &CatalogSnapshot,
    settings: Settings,
    args: &SourceArgs,
    need: Need,
) -> anyhow::Result<Library> {
    if matches!(need, Need::Listing | Need::Search | Need::Inventory) {
        if let Some((i, error)) = catalog.source_errors().await.into_iter().next() {
            let source = &catalog.sources()[i];
            let context = format!("source {} ({})", source.label(), source.location());
            return Err(anyhow::Error::new(error).context(context));
        }
    }
    let mut cut = false;
    for diagnostic in snapshot.diagnostics() {
        if let Some(line) = crate::output::cut_line(diagnostic) {
            show_err!("{line}");
            cut = true;
        }
    }
    Ok(Library {
        catalog,
        cut,
        allow_partial: args.discovery.allow_partial,
        prompt: settings.prompt,
        serve: settings.serve,
        views: settings.views,
        question: None,
    })
}

/// The sources of a command, in priority order: those of `--config FILE` (or of
/// `./skills.toml` when there is one and no `--source` is given), then every `--source`.
/// With neither, the default chain. Limits are the defaults, then the file's
/// `[limits]`, then the command line's. Each git source that `lock` pins is opened at
/// its locked commit.
fn open_pinned(args: &SourceArgs, lock: Option<&Lock>) -> anyhow::Result<(Vec<SkillSource>, Settings)> {
    let pins: std::collections::BTreeMap<String, String> = lock
        .map(|lock| {
            lock.sources
                .iter()
                .filter_map(|(label, s)| Some((label.clone(), s.resolved.strip_prefix("git:")?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let pinned = |mut options: OpenOptions| {
        options.pinned_commits = pins.clone();
        options
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let config = config_file(args);
    let mut opened = Vec::new();
    let mut limits = DiscoveryLimits::default();
    let mut prompt = PromptConfig::default();
    let mut search = SearchConfig::default();
    let mut serve = ServeConfig::default();
    let mut cache = CacheConfig::default();
    let mut views = Default::default();
    let flags = &args.discovery;
    let mut config_sources = false;
    if let Some(path) = &config {
        let file = SourcesConfig::load(path)?;
        config_sources = !file.sources.is_empty();
        // The file's settings, then the command line's over them.
        let options = pinned(flags.options(file.apply(OpenOptions::new(cwd.join(SourcesConfig::base_dir_of(path))))));
        for spec in &file.sources {
            opened.push(spec.open(&options)?);
        }
        limits = file.limits.apply(limits);
        prompt = file.prompt.clone();
        search = file.search.clone();
        serve = file.serve.clone();
        cache = file.cache.clone();
        views = file.views.clone();
    }
    let limits = flags.apply(limits);
    let options = pinned(flags.options(OpenOptions::new(&cwd)));
    for text in &args.sources {
        opened.push(open_with(text, &options)?);
    }
    let settings = Settings {
        limits,
        prompt,
        search,
        serve,
        cache,
        views,
    };
    // A skills.toml that lists no `[[source]]` (only what a project installs, say)
    // leaves the sources to the default chain.
    if !config_sources && args.sources.is_empty() {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let chain = default_chain(&options, home.as_deref());
        show_err!("{}", chain.summary());
        return Ok((chain.sources, settings));
    }
    Ok((opened, settings))
}

/// What a command's `skills.toml` and flags set besides the sources.
struct Settings {
    limits: DiscoveryLimits,
    prompt: PromptConfig,
    search: SearchConfig,
    serve: ServeConfig,
    cache: CacheConfig,
    views: std::collections::BTreeMap<String, ViewConfig>,
}

/// The lockfile settings of a command: `--lockfile`, `--frozen` and `--trusted-key` over
/// the `[lock]` table of the skills.toml read; the lockfile defaults to skills.lock next
/// to that file, else in the current directory.
pub fn lock_settings(args: &SourceArgs) -> anyhow::Result<LockSettings> {
    let (config, base) = match config_file(args) {
        Some(path) => {
            let base = SourcesConfig::base_dir_of(&path);
            (SourcesConfig::load(&path)?.lock, base)
        }
        None => (Default::default(), PathBuf::from(".")),
    };
    let flags = &args.lock;
    Ok(LockSettings {
        path: flags.lockfile.clone().unwrap_or_else(|| config.lock_path(&base)),
        frozen: flags.frozen || config.frozen,
        trusted_key: flags
            .trusted_key
            .clone()
            .or_else(|| config.trusted_key.as_ref().map(|k| base.join(k))),
    })
}

/// The `skills.toml` a command reads: `--config FILE`, or `./skills.toml` when there is
/// one and no `--source` is given.
pub fn config_file(args: &SourceArgs) -> Option<PathBuf> {
    match &args.config {
        Some(path) => Some(path.clone()),
        None if args.sources.is_empty() && Path::new(CONFIG_FILE).is_file() => Some(PathBuf::from(CONFIG_FILE)),
        None => None,
    }
}

/// The limits and open options of a command without sources of its own (`validate`):
/// the defaults, then `./skills.toml`'s `[limits]` and `hard-links` when there is one,
/// then the command line's.
pub fn discovery_of(args: &DiscoveryArgs) -> anyhow::Result<(DiscoveryLimits, OpenOptions)> {
    let config = Path::new(CONFIG_FILE);
    discovery_with(args, config.is_file().then_some(config))
}

/// As [`discovery_of`], with the settings of the skills.toml `config` (relative
/// locations are taken from its folder).
pub fn discovery_with(args: &DiscoveryArgs, config: Option<&Path>) -> anyhow::Result<(DiscoveryLimits, OpenOptions)> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut limits = DiscoveryLimits::default();
    let mut options = OpenOptions::new(&cwd);
    if let Some(path) = config {
        let file = SourcesConfig::load(path)?;
        limits = file.limits.apply(limits);
        options = file.apply(options);
    }
    Ok((args.apply(limits), args.options(options)))
}

/// One source given on the command line (`[LABEL=]LOCATION`) with the given options.
pub fn open_with(text: &str, options: &OpenOptions) -> anyhow::Result<SkillSource> {
    let spec: SourceSpec = text.parse()?;
    Ok(spec.open(options)?)
}

/// The folders read when a command names no source and finds no `skills.toml`, lowest
/// priority first (for one name, the last wins): the user's, then the project's, each
/// with the cross-agent `.agents/skills` over Claude Code's `.claude/skills`. Each is
/// (label, `~` for the home folder or `.` for the current one, the folder below it).
pub const DEFAULT_CHAIN: [(&str, &str, &str); 4] = [
    ("user-claude", "~", ".claude/skills"),
    ("user", "~", ".agents/skills"),
    ("project-claude", ".", ".claude/skills"),
    ("project", ".", ".agents/skills"),
];

/// The default chain as opened: the folders that exist, and how each folder of
/// [`DEFAULT_CHAIN`] is shown (`~/.agents/skills`, `./.claude/skills`) with whether it
/// was read.
#[derive(Debug, Default)]
pub struct DefaultChain {
    /// The folders that exist, opened, lowest priority first.
    pub sources: Vec<SkillSource>,
    /// Every folder of the chain as shown to a person, and whether it was read.
    pub folders: Vec<(String, bool)>,
}

impl DefaultChain {
    /// One line for stderr: which folders were read, or, when none exists, where the
    /// command looked and how to start.
    pub fn summary(&self) -> String {
        let shown = |read: bool| -> Vec<&str> {
            self.folders
                .iter()
                .filter(|(_, r)| *r == read)
                .map(|(f, _)| f.as_str())
                .collect()
        };
        if self.sources.is_empty() {
            format!(
                "no skills: none of {} exists (no --source given, no [[source]] in a skills.toml here); \
                 start one with `skills new my-skill --dir .agents/skills`, or name a folder \
                 with `--source DIR`",
                shown(false).join(", ")
            )
        } else {
            format!(
                "skills from {} (no --source given, no [[source]] in a skills.toml here)",
                shown(true).join(", ")
            )
        }
    }
}

/// Opens the folders of [`DEFAULT_CHAIN`] that exist under `home` and the current
/// folder; a folder reached twice (the current folder is the home folder) is read once.
pub fn default_chain(options: &OpenOptions, home: Option<&Path>) -> DefaultChain {
    let mut chain = DefaultChain::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for (label, base, below) in DEFAULT_CHAIN {
        let shown = format!("{base}/{below}");
        let dir = match base {
            "~" => home.map(|home| home.join(below)),
            _ => Some(options.base_dir.join(below)),
        };
        let real = dir
            .as_deref()
            .and_then(|dir| std::fs::canonicalize(dir).ok())
            .filter(|d| d.is_dir());
        let again = real.as_ref().is_some_and(|real| seen.contains(real));
        let opened = real.as_ref().filter(|_| !again).and_then(|real| {
            let spec = SourceSpec {
                label: Some(label.to_owned()),
                location: real.to_str()?.to_owned(),
                depth: None,
                ..SourceSpec::default()
            };
            spec.open(options).ok()
        });
        if let Some(real) = real {
            seen.push(real);
        }
        chain.folders.push((shown, again || opened.is_some()));
        chain.sources.extend(opened);
    }
    chain
}

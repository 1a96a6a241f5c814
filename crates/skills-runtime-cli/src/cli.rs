//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod budget;

pub use budget::BudgetArgs;

/// Everything went as asked.
pub const EXIT_OK: u8 = 0;
/// `validate` found a skill that would be skipped.
pub const EXIT_VALIDATION: u8 = 1;
/// Bad usage, a source that cannot be read, or an unknown skill.
pub const EXIT_SOURCE_ERROR: u8 = 2;
/// A limit left skills out of a source (without --allow-partial).
pub const EXIT_PARTIAL: u8 = 3;

const AFTER_HELP: &str = "\
Sources, in priority order (for one name, the last source wins):
  PATH | file:///PATH        a local directory of skill folders
  s3://BUCKET[/PREFIX]       an S3 bucket (credentials, region and endpoint from
                             AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
                             AWS_ENDPOINT_URL, ...); watched by polling every 30 s
  git+file:///REPO[#ref=REF&path=DIR]
  git+https://HOST/REPO.git[#...]   a git ref's tree (branch, tag or full commit id;
  git+ssh://... | git+git://...     default HEAD), optionally a sub-directory; remotes
                             are cloned into $SKILLS_GIT_CACHE (default
                             ~/.cache/agent-skills/git); https credentials from
                             SKILLS_GIT_TOKEN or git's credential helper, ssh from
                             the agent or SKILLS_GIT_SSH_KEY; a remote that does not
                             answer for SKILLS_GIT_TIMEOUT seconds (default 30) fails
  https://HOST/.well-known/agent-skills/   a static registry (digests checked)
  mcp+https://HOST/PATH      the skills an MCP server publishes (SEP-2640; digests
                             checked; mcp+http:// on loopback; a bearer token from
                             SKILLS_MCP_TOKEN); a server on stdio is a skills.toml
                             [[source]] with command = \"...\" and args = [...]
  LABEL=SOURCE               the same, shown as LABEL
Watched remote sources (watch, serve, sync --watch) are asked for changes every
SKILLS_POLL_INTERVAL seconds when it is set (default: git 60, S3 and HTTP 30).
A skills.toml lists sources as [[source]] tables (location = \"...\", optional
label = \"...\"), lowest priority first; relative paths are relative to the file.
Without --source or a skills.toml: ~/.claude/skills, ~/.agents/skills, then
./.claude/skills, ./.agents/skills (the folders that exist; stderr says which).

Exit codes:
  0  success
  1  validation problems: a skill would be skipped
  2  usage error, unreadable source, or unknown skill
  3  a limit left skills out of a source (--max-skills, --max-dir-entries, --max-bytes
     or [limits] in skills.toml raise them; --allow-partial accepts what fits)";

/// List, inspect and validate Agent Skills libraries.
#[derive(Debug, Parser)]
#[command(name = "skills", version = env!("SKILLS_LONG_VERSION"), about, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the skills of the sources, merged by name (last source wins).
    List {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        view: ViewArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Count each skill's resources (scripts, references, assets) in a RESOURCES
        /// column and in the JSON. It lists every skill folder, which on a library of
        /// thousands of skills takes as long again as the listing itself.
        #[arg(long)]
        resources: bool,
        /// Resources are not counted unless asked: accepted so that scripts written
        /// when counting was the default keep working.
        #[arg(long, hide = true, conflicts_with = "resources")]
        no_resources: bool,
        /// List the skills installed here by `skills add` (from skills.lock): where each
        /// is linked, and whether it is up to date, outdated, modified here or missing.
        #[arg(long, conflicts_with = "resources")]
        installed: bool,
        /// With --installed: the skills installed under the home directory.
        #[arg(long, requires = "installed")]
        global: bool,
    },
    /// Show one skill: metadata, source, and the files in its folder.
    Info {
        /// The skill's name.
        name: String,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Say which tools the skill needs that an agent with these tools (comma-separated)
        /// lacks.
        #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
        available_tools: Option<Vec<String>>,
    },
    /// Print the skills section of the system prompt exactly as a model gets it.
    Prompt {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        view: ViewArgs,
        /// Render as an agent with only these tools sees it (comma-separated): skills
        /// that need other tools (`required-tools`, `dependencies.tools`) are left out.
        #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
        available_tools: Option<Vec<String>>,
        /// Render as if these skills were loaded (comma-separated names).
        #[arg(long, value_delimiter = ',', value_name = "NAMES")]
        loaded: Vec<String>,
        /// Print JSON (catalog version, loaded skills, section).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        budget: BudgetArgs,
        /// Print what the budget did instead of the section: each skill's form and cost,
        /// and what other budgets would show.
        #[arg(long)]
        report: bool,
    },
    /// Pin the library: write every skill's files with their SHA-256 digests and each
    /// source's version to skills.lock.
    Lock {
        #[command(flatten)]
        sources: SourceArgs,
        /// Re-pin only this skill (repeat for several); the rest of the lock is kept.
        #[arg(long, value_name = "NAME")]
        update: Vec<String>,
        /// Sign the lockfile with this minisign secret key (writes FILE.minisig).
        #[arg(long, value_name = "SECKEY")]
        sign: Option<PathBuf>,
    },
    /// Write the published index of a library (skills-index.json at its root: every
    /// skill, its frontmatter and its files' digests), so that readers poll one object
    /// instead of listing every one. LOCATION is an s3:// prefix, or a local folder (a
    /// git working tree to commit it in, a static host's files). With --well-known,
    /// write a static registry instead: of LOCATION, or without it of the command's
    /// sources (--source, --config, ./skills.toml) merged as every command merges them.
    Publish {
        /// The library: `s3://bucket/prefix` or a folder.
        location: Option<String>,
        /// Instead, write a static registry into DIR: `.well-known/agent-skills/index.json`
        /// and each skill as its SKILL.md or, with resources, a .tar.gz archive.
        #[arg(long, value_name = "DIR")]
        well_known: Option<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
    },
    /// Check the library against its skills.lock: one line per difference, exit 1 when
    /// there is any.
    Verify {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the skills skills.lock pins against their sources now (the sources the lock
    /// names): one line per skill whose files changed or that is gone; exit 1 when any.
    Outdated {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print JSON (name, state, files added, changed and removed).
        #[arg(long)]
        json: bool,
    },
    /// Find skills by what they do: what the search_skills tool answers (best first).
    Search {
        /// What the skill should do, in a few words.
        query: String,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        view: ViewArgs,
        /// How many skills to print (1 to 16).
        #[arg(long, short = 'n', value_name = "N", default_value_t = skills_runtime::DEFAULT_SEARCH_RESULTS)]
        limit: usize,
        /// Print JSON (name, description, source, score per skill).
        #[arg(long)]
        json: bool,
        /// Under each result, the request words found in each of its fields (name,
        /// description, instructions) and the points each added (in the JSON too).
        #[arg(long)]
        explain: bool,
    },
    /// Print what loading a skill answers, as a person invoking it (exit 2 when it
    /// answers an error). Arguments after `--` are substituted into its instructions.
    Load {
        /// The skill's name.
        name: String,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print JSON (name, status, content).
        #[arg(long)]
        json: bool,
        /// The skill's arguments, each as given (`skills load deploy -- staging "v 2"`).
        #[arg(last = true, value_name = "ARG")]
        arguments: Vec<String>,
    },
    /// Create a skill folder: SKILL.md plus scripts/, references/ and assets/.
    New {
        /// The skill's name: 1-64 lowercase letters, digits and single hyphens.
        name: String,
        /// The folder to create it in.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The description to put in the frontmatter (one line).
        #[arg(long)]
        description: Option<String>,
        /// For people only: `disable-model-invocation: true` (the model neither sees nor
        /// loads it).
        #[arg(long)]
        manual: bool,
        /// Runs in a subagent when loaded: `context: fork`.
        #[arg(long)]
        fork: bool,
        /// The arguments it takes, as shown to the model (`[env-name]`); the body shows
        /// how to use `$ARGUMENTS` and `$0`.
        #[arg(long, value_name = "HINT")]
        argument_hint: Option<String>,
    },
    /// Watch the sources and print one line per catalog change until interrupted.
    Watch {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print one JSON object per change.
        #[arg(long)]
        json: bool,
    },
    /// Serve the skills over MCP (stdio by default; --http for streamable HTTP on loopback).
    ///
    /// Implements the MCP skills extension (skills/list, skills/get, skill:// resources)
    /// and the tools list_skills, search_skills, load_skill and read_skill_resource. Follows changes to
    /// the sources and tells connected clients. Never runs skill scripts.
    Serve {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        view: ViewArgs,
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio; ADDR is a loopback
        /// HOST:PORT or a PORT (port 0 picks a free one; the address is printed on stderr).
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
        http: Option<String>,
        /// How long the skills list of list_skills may be.
        #[command(flatten)]
        budget: BudgetArgs,
        /// The most characters of the server's instructions (default 4000, or
        /// `[serve] instructions-budget`): a paragraph on how to use the server, then one
        /// line per skill, most relevant first. Clients cut longer ones (Claude Code keeps
        /// 4,096; 2,048 before its version 2.1.296).
        #[arg(long, value_name = "CHARS")]
        instructions_budget: Option<usize>,
    },
    /// Install skills of a source into the project's .agents/skills (or ~/.agents/skills
    /// with --global) and link them into each agent's own folder; pins what was
    /// installed in skills.lock. A skill edited here is kept unless --force.
    Add {
        /// Where the skills are: a folder, `git+...`, `s3://...`, an HTTP registry, or
        /// `owner/repo[/path][@ref]` for a repository on GitHub (when no folder has that
        /// name). A whole repository or folder is read where it keeps its skills: its
        /// skills/ folder (and skills/.curated, .system, .experimental), else its root,
        /// else its agents' folders (.claude/skills...); the folder read is recorded.
        source: String,
        /// Install only this skill (repeat for several; default: every skill).
        #[arg(long = "skill", value_name = "NAME")]
        skills: Vec<String>,
        /// Link into this agent's folder (repeat; default: the agents whose folders
        /// exist here, e.g. .claude for claude-code).
        #[arg(long = "agent", value_name = "NAME")]
        agents: Vec<String>,
        /// Copy into the agents' folders instead of linking.
        #[arg(long)]
        copy: bool,
        /// Accepted for scripts written for other installers: skills never asks.
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        flags: InstallFlags,
        #[command(flatten)]
        discovery: DiscoveryArgs,
    },
    /// Make the agents' folders match skills.toml's `[[install]]` tables (what `skills add`
    /// records) and skills.lock; a second run changes nothing. --frozen installs exactly
    /// what the lock pins and fails when a source no longer has it.
    Sync {
        /// Install exactly what skills.lock pins (CI, a fresh clone).
        #[arg(long, conflicts_with = "watch")]
        frozen: bool,
        /// Then keep watching the sources and install every change as it comes (as
        /// `skills update` would: a skill edited here is kept), until stopped.
        #[arg(long)]
        watch: bool,
        /// Take over the skills the `skills` npm installer recorded in
        /// ./skills-lock.json: recorded as `[[install]]` tables in skills.toml, then
        /// synced.
        #[arg(long)]
        from_npm_lock: bool,
        /// Print what would change, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// A minisign public key: refuse a skills.lock without a good signature by it
        /// (skills.lock.minisig beside it).
        #[arg(long, value_name = "PUBKEY")]
        trusted_key: Option<PathBuf>,
        #[command(flatten)]
        view: ViewArgs,
        #[command(flatten)]
        discovery: DiscoveryArgs,
    },
    /// Install the new versions of installed skills (all, or those named) from the
    /// sources skills.lock names: the plan printed, a skill edited here kept unless
    /// --force (which keeps a backup), the new versions pinned.
    Update {
        /// The skills (default: every installed one).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        #[command(flatten)]
        flags: InstallFlags,
        /// A minisign public key: refuse a skills.lock without a good signature by it
        /// (skills.lock.minisig beside it).
        #[arg(long, value_name = "PUBKEY")]
        trusted_key: Option<PathBuf>,
        #[command(flatten)]
        discovery: DiscoveryArgs,
    },
    /// Remove installed skills: from .agents/skills (or ~/.agents/skills with --global),
    /// from the agents' folders that link to them, and from skills.lock. A skill edited
    /// here is kept unless --force (which keeps a backup).
    Remove {
        /// The skills.
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
        /// Only take the skills out of this agent's folder (repeat); they stay installed
        /// for the others.
        #[arg(long = "agent", value_name = "NAME")]
        agents: Vec<String>,
        #[command(flatten)]
        flags: InstallFlags,
    },
    /// Print a completion script for a shell: `skills completions bash >
    /// ~/.local/share/bash-completion/completions/skills` (zsh: a file `_skills` on
    /// $fpath; fish: ~/.config/fish/completions/skills.fish; PowerShell: dot-source it
    /// from $PROFILE).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of `skills` and its commands: `skills manpage >
    /// skills.1 && man ./skills.1` (`cargo xtask man` writes it into target/man).
    #[command(hide = true)]
    Manpage,
    /// Check skill folders or whole sources; exit 1 when a skill would be skipped.
    Validate {
        /// Skill folders (holding SKILL.md), source folders (holding skill folders), or
        /// sources given as URLs (s3://..., git+...://..., file://...).
        #[arg(required = true, value_name = "PATH|SOURCE")]
        paths: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Fail (exit 1) on recovered mistakes too: frontmatter that loads only because it
        /// was read line by line.
        #[arg(long)]
        strict: bool,
        /// lenient (default): fail on skills that do not load. spec: the Agent Skills
        /// specification to the letter (name rules and folder, lengths, field types,
        /// duplicates, recovered frontmatter and unknown top-level keys fail too).
        #[arg(long, value_name = "PROFILE", default_value = "lenient")]
        profile: skills_runtime::ValidationProfile,
        #[command(flatten)]
        discovery: DiscoveryArgs,
    },
}

/// The flags every installer command that writes takes.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct InstallFlags {
    /// The home directory's skills (~/.agents/skills) instead of the project's.
    #[arg(long)]
    pub global: bool,
    /// Replace or remove skills edited here too (your version is kept as a backup).
    #[arg(long)]
    pub force: bool,
    /// Print what would change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Which view of the catalog a command shows.
#[derive(Debug, Clone, Args)]
pub struct ViewArgs {
    /// Only the skills of this view (`[views.NAME]` in skills.toml) and the skills they
    /// depend on.
    #[arg(long, value_name = "NAME")]
    pub view: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// A skill source; repeat for several, in priority order.
    #[arg(long = "source", short = 's', value_name = "SRC")]
    pub sources: Vec<String>,
    /// A skills.toml listing the sources (default: ./skills.toml when present and no
    /// --source is given); --source values come after its sources.
    #[arg(long = "config", short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub discovery: DiscoveryArgs,
    #[command(flatten)]
    pub lock: LockArgs,
}

/// The lockfile of a library and whether to serve it frozen.
#[derive(Debug, Clone, Default, Args)]
pub struct LockArgs {
    /// Serve only what the lockfile pins, as it pins it (also `frozen = true` in
    /// skills.toml's `[lock]`).
    #[arg(long)]
    pub frozen: bool,
    /// The lockfile (default: skills.lock next to the skills.toml read, else in the
    /// current directory).
    #[arg(long, value_name = "FILE")]
    pub lockfile: Option<PathBuf>,
    /// A minisign public key: refuse a lockfile without a good signature by it
    /// (FILE.minisig next to the lockfile).
    #[arg(long, value_name = "PUBKEY")]
    pub trusted_key: Option<PathBuf>,
}

/// How each source is discovered: limits (over the defaults and a skills.toml's
/// `[limits]`) and the hard-link policy.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct DiscoveryArgs {
    /// The most skill folders read from one source (default 200000).
    #[arg(long, value_name = "N")]
    pub max_skills: Option<usize>,
    /// The most entries looked at in one directory (default 250000).
    #[arg(long, value_name = "N")]
    pub max_dir_entries: Option<usize>,
    /// The most bytes of SKILL.md read from one source (default 4294967296).
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<u64>,
    /// Accept a source that a limit cut: exit 0 with the skills that fit.
    #[arg(long)]
    pub allow_partial: bool,
    /// How many levels below each source skill folders may lie (default 1; hidden
    /// folders and node_modules are not searched; a folder with a SKILL.md ends the
    /// search); 0 reads each source as one skill folder (its SKILL.md at its root).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Which files with several hard links local folders read: same-owner (default:
    /// files of the folder's owner), refuse, or allow.
    #[arg(long, value_name = "POLICY")]
    pub hard_links: Option<skills_runtime::fs::HardLinks>,
    /// Read and parse every SKILL.md, without the parses earlier runs kept in the
    /// user's cache folder (and keep none); `[cache] enabled = false` in skills.toml
    /// does the same.
    #[arg(long)]
    pub no_cache: bool,
}

impl DiscoveryArgs {
    /// `limits` with every value given on the command line replaced.
    pub fn apply(&self, limits: skills_runtime::DiscoveryLimits) -> skills_runtime::DiscoveryLimits {
        let config = skills_runtime::sources::LimitsConfig {
            max_skills: self.max_skills,
            max_dir_entries: self.max_dir_entries,
            max_bytes: self.max_bytes,
        };
        config.apply(limits)
    }

    /// `options` with the hard-link policy and depth given on the command line, if any.
    pub fn options(&self, options: skills_runtime::sources::OpenOptions) -> skills_runtime::sources::OpenOptions {
        skills_runtime::sources::OpenOptions {
            hard_links: self.hard_links.unwrap_or(options.hard_links),
            depth: self.depth.or(options.depth),
            ..options
        }
    }
}

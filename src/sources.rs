//! One source syntax for the `skills` CLI, the MCP server and Rust code, and the
//! `skills.toml` file that lists a library's sources in priority order.
//!
//! A source is `[LABEL=]LOCATION`, where LOCATION is one of:
//!
//! | location | backend | feature |
//! |---|---|---|
//! | `./dir`, `/abs/dir`, `file:///abs/dir` | local disk | `fs` |
//! | `s3://bucket/prefix` | S3 (credentials from `AWS_*`) | `s3` |
//! | `git+file:///repo`, `git+https://...`, `git+ssh://...`, `git+git://...` (`#ref=..&path=..`) | git | `git` |
//! | `https://HOST/.well-known/agent-skills/` (or its `index.json`, or the site; `http://` on loopback only) | HTTP registry | `http` |
//! | `mcp+https://HOST/mcp` (`mcp+http://` on loopback only); in skills.toml also `command` and `args` | an MCP server's skills (SEP-2640) | `mcp` |
//!
//! ```
//! use skills_runtime::sources::{OpenOptions, SourceSpec, SourcesConfig};
//!
//! let spec: SourceSpec = "team=s3://team-skills/library".parse().unwrap();
//! assert_eq!(spec.label.as_deref(), Some("team"));
//!
//! let config = SourcesConfig::parse(
//!     r#"
//!     [[source]]
//!     location = "examples/skills"
//!     label = "examples"
//!     "#,
//! )
//! .unwrap();
//! let options = OpenOptions::new(env!("CARGO_MANIFEST_DIR"));
//! let opened = config.open(&options).unwrap();
//! assert_eq!(opened[0].label(), "examples");
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use skills_catalog::SkillSource;

pub use crate::cache_config::CacheConfig;
pub use crate::install_config::{InstallSpec, expand_git_shorthand};
pub use crate::limits_config::LimitsConfig;
pub use crate::lock_config::LockConfig;
use crate::open_backends::{McpWay, open_dir, open_git, open_http, open_mcp, open_s3};
pub use crate::open_options::OpenOptions;
pub use crate::prompt_config::{BudgetSetting, DEFAULT_BUDGET_FRACTION, PromptConfig, budget_of};
pub use crate::search_config::SearchConfig;
pub use crate::serve_config::{DEFAULT_INSTRUCTIONS_BUDGET, ServeConfig};
pub use crate::view_config::ViewConfig;

/// The environment variable an `mcp+http(s)://` source's bearer token is read from,
/// unless its `token-env` names another.
pub const MCP_TOKEN_ENV: &str = "SKILLS_MCP_TOKEN";
use skills_core::url::redact_url as redact;

/// The file a project keeps its sources in.
pub const CONFIG_FILE: &str = "skills.toml";

/// `[LABEL=]LOCATION`, not yet opened.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Shown in listings and prompts; by default derived from the location.
    #[serde(default)]
    pub label: Option<String>,
    /// Where the skills are (empty for an MCP server started by `command`).
    #[serde(default)]
    pub location: String,
    /// How many levels below the location skill folders may lie (default 1).
    #[serde(default)]
    pub depth: Option<usize>,
    /// An MCP server to start and read over stdio (with `args`), instead of a location.
    #[serde(default)]
    pub command: Option<String>,
    /// The arguments of `command`.
    #[serde(default)]
    pub args: Vec<String>,
    /// The environment variable holding the bearer token of an `mcp+https://` server
    /// (default: `SKILLS_MCP_TOKEN`, when set).
    #[serde(default, rename = "token-env")]
    pub token_env: Option<String>,
}

/// Whether a source location is a folder path (relative ones are taken from a base
/// folder), not a URL (`s3://`, `git+...`, `https://`, `file:///`).
///
/// ```
/// use skills_runtime::sources::is_path;
/// assert!(is_path("./skills") && is_path("/srv/skills"));
/// assert!(!is_path("git+file:///r#ref=main") && !is_path("s3://b/p") && !is_path("file:///srv"));
/// ```
pub fn is_path(location: &str) -> bool {
    !location.contains("://") && !location.starts_with("git+")
}

impl FromStr for SourceSpec {
    type Err = OpenError;

    /// `label=location` when the part before `=` is a plain word (letters, digits, `-`,
    /// `_`); otherwise the whole text is the location.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim().is_empty() {
            return Err(OpenError::new(text, "empty source"));
        }
        let (label, location) = match text.split_once('=') {
            Some((label, location))
                if !label.is_empty()
                    && !location.is_empty()
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                (Some(label.to_owned()), location)
            }
            _ => (None, text),
        };
        Ok(Self {
            label,
            location: location.to_owned(),
            depth: None,
            command: None,
            args: Vec::new(),
            token_env: None,
        })
    }
}

impl fmt::Display for SourceSpec {
    /// The spec as given, with any password in a URL hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(label) = &self.label {
            write!(f, "{label}=")?;
        }
        f.write_str(&redact(&self.location))
    }
}

/// Why a source could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("source {spec}: {message}")]
pub struct OpenError {
    /// The source as given (passwords hidden).
    pub spec: String,
    /// What went wrong.
    pub message: String,
}

impl OpenError {
    fn new(spec: &str, message: impl fmt::Display) -> Self {
        Self {
            spec: format!("{:?}", redact(spec)),
            message: message.to_string(),
        }
    }
}

impl SourceSpec {
    /// Opens the source into the one source type the catalog and every face use, with
    /// its label (given, or derived from the location) and its location for people.
    /// Local directories must exist; an S3 source sends nothing yet; a
    /// git source opens (or clones / fetches) its repository and resolves the ref.
    pub fn open(&self, options: &OpenOptions) -> Result<SkillSource, OpenError> {
        let fail = |message: &dyn fmt::Display| OpenError::new(&self.to_string(), message);
        let location = self.location.as_str();
        let (default_label, opened) = if let Some(command) = &self.command {
            open_mcp(McpWay::Stdio(command, &self.args), options).map_err(|e| fail(&e))?
        } else if location.starts_with("mcp+") {
            let var = self.token_env.as_deref().unwrap_or(MCP_TOKEN_ENV);
            let token = std::env::var(var).ok().filter(|t| !t.is_empty());
            if token.is_none() && self.token_env.is_some() {
                return Err(fail(&format!("the environment variable {var} (token-env) is not set")));
            }
            open_mcp(McpWay::Http(location, token.as_deref()), options).map_err(|e| fail(&e))?
        } else if location.starts_with("s3://") {
            open_s3(location, options).map_err(|e| fail(&e))?
        } else if location.starts_with("https://") || location.starts_with("http://") {
            open_http(location, options).map_err(|e| fail(&e))?
        } else if location.starts_with("git+") {
            open_git(location, self.label.as_deref(), options).map_err(|e| fail(&e))?
        } else if let Some(rest) = location.strip_prefix("file://") {
            let Some(path) = rest.strip_prefix('/').map(|p| format!("/{p}")) else {
                return Err(fail(&"a file URL needs an absolute path (file:///...)"));
            };
            let dir = percent_decode(&path).map_err(|e| fail(&e))?;
            open_dir(&options.base_dir.join(dir), options).map_err(|e| fail(&e))?
        } else if location.contains("://") {
            return Err(fail(
                &"unknown scheme (expected a path, file:///, s3://, git+..., https:// or mcp+https://)",
            ));
        } else {
            open_dir(&options.base_dir.join(location), options).map_err(|e| fail(&e))?
        };
        let depth = options.depth.or(self.depth).unwrap_or(1);
        // What opens it again: a folder as the absolute path it resolved to (a lock
        // writes it relative to itself), anything else as written, without a password.
        let spec = if is_path(location) {
            opened.location().to_owned()
        } else {
            skills_core::url::without_password(location)
        };
        let opened = opened.with_label(self.label.clone().unwrap_or_else(|| default_label.clone()));
        // Depth 0: the location is itself one skill folder.
        let opened = if depth == 0 {
            opened.as_one_skill(default_label)
        } else {
            opened.with_depth(depth)
        };
        // A server started by a command has no spec that opens it again: a lock of it
        // is verified against the skills.toml that names the command.
        Ok(if self.command.is_some() {
            opened
        } else {
            opened.with_spec(spec)
        })
    }
}

/// `%XX` escapes decoded; the result must be UTF-8.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    // percent-encoding passes a malformed escape through as it is; a file URL with one
    // is a mistake to report, not a path to look for.
    for (i, _) in text.match_indices('%') {
        let hex = bytes.get(i + 1..i + 3).ok_or("truncated %-escape")?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(format!("bad %-escape %{}", String::from_utf8_lossy(hex)));
        }
    }
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| "%-escapes do not form UTF-8".to_owned())
}

/// The sources of a library, in priority order (for one name, the last wins), as a
/// `skills.toml` lists them:
///
/// ```toml
/// [[source]]
/// label = "base"
/// location = "git+https://example.com/team/base-skills.git#ref=v2&path=skills"
///
/// [[source]]
/// label = "team"
/// location = "s3://team-skills/library"
///
/// [[source]]
/// location = ".agents/skills"      # relative to the file's directory
/// ```
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourcesConfig {
    /// The sources, lowest priority first.
    #[serde(default, rename = "source")]
    pub sources: Vec<SourceSpec>,
    /// Limits of each source's discovery (`[limits]`); unset ones keep their defaults.
    #[serde(default)]
    pub limits: LimitsConfig,
    /// Which multiply-linked files local directories read: `same-owner` (the default),
    /// `refuse` or `allow` (`hard-links = "allow"`).
    #[serde(default, rename = "hard-links")]
    pub hard_links: Option<String>,
    /// How long the skills list may be (`[prompt]`).
    #[serde(default)]
    pub prompt: PromptConfig,
    /// What the search index reads (`[search]`).
    #[serde(default)]
    pub search: SearchConfig,
    /// The lockfile and whether to serve frozen on it (`[lock]`).
    #[serde(default)]
    pub lock: LockConfig,
    /// What `skills serve` tells MCP clients (`[serve]`).
    #[serde(default)]
    pub serve: ServeConfig,
    /// Whether parses are kept between processes (`[cache]`).
    #[serde(default)]
    pub cache: CacheConfig,
    /// The skills this project installs into its agents' folders (`[[install]]`).
    #[serde(default)]
    pub install: Vec<InstallSpec>,
    /// Named selections over the catalog (`[views.NAME]`).
    #[serde(default)]
    pub views: std::collections::BTreeMap<String, ViewConfig>,
}

impl SourcesConfig {
    /// The view `[views.NAME]` describes (an error naming the views for another name).
    pub fn view(&self, name: &str) -> Result<skills_catalog::SkillView, ConfigError> {
        crate::view_config::view_named(&self.views, name).map_err(|message| ConfigError { path: None, message })
    }

    /// Parses the text of a `skills.toml`.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let config: Self = toml::from_str(text).map_err(|e| ConfigError {
            path: None,
            message: e.to_string(),
        })?;
        #[cfg(feature = "fs")]
        if let Some(policy) = &config.hard_links {
            policy.parse::<crate::fs::HardLinks>().map_err(|message| ConfigError {
                path: None,
                message: format!("hard-links: {message}"),
            })?;
        }
        for (name, view) in &config.views {
            view.to_view(name)
                .map_err(|message| ConfigError { path: None, message })?;
        }
        if let Some(empty) = config
            .sources
            .iter()
            .find(|s| s.location.trim().is_empty() && s.command.is_none())
        {
            return Err(ConfigError {
                path: None,
                message: format!("a source has an empty location (label {:?})", empty.label),
            });
        }
        Ok(config)
    }

    /// Reads and parses a file; relative locations in it are relative to its directory
    /// (use [`OpenOptions::new`] with [`base_dir`](Self::base_dir_of)).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: Some(path.to_path_buf()),
            message: e.to_string(),
        })?;
        Self::parse(&text).map_err(|e| ConfigError {
            path: Some(path.to_path_buf()),
            message: e.message,
        })
    }

    /// The directory relative locations of a config file resolve against.
    pub fn base_dir_of(path: &Path) -> PathBuf {
        match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Opens every source, in order, with the file's hard-link policy when it sets one;
    /// the first failure stops.
    pub fn open(&self, options: &OpenOptions) -> Result<Vec<SkillSource>, OpenError> {
        let options = self.apply(options.clone());
        self.sources.iter().map(|spec| spec.open(&options)).collect()
    }

    /// `options` with what this file sets (its hard-link policy).
    pub fn apply(&self, options: OpenOptions) -> OpenOptions {
        #[cfg(feature = "fs")]
        if let Some(policy) = self.hard_links.as_deref().and_then(|p| p.parse().ok()) {
            return OpenOptions {
                hard_links: policy,
                ..options
            };
        }
        options
    }
}

/// A `skills.toml` that cannot be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// The file, when there is one.
    pub path: Option<PathBuf>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}: {}", path.display(), self.message.trim_end()),
            None => f.write_str(self.message.trim_end()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skills_core::DiscoveryLimits;

    #[test]
    fn labels_split_only_on_plain_words() {
        let spec = |t: &str| t.parse::<SourceSpec>().unwrap();
        assert_eq!(spec("team=./skills").label.as_deref(), Some("team"));
        assert_eq!(spec("team=./skills").location, "./skills");
        assert_eq!(spec("./a=b").label, None);
        assert_eq!(spec("=x").location, "=x");
        assert_eq!(spec("x=").location, "x=");
        assert!("".parse::<SourceSpec>().is_err());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/a%20b/c").unwrap(), "/a b/c");
        assert!(percent_decode("/a%2").is_err());
        assert!(percent_decode("/a%zz").is_err());
    }

    #[test]
    fn config_files_parse_strictly() {
        let config = SourcesConfig::parse(
            "[[source]]\nlocation = \"a\"\n[[source]]\nlabel = \"b\"\nlocation = \"s3://bucket/x\"\n",
        )
        .unwrap();
        assert_eq!(config.sources.len(), 2);
        assert_eq!(config.sources[1].label.as_deref(), Some("b"));
        assert!(SourcesConfig::parse("").unwrap().sources.is_empty());
        for bad in [
            "[[source]]\nlabel = \"x\"\n",
            "[[source]]\nlocation = \"a\"\nbranch = \"main\"\n",
            "[[sources]]\nlocation = \"a\"\n",
            "[[source]]\nlocation = \"\"\n",
            "source = 3",
            "[limits]\nmax-skill = 3\n",
            "hard-links = \"sometimes\"\n",
            "[limits]\nmax-skills = -1\n",
        ] {
            assert!(SourcesConfig::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn limits_tables_set_what_they_name() {
        let config = SourcesConfig::parse("[limits]\nmax-skills = 500000\nmax-bytes = 1024\n").unwrap();
        let limits = config.limits.apply(DiscoveryLimits::default());
        assert_eq!((limits.max_skills(), limits.max_bytes()), (500_000, 1024));
        assert_eq!(limits.max_dir_entries(), DiscoveryLimits::DEFAULT_MAX_DIR_ENTRIES);
        assert_eq!(SourcesConfig::parse("").unwrap().limits, LimitsConfig::default());
    }

    #[test]
    fn errors_name_the_source_and_hide_passwords() {
        let options = OpenOptions::new(".");
        let spec: SourceSpec = "ftp://me:pw@host/x".parse().unwrap();
        let error = spec.open(&options).unwrap_err().to_string();
        assert!(error.contains("unknown scheme") && !error.contains(":pw@"), "{error}");
        let spec: SourceSpec = "file://host/x".parse().unwrap();
        assert!(spec.open(&options).unwrap_err().to_string().contains("absolute path"));
    }
}

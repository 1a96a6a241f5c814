//! The `[[install]]` tables of a `skills.toml`: the skills a project installs into its
//! agents' folders (`skills add` writes them, `skills sync` reads them).

/// One `[[install]]` table: skills of one source to install.
///
/// ```toml
/// [[install]]
/// source = "git+https://example.com/team/skills.git#ref=v2&path=skills"
/// skills = ["pdf", "web-research"]   # default: every skill of the source
/// agents = ["claude-code"]           # default: the agents whose folders exist
/// copy = false                       # copies instead of links
/// depth = 3                          # skill folders deeper than one level (0: the
///                                    # source is one skill folder); default 1
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// let config = SourcesConfig::parse("[[install]]\nsource = \"./team\"\nskills = [\"pdf\"]\n")?;
/// assert_eq!(config.install[0].source, "./team");
/// assert_eq!(config.install[0].skills, ["pdf"]);
/// assert!(config.install[0].to_toml().contains("skills = [\"pdf\"]"));
/// assert!(SourcesConfig::parse("[[install]]\nsorce = \"x\"\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct InstallSpec {
    /// The source, in the source syntax (`[LABEL=]LOCATION`).
    pub source: String,
    /// The skills to install; empty: every skill of the source.
    #[serde(default)]
    pub skills: Vec<String>,
    /// The agents whose folders link to them; empty: the agents whose folders exist.
    #[serde(default)]
    pub agents: Vec<String>,
    /// Copy into the agents' folders instead of linking.
    #[serde(default)]
    pub copy: bool,
    /// How many levels below the source its skill folders lie (0: the source is itself
    /// one skill folder); default 1.
    #[serde(default)]
    pub depth: Option<usize>,
}

impl InstallSpec {
    /// The table as `skills.toml` text (`[[install]]` and its keys).
    pub fn to_toml(&self) -> String {
        let list = |items: &[String]| {
            let quoted: Vec<String> = items.iter().map(|i| toml_string(i)).collect();
            format!("[{}]", quoted.join(", "))
        };
        let mut out = format!("[[install]]\nsource = {}\n", toml_string(&self.source));
        if !self.skills.is_empty() {
            out.push_str(&format!("skills = {}\n", list(&self.skills)));
        }
        if !self.agents.is_empty() {
            out.push_str(&format!("agents = {}\n", list(&self.agents)));
        }
        if self.copy {
            out.push_str("copy = true\n");
        }
        if let Some(depth) = self.depth {
            out.push_str(&format!("depth = {depth}\n"));
        }
        out
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// The `owner/repo[/path][@ref]` shorthand for a public repository on GitHub, as the
/// `git+https://` source it stands for; `None` for anything else (a path that starts
/// with `.`, `/` or `~`, a URL, a `label=` spec, a name with characters no GitHub owner
/// or repository has).
///
/// The caller decides whether a folder of that name exists first: an existing folder
/// always wins.
///
/// ```
/// use skills_runtime::sources::expand_git_shorthand;
/// assert_eq!(
///     expand_git_shorthand("anthropics/skills").as_deref(),
///     Some("git+https://github.com/anthropics/skills.git")
/// );
/// assert_eq!(
///     expand_git_shorthand("team/library/skills/pdf@v2").as_deref(),
///     Some("git+https://github.com/team/library.git#ref=v2&path=skills/pdf")
/// );
/// assert_eq!(expand_git_shorthand("./lib/skills"), None);
/// assert_eq!(expand_git_shorthand("s3://bucket/skills"), None);
/// assert_eq!(expand_git_shorthand("skills"), None);
/// ```
pub fn expand_git_shorthand(text: &str) -> Option<String> {
    if text.starts_with(['.', '/', '~']) || text.contains("://") || text.contains(['=', '\\', ' ', '#', '?', ':']) {
        return None;
    }
    let (spec, reference) = match text.split_once('@') {
        Some((spec, reference)) => (spec, Some(reference)),
        None => (text, None),
    };
    let mut parts = spec.splitn(3, '/');
    let owner = parts.next()?;
    let repo = parts.next()?.trim_end_matches(".git");
    let path = parts.next().map(|p| p.trim_matches('/')).filter(|p| !p.is_empty());
    let plain = |word: &str| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if !plain(owner) || !plain(repo) || owner.starts_with('.') || repo.starts_with('.') {
        return None;
    }
    if path.is_some_and(|p| p.split('/').any(|s| s.is_empty() || s == "." || s == "..")) {
        return None;
    }
    if reference.is_some_and(|r| r.is_empty() || r.contains(['@', '&'])) {
        return None;
    }
    let mut out = format!("git+https://github.com/{owner}/{repo}.git");
    let mut fragment = Vec::new();
    if let Some(reference) = reference {
        fragment.push(format!("ref={reference}"));
    }
    if let Some(path) = path {
        fragment.push(format!("path={path}"));
    }
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(&fragment.join("&"));
    }
    Some(out)
}

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
        out
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

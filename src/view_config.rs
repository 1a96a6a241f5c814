//! The `[views.NAME]` tables of a `skills.toml`: named selections over the catalog, for
//! a subagent or a role (`skills list --view NAME`, `serve --view NAME`, ...).

use std::collections::BTreeMap;

use skills_catalog::SkillView;

/// One `[views.NAME]` table: `include` and `exclude` lists of skill names, `*` patterns
/// and `source:LABEL` entries. A view includes every skill when `include` is empty, and
/// always the skills its skills depend on.
///
/// ```toml
/// [views.reviewer]
/// include = ["review", "lint-*", "source:team"]
/// exclude = ["lint-legacy"]
/// ```
///
/// ```
/// use skills_runtime::sources::SourcesConfig;
/// let config = SourcesConfig::parse("[views.docs]\ninclude = [\"pdf-*\", \"source:team\"]\n")?;
/// let view = config.view("docs")?;
/// assert_eq!(view.included().len(), 2);
/// assert!(config.view("nope").is_err(), "an unknown view is an error naming the known ones");
/// assert!(SourcesConfig::parse("[views.x]\ninclude = [\"\"]\n").is_err());
/// # Ok::<(), skills_runtime::sources::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    /// What the view includes (every skill when empty).
    #[serde(default)]
    pub include: Vec<String>,
    /// What it leaves out of that.
    #[serde(default)]
    pub exclude: Vec<String>,
}

impl ViewConfig {
    /// The view called `name` this table describes, or what is wrong with an entry.
    pub fn to_view(&self, name: &str) -> Result<SkillView, String> {
        let view = SkillView::new(name);
        let view = view
            .include(&self.include)
            .map_err(|e| format!("views.{name}.include: {e}"))?;
        view.exclude(&self.exclude)
            .map_err(|e| format!("views.{name}.exclude: {e}"))
    }
}

/// The view `name` of `views` (a skills.toml's `[views]`); for a name it does not
/// define, a message naming the views it does.
pub fn view_named(views: &BTreeMap<String, ViewConfig>, name: &str) -> Result<SkillView, String> {
    match views.get(name) {
        Some(view) => view.to_view(name),
        None => {
            let known: Vec<&str> = views.keys().map(String::as_str).collect();
            let known = if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            };
            Err(format!("no view `{name}` in [views] (views: {known})"))
        }
    }
}

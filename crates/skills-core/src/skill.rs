//! The skill types: what discovery makes of a `SKILL.md` and its folder, named and
//! shaped like deepagents' so that a user can map one to the other.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::extensions::{SkillContext, SkillExtensions};
use crate::fields::FieldMap;

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The lowercase name some skill folders give their [`SKILL_FILE`]. It is read as the
/// skill file when the folder has no `SKILL.md` (as the specification's reference
/// library reads it), with a `lowercase-skill-file` warning that names the rename.
pub const LOWERCASE_SKILL_FILE: &str = "skill.md";

/// Whether `file_name` names a skill file: `SKILL.md`, or its lowercase form.
pub fn is_skill_file_name(file_name: &str) -> bool {
    file_name == SKILL_FILE || file_name == LOWERCASE_SKILL_FILE
}

/// The `lowercase-skill-file` warning about the skill file at `path` (a `skill.md`),
/// naming the rename.
pub fn lowercase_skill_file(path: impl Into<String>) -> Diagnostic {
    let msg = format!(
        "the skill file is named {LOWERCASE_SKILL_FILE}: read as the skill, but rename it to {SKILL_FILE}, \
         the name the specification gives it and the one agents look for"
    );
    Diagnostic::new(path, crate::DiagnosticKind::LowercaseSkillFile, msg)
}

/// Whether a file called `file_name` is what a search for `wanted` looks for: the same
/// name, or either name of the skill file when `wanted` is [`SKILL_FILE`].
pub fn file_name_matches(file_name: &str, wanted: &str) -> bool {
    file_name == wanted || (wanted == SKILL_FILE && file_name == LOWERCASE_SKILL_FILE)
}

/// Metadata of one skill, parsed from the YAML frontmatter of its `SKILL.md`.
///
/// Field names follow the Agent Skills specification as deepagents exposes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillMetadata {
    /// Backend path of the `SKILL.md` file (`/skills/user/web-research/SKILL.md`).
    pub path: String,
    /// Skill identifier; by the specification 1-64 lowercase alphanumeric characters and
    /// single hyphens, equal to the directory name.
    pub name: String,
    /// What the skill does and when to use it (at most 1024 characters).
    pub description: String,
    /// License name or reference to a bundled license file.
    pub license: Option<String>,
    /// Environment requirements (at most 500 characters).
    pub compatibility: Option<String>,
    /// Free-form key-value pairs; values are kept as their YAML text.
    #[serde(default)]
    pub metadata: FieldMap<String>,
    /// Tools the skill recommends (`allowed-tools` in the frontmatter).
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    /// Frontmatter keys this version does not interpret, kept instead of dropped.
    #[serde(default, skip_serializing_if = "FieldMap::is_empty")]
    pub extra: FieldMap<FrontmatterValue>,
    /// The fields beyond the specification (invocation control, arguments, model, fork,
    /// tool rules, hooks, `when_to_use`, `paths`); `None` when the skill sets none, so a
    /// plain skill costs one pointer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Box<SkillExtensions>>,
}

impl SkillMetadata {
    /// A skill with only a name, a description and the path of its `SKILL.md`; every
    /// optional field empty.
    ///
    /// ```
    /// let skill = skills_core::SkillMetadata::new("web", "Search the web", "/skills/web/SKILL.md");
    /// assert_eq!(skill.dir(), "/skills/web");
    /// assert!(skill.license.is_none());
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>, path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            name: name.into(),
            description: description.into(),
            license: None,
            compatibility: None,
            metadata: FieldMap::default(),
            allowed_tools: Vec::new(),
            extra: FieldMap::default(),
            extensions: None,
        }
    }

    /// The fields beyond the specification, when the skill sets any.
    pub fn extensions(&self) -> Option<&SkillExtensions> {
        self.extensions.as_deref()
    }

    /// The tools the skill needs (`required-tools`, `dependencies.tools`) that
    /// `available` says the agent lacks; `None` when the agent can run it.
    pub fn missing_tools(&self, available: impl Fn(&str) -> bool) -> Option<crate::extensions::MissingTools> {
        let missing = self.extensions()?.missing_tools(available);
        (!missing.is_empty()).then_some(missing)
    }

    /// The skills this one depends on (`dependencies.skills`, or `dependencies` as a
    /// list), by name.
    pub fn required_skills(&self) -> &[String] {
        self.extensions().map_or(&[], |e| e.dependencies.skills.as_slice())
    }

    /// Whether the model may see and load the skill (not `disable-model-invocation`).
    pub fn model_invocable(&self) -> bool {
        self.extensions().is_none_or(|e| !e.disable_model_invocation)
    }

    /// Whether people may invoke the skill (not `user-invocable: false`).
    pub fn user_invocable(&self) -> bool {
        self.extensions().is_none_or(|e| e.user_invocable)
    }

    /// Whether the skill runs in a forked subagent (`context: fork`).
    pub fn is_fork(&self) -> bool {
        self.extensions().is_some_and(|e| e.context == SkillContext::Fork)
    }

    /// The `argument-hint`, when the skill has one.
    pub fn argument_hint(&self) -> Option<&str> {
        self.extensions().and_then(|e| e.argument_hint.as_deref())
    }

    /// The description as the skills list and search show it: the description, then
    /// `when_to_use` when the skill has one.
    pub fn listing_description(&self) -> std::borrow::Cow<'_, str> {
        match self.extensions().and_then(|e| e.when_to_use.as_deref()) {
            Some(when) => std::borrow::Cow::Owned(format!("{} {when}", self.description)),
            None => std::borrow::Cow::Borrowed(&self.description),
        }
    }

    /// The backend path of the skill's directory (the parent of `SKILL.md`).
    pub fn dir(&self) -> &str {
        crate::path::parent(&self.path)
    }
}

/// A frontmatter value this version does not interpret, with every scalar kept as its
/// YAML text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FrontmatterValue {
    /// `~`, `null` or an empty value.
    Null,
    /// A scalar's YAML text (`1.10`, `true`, `hello`).
    Text(String),
    /// A sequence.
    List(Vec<FrontmatterValue>),
    /// A mapping; keys are their YAML text.
    Map(FieldMap<FrontmatterValue>),
}

/// The kind of a resource file, from the standard directory it lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A file in `scripts/`.
    Script,
    /// A file in `references/`.
    Reference,
    /// A file in `assets/`.
    Asset,
    /// Any other file at the skill's root, next to `SKILL.md`.
    Other,
}

impl ResourceKind {
    /// The kind of files in a standard resource directory (`scripts`, `references`,
    /// `assets`), or `None` for any other directory name.
    pub fn from_dir_name(name: &str) -> Option<Self> {
        match name {
            "scripts" => Some(Self::Script),
            "references" => Some(Self::Reference),
            "assets" => Some(Self::Asset),
            _ => None,
        }
    }

    /// The lowercase label used in prompts and listings (`script`, `reference`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Script => "script",
            Self::Reference => "reference",
            Self::Asset => "asset",
            Self::Other => "other",
        }
    }
}

/// A resource file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    /// Backend path of the file.
    pub path: String,
    /// What kind of resource it is (serialized as `type`, as in deepagents).
    #[serde(rename = "type")]
    pub kind: ResourceKind,
    /// Name of the skill the file belongs to.
    pub skill_name: String,
}

/// The skills part of an agent's state, serializable so that a conversation can be
/// checkpointed and resumed. The shared fields serialize as the values they hold: a
/// checkpoint reads the same as one of plain lists and maps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillsState {
    /// The discovered skills; `None` until discovery ran (setting it back to `None` asks
    /// for a new discovery). Shared with the catalog snapshot they come from, so a new
    /// thread or a `load_skill` copies no skill; each skill is shared in turn with the
    /// catalog's next versions, which a change to other skills leaves it in.
    pub skills_metadata: Option<Arc<[Arc<SkillMetadata>]>>,
    /// Names of the skills loaded with `load_skill`, in load order.
    #[serde(default)]
    pub skills_loaded: Vec<String>,
    /// Resource files by skill name (shared as the skills are; `Arc::make_mut` to edit).
    #[serde(default)]
    pub skill_resources: Arc<BTreeMap<String, Arc<[ResourceMetadata]>>>,
    /// What went wrong or looked wrong during discovery.
    #[serde(default)]
    pub skills_load_errors: Arc<[Diagnostic]>,
}

/// The skills of one source, what was wrong with the rest, and (when the discovery was
/// asked for them) each skill's resources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillListing {
    /// Parsed skills, one per name, ordered by directory path.
    pub skills: Vec<SkillMetadata>,
    /// Skips and warnings of this source, in path order.
    pub diagnostics: Vec<Diagnostic>,
    /// Skill folders seen: folders of the source holding a `SKILL.md`, loaded or not
    /// (those a limit left out included; those under a directory cut by
    /// `max-dir-entries` are not seen).
    pub folders: usize,
    /// Resource files of each listed skill, by skill name (see
    /// [`resources_from_entries`](crate::resources::resources_from_entries)); empty unless [`Discovery::resources`](crate::Discovery::resources) was set.
    pub resources: BTreeMap<String, Vec<ResourceMetadata>>,
}

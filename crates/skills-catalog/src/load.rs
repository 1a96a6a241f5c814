//! `load_skill` as a plain function: what a skill's activation answers, with the texts of
//! the V2 error table, for every face to wrap (a tool message and state update in the
//! middleware, a tool result over MCP, standard output in the CLI).

use std::fmt::{self, Write as _};

use skills_core::parse::MAX_SKILL_FILE_SIZE;
use skills_core::{BackendExt, FileErrorKind, SkillMetadata};

use crate::arguments::{SkillArguments, Substitution, substitute};
use crate::prompt::{code_span, escape_untrusted};
use crate::select::{NotOffered, Selection};
use crate::snapshot::CatalogSnapshot;

/// What loading a skill answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadAnswer {
    /// The skill's `SKILL.md` (a leading BOM removed), followed by its resource list
    /// (`- [script] `/path``) when it has resources.
    Loaded {
        /// The text to hand to the model.
        text: String,
    },
    /// The skill was loaded before; nothing was read.
    AlreadyLoaded {
        /// Its name.
        name: String,
    },
    /// The skill cannot be loaded.
    Failed(LoadError),
}

impl LoadAnswer {
    /// Whether the answer is a failure (the caller should mark it as an error).
    pub fn is_error(&self) -> bool {
        matches!(self, Self::Failed(_))
    }
}

impl fmt::Display for LoadAnswer {
    /// The answer's text, as the model sees it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Loaded { text } => f.write_str(text),
            Self::AlreadyLoaded { name } => write!(
                f,
                "Skill '{name}' is already loaded. Its instructions are already active."
            ),
            Self::Failed(error) => write!(f, "{error}"),
        }
    }
}

/// Why a skill cannot be loaded. The messages are the V2 design's error table, read by
/// models, so they keep its wording (`Error: ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No skill has that name.
    #[error("Error: Skill '{name}' not found. Available skills: {}", available_names(.name, .available))]
    NotFound {
        /// The name asked for, escaped and shortened (it comes from the model).
        name: String,
        /// Every skill of the snapshot (the message lists them all up to
        /// [`AVAILABLE_LIST_CHARS`], else the names most like `name`).
        available: Vec<String>,
    },
    /// The skill's source is not one of the catalog's.
    #[error("Error: Failed to read skill file at {path}: its source is not configured")]
    NoSource {
        /// The skill's `SKILL.md`.
        path: String,
    },
    /// The backend could not read the file.
    #[error("Error: Failed to read skill file at {path}: {reason}")]
    ReadFailed {
        /// The skill's `SKILL.md`.
        path: String,
        /// What the backend said.
        reason: String,
    },
    /// The file is over the size limit.
    #[error("Error: Skill file at {path} exceeds maximum size ({limit} bytes)")]
    TooLarge {
        /// The skill's `SKILL.md`.
        path: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The model asked for a skill with `disable-model-invocation`.
    #[error(
        "Error: Skill '{name}' can only be invoked by the user (disable-model-invocation); it cannot be loaded with load_skill."
    )]
    ModelInvocationDisabled {
        /// The skill's name.
        name: String,
    },
    /// The arguments cannot be split.
    #[error("Error: invalid arguments for skill '{name}': {reason}")]
    InvalidArguments {
        /// The skill's name.
        name: String,
        /// What is wrong with them.
        reason: String,
    },
    /// The agent lacks tools the skill needs (`required-tools`, `dependencies.tools`).
    #[error("Error: Skill '{name}' needs tools this agent does not have: {missing}. It cannot be loaded.")]
    MissingTools {
        /// The skill's name.
        name: String,
        /// The tools missing, as [`MissingTools`](skills_core::MissingTools) shows them.
        missing: String,
    },
    /// Under a frozen lock, the file read is not the one the lock pins (it changed
    /// after discovery).
    #[error("Error: Skill file at {path} does not match skills.lock; it is not served")]
    LockMismatch {
        /// The skill's `SKILL.md`.
        path: String,
    },
    /// The file is not UTF-8.
    #[error("Error: Failed to decode skill file at {path}: {reason}")]
    Decode {
        /// The skill's `SKILL.md`.
        path: String,
        /// Where the decoding failed.
        reason: String,
    },
}

/// Characters of the list of names an unknown name's error holds: the whole list of a
/// library up to a few hundred skills, as the reference gives it; past that, the names
/// most like the one asked for (a library of 10,000 skills listed whole was a 323,000-
/// character tool result).
pub const AVAILABLE_LIST_CHARS: usize = 2_000;

/// Names most like the one asked for that an unknown name's error gives, at most.
const LIKE_NAMES: usize = 10;

/// What an error about the unknown name `asked` says the library has: every name of
/// `names` up to [`AVAILABLE_LIST_CHARS`], else the ten most like `asked` (by character
/// trigrams) and how many there are.
///
/// ```
/// use skills_catalog::available_names;
/// let few = ["pdf".to_owned(), "web".to_owned()];
/// assert_eq!(available_names("pfd", &few), "pdf, web");
/// let many: Vec<String> = (0..1_000).map(|i| format!("skill-{i:04}")).chain(["pdf-forms".to_owned()]).collect();
/// let said = available_names("pdf-form", &many);
/// assert!(said.starts_with("pdf-forms (1001 skills in all"), "{said}");
/// ```
pub fn available_names(asked: &str, names: &[impl AsRef<str>]) -> String {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    if names.is_empty() {
        return "(none)".to_owned();
    }
    let whole = names.iter().map(|n| n.len() + 2).sum::<usize>();
    if whole <= AVAILABLE_LIST_CHARS {
        return names.join(", ");
    }
    // Alike as the search index reads a misspelt word as a known one: by trigrams.
    use crate::search::{shared_trigrams, similarity, trigrams};
    let asked = trigrams(&asked.to_lowercase());
    let mut like: Vec<(f32, &str)> = names
        .iter()
        .map(|&name| {
            let grams = trigrams(&name.to_lowercase());
            (
                similarity(shared_trigrams(&asked, &grams), asked.len(), grams.len()),
                name,
            )
        })
        .filter(|(score, _)| *score >= 0.2)
        .collect();
    like.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let like: Vec<&str> = like.iter().take(LIKE_NAMES).map(|&(_, name)| name).collect();
    let all = names.len();
    let rest = format!("{all} skills in all, too many to list here: search for a skill by what it does");
    if like.is_empty() {
        format!("({rest})")
    } else {
        format!("{} ({rest})", like.join(", "))
    }
}

/// Loads the skill `name` of `snapshot` for a thread that has loaded `loaded` already:
/// reads its `SKILL.md` through the backend of the source that serves it and answers
/// with the text and the skill's resources. Reads nothing when the name is unknown or
/// already loaded. Changes nothing: recording the skill as loaded is the caller's part.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{LoadAnswer, SkillCatalog, SkillSource, load_skill};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search\n---\nSteps")?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills")]);
/// let snapshot = catalog.ensure_loaded().await;
/// let answer = load_skill(&snapshot, "web", &[]).await;
/// assert!(matches!(&answer, LoadAnswer::Loaded { text } if text.ends_with("Steps")));
/// let again = load_skill(&snapshot, "web", &["web".to_owned()]).await;
/// assert_eq!(again.to_string(), "Skill 'web' is already loaded. Its instructions are already active.");
/// assert!(load_skill(&snapshot, "nope", &[]).await.to_string().starts_with("Error: Skill 'nope' not found"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub async fn load_skill(snapshot: &CatalogSnapshot, name: &str, loaded: &[String]) -> LoadAnswer {
    load_skill_with(snapshot, name, LoadRequest::new(loaded)).await
}

/// Who asks for a skill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Invoker {
    /// The model, through a `load_skill` tool: skills with `disable-model-invocation`
    /// are refused and not named as available.
    #[default]
    Model,
    /// The host or a person (`skills load`, an API call): every skill may be loaded.
    User,
}

/// How to load a skill: for whom, with what arguments, for a thread that loaded what.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadRequest<'a> {
    /// The skills the thread has loaded already.
    pub loaded: &'a [String],
    /// The arguments; with them, a loaded skill is loaded again with the new ones.
    pub arguments: Option<&'a SkillArguments>,
    /// Who asks.
    pub invoker: Invoker,
    /// `${SKILL_DIR}` as the agent's file tools see it; default: the skill's backend
    /// folder.
    pub skill_dir: Option<&'a str>,
    /// What the agent is offered (its view, its tools): a skill outside it is not found,
    /// one whose tools are missing is refused naming them. `None`: every skill.
    pub selection: Option<&'a Selection>,
}

impl<'a> LoadRequest<'a> {
    /// A request from the model, without arguments, for a thread that loaded `loaded`.
    pub fn new(loaded: &'a [String]) -> Self {
        Self {
            loaded,
            ..Self::default()
        }
    }

    /// With these arguments.
    pub fn with_arguments(mut self, arguments: Option<&'a SkillArguments>) -> Self {
        self.arguments = arguments;
        self
    }

    /// From this invoker.
    pub fn by(mut self, invoker: Invoker) -> Self {
        self.invoker = invoker;
        self
    }

    /// For an agent offered `selection` (see [`Selection::of`]).
    pub fn within(mut self, selection: Option<&'a Selection>) -> Self {
        self.selection = selection;
        self
    }
}

/// [`load_skill`] with arguments and an invoker: refuses a model's request for a skill
/// with `disable-model-invocation`, and substitutes the arguments and `${SKILL_DIR}`
/// into the instructions (the body after the frontmatter; see [`substitute`]).
/// Argument placeholders are substituted when arguments are given or the skill
/// declares an `argument-hint`, so a plain skill's `$1` in a shell snippet stays as
/// written.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{Invoker, LoadRequest, SkillArguments, SkillCatalog, SkillSource, load_skill_with};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert(
///     "/skills/deploy/SKILL.md",
///     "---\nname: deploy\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy to $0.",
/// )?;
/// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills")]);
/// let snapshot = catalog.ensure_loaded().await;
/// let args = SkillArguments::Text("staging".into());
/// let by_model = LoadRequest::new(&[]).with_arguments(Some(&args));
/// assert!(load_skill_with(&snapshot, "deploy", by_model).await.is_error());
/// let answer = load_skill_with(&snapshot, "deploy", by_model.by(Invoker::User)).await;
/// assert!(answer.to_string().ends_with("Deploy to staging."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub async fn load_skill_with(snapshot: &CatalogSnapshot, name: &str, request: LoadRequest<'_>) -> LoadAnswer {
    LoadAnswer::from(read_skill(snapshot, name, request).await)
}

impl From<Result<LoadAnswer, LoadError>> for LoadAnswer {
    fn from(result: Result<LoadAnswer, LoadError>) -> Self {
        result.unwrap_or_else(Self::Failed)
    }
}

async fn read_skill(snapshot: &CatalogSnapshot, name: &str, request: LoadRequest<'_>) -> Result<LoadAnswer, LoadError> {
    let for_model = request.invoker == Invoker::Model;
    let offered = |skill: &SkillMetadata| request.selection.is_none_or(|s| s.offers(snapshot, &skill.name));
    let not_found = || LoadError::NotFound {
        // The name comes from the model; keep the echo short and on one line.
        name: escape_untrusted(name, 200),
        available: snapshot
            .skills()
            .iter()
            .filter(|s| (!for_model || s.model_invocable()) && offered(s))
            .map(|s| s.name.clone())
            .collect(),
    };
    let Some(skill) = snapshot.get(name) else {
        return Err(not_found());
    };
    match request.selection.and_then(|s| s.not_offered(snapshot, name)) {
        None => {}
        Some(NotOffered::OutOfView) => return Err(not_found()),
        Some(NotOffered::Unavailable(missing)) => {
            return Err(LoadError::MissingTools {
                name: name.to_owned(),
                missing: escape_untrusted(&missing.to_string(), 500),
            });
        }
    }
    if for_model && !skill.model_invocable() {
        return Err(LoadError::ModelInvocationDisabled { name: name.to_owned() });
    }
    let arguments = match request.arguments.map(SkillArguments::split).transpose() {
        Ok(arguments) => arguments,
        Err(error) => {
            return Err(LoadError::InvalidArguments {
                name: name.to_owned(),
                reason: error.to_string(),
            });
        }
    };
    if request.loaded.iter().any(|l| l == name) && arguments.is_none() {
        return Ok(LoadAnswer::AlreadyLoaded { name: name.to_owned() });
    }
    let path = &skill.path;
    let Some(source) = snapshot.source_for(name) else {
        return Err(LoadError::NoSource { path: path.clone() });
    };
    let backend = source.backend();
    let too_large = |limit| LoadError::TooLarge {
        path: path.clone(),
        limit,
    };
    let content = match backend.download_file(path).await {
        Ok(content) => content,
        Err(error) if error.kind == FileErrorKind::TooLarge => {
            return Err(too_large(backend.max_file_size().min(MAX_SKILL_FILE_SIZE)));
        }
        Err(error) => {
            return Err(LoadError::ReadFailed {
                path: path.clone(),
                reason: error.to_string(),
            });
        }
    };
    if content.len() as u64 > MAX_SKILL_FILE_SIZE {
        return Err(too_large(MAX_SKILL_FILE_SIZE));
    }
    if let Some(lock) = snapshot.lock()
        && !lock.holds(name, skills_core::path::file_name(path), &content)
    {
        return Err(LoadError::LockMismatch { path: path.clone() });
    }
    let text = std::str::from_utf8(&content).map_err(|e| LoadError::Decode {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut text = substituted(text, skill, arguments.as_ref(), request.skill_dir);
    snapshot.fetch_resources(&[name]).await;
    if let Some(resources) = snapshot.resources_of(name).filter(|r| !r.is_empty()) {
        text.push_str("\n\n\n---\n**Skill Resources:**\n");
        for resource in &resources {
            let _ = write!(text, "\n- [{}] {}", resource.kind.as_str(), code_span(&resource.path));
        }
    }
    describe_dependencies(snapshot, skill, &request, &mut text);
    Ok(LoadAnswer::Loaded { text })
}

/// The skill's text with its body's placeholders substituted (the frontmatter as
/// written).
fn substituted(
    text: &str,
    skill: &SkillMetadata,
    arguments: Option<&(Vec<String>, String)>,
    dir: Option<&str>,
) -> String {
    let body_at = skills_core::parse::split_frontmatter(text)
        .map_or(0, |(_, body)| body.as_ptr() as usize - text.as_ptr() as usize);
    let (head, body) = text.split_at(body_at);
    let empty = (Vec::new(), String::new());
    let arguments = arguments.or(skill.argument_hint().map(|_| &empty));
    let with = Substitution {
        arguments: arguments.map(|(list, whole)| (list.as_slice(), whole.as_str())),
        skill_dir: dir.unwrap_or(skill.dir()),
    };
    let mut out = head.to_owned();
    out.push_str(&substitute(body, with));
    out
}

/// The JSON Schema of a `load_skill` tool's arguments: `skill_name`, and `arguments` as
/// the skill's argument hint shows them. The middleware's and rig's tools offer it.
///
/// ```
/// let schema = skills_catalog::load_skill_schema();
/// assert_eq!(schema["required"], serde_json::json!(["skill_name"]));
/// ```
pub fn load_skill_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "skill_name": {
                "type": "string",
                "description": "Name of the skill to load from the available skills list."
            },
            "arguments": {
                "type": "string",
                "description": "Arguments for the skill, as its argument hint shows them (quote an argument that holds spaces)."
            }
        },
        "required": ["skill_name"],
        "additionalProperties": false
    })
}

/// Appends to a loaded skill's text the skills it depends on (each loaded, to load, or
/// not available) and the MCP servers it uses.
fn describe_dependencies(
    snapshot: &CatalogSnapshot,
    skill: &SkillMetadata,
    request: &LoadRequest<'_>,
    text: &mut String,
) {
    let skills = skill.required_skills();
    if !skills.is_empty() {
        text.push_str("\n\n\n---\n**Skills this skill depends on:**\n");
        for dependency in skills {
            let offered = snapshot.get(dependency).is_some_and(|d| d.model_invocable())
                && request.selection.is_none_or(|s| s.offers(snapshot, dependency));
            let state = if request.loaded.iter().any(|l| l == dependency) {
                "loaded".to_owned()
            } else if offered {
                format!(
                    "not loaded; use {}",
                    code_span(&format!("load_skill(\"{dependency}\")"))
                )
            } else {
                "not available to this agent".to_owned()
            };
            let _ = write!(text, "\n- {}: {state}", code_span(&escape_untrusted(dependency, 200)));
        }
    }
    // The frontmatter's servers only: reading agents/openai.yaml here would cost every
    // load a request to the backend (`mcp_server_dependencies` reads it, for `info`).
    let servers = skill
        .extensions()
        .map_or(&[][..], |e| e.dependencies.mcp_servers.as_slice());
    if !servers.is_empty() {
        text.push_str("\n\n**MCP servers this skill uses:**\n");
        for server in servers {
            let _ = write!(text, "\n- {}", code_span(&escape_untrusted(&server.name, 200)));
            if let Some(description) = &server.description {
                let _ = write!(text, ": {}", escape_untrusted(description, 200));
            }
        }
    }
}

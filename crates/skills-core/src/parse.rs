//! `SKILL.md` parsing: frontmatter extraction, field rules and diagnostics.

use std::borrow::Cow;

use crate::diagnostic::{Diagnostic, DiagnosticKind, Severity};
use crate::extensions::{EXTENSION_FIELDS, parse_extensions};
use crate::fields::FieldMap;
use crate::name::{NameError, is_prompt_safe_name, validate_skill_name};
use crate::profile::SPEC_FIELDS;
use crate::recover;
use crate::skill::{FrontmatterValue, SkillMetadata};
use crate::yaml::{self, ScalarKind, Yaml};

/// Longest description kept, in characters; longer ones are cut with a warning.
pub const MAX_SKILL_DESCRIPTION_LENGTH: usize = 1024;
/// Longest compatibility note kept, in characters; longer ones are cut with a warning.
pub const MAX_SKILL_COMPATIBILITY_LENGTH: usize = 500;

/// What [`parse_skill_md`] made of a file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseOutcome {
    /// The skill, unless a diagnostic of severity [`Severity::Skip`] says why not.
    pub skill: Option<SkillMetadata>,
    /// Every skip reason and warning, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses the frontmatter of a `SKILL.md` into [`SkillMetadata`].
///
/// `path` is the file's backend path (kept in the metadata and in diagnostics) and
/// `directory_name` the name of the directory holding it (the name must match it).
///
/// The rules are deepagents', with these deliberate differences: a UTF-8 BOM and a
/// closing `---` at the end of the file are accepted; an empty `name:` skips the skill
/// instead of naming it "None"; non-string scalars keep their YAML text (`1.10` stays
/// `1.10`); `allowed-tools` may also be a YAML list, and `Bash(git add:*)` stays one
/// tool; every skip and warning is returned as a [`Diagnostic`].
///
/// ```
/// use skills_core::parse_skill_md;
/// let md = b"---\nname: web-research\ndescription: Research the web\n---\n# Steps\n";
/// let outcome = parse_skill_md(md, "/skills/web-research/SKILL.md", "web-research");
/// assert_eq!(outcome.skill.unwrap().description, "Research the web");
/// assert!(outcome.diagnostics.is_empty());
/// ```
pub fn parse_skill_md(content: &[u8], path: &str, directory_name: &str) -> ParseOutcome {
    let mut parser = FieldParser {
        path,
        diagnostics: Vec::new(),
    };
    let skill = parser.parse(content, directory_name);
    for d in &parser.diagnostics {
        match d.severity() {
            Severity::Warning => tracing::debug!(path, kind = %d.kind, "{}", d.message),
            Severity::Skip | Severity::Error => tracing::warn!(path, kind = %d.kind, "skipping skill: {}", d.message),
        }
    }
    ParseOutcome {
        skill,
        diagnostics: parser.diagnostics,
    }
}

/// The values of the keys read into fields of their own ([`SPEC_FIELDS`], then
/// [`EXTENSION_FIELDS`]), each in its slot; a key written twice keeps its last value.
#[derive(Default)]
struct Fields<'a> {
    slots: [Option<Yaml<'a>>; SPEC_FIELDS.len() + EXTENSION_FIELDS.len()],
}

impl<'a> Fields<'a> {
    /// The slot of `key`, when it has a field of its own.
    fn slot(key: &str) -> Option<usize> {
        SPEC_FIELDS
            .iter()
            .chain(&EXTENSION_FIELDS)
            .position(|field| *field == key)
    }

    fn get(&self, key: &str) -> Option<&Yaml<'a>> {
        self.slots[Self::slot(key)?].as_ref()
    }

    fn insert(&mut self, key: &str, value: Yaml<'a>) {
        if let Some(slot) = Self::slot(key) {
            self.slots[slot] = Some(value);
        }
    }

    fn remove(&mut self, key: &str) -> Option<Yaml<'a>> {
        self.slots[Self::slot(key)?].take()
    }

    /// Whether any extension field is set.
    fn any_extension(&self) -> bool {
        self.slots[SPEC_FIELDS.len()..].iter().any(Option::is_some)
    }
}

struct FieldParser<'a> {
    path: &'a str,
    diagnostics: Vec<Diagnostic>,
}

impl FieldParser<'_> {
    fn report(&mut self, kind: DiagnosticKind, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(self.path, kind, message));
    }

    fn parse(&mut self, content: &[u8], directory_name: &str) -> Option<SkillMetadata> {
        if content.len() as u64 > MAX_SKILL_FILE_SIZE {
            let msg = format!(
                "file is {} bytes, over the {MAX_SKILL_FILE_SIZE}-byte limit",
                content.len()
            );
            self.report(DiagnosticKind::TooLarge, msg);
            return None;
        }
        // Checked at SIMD speed (every byte of every file of a library passes here); the
        // standard check runs only to say where a file goes wrong.
        let checked = simdutf8::basic::from_utf8(content).or_else(|_| std::str::from_utf8(content));
        let text = match checked {
            Ok(text) => text,
            Err(e) => {
                self.report(DiagnosticKind::InvalidUtf8, format!("file is not valid UTF-8 ({e})"));
                return None;
            }
        };
        let Some((frontmatter, _body)) = split_frontmatter(text) else {
            self.report(
                DiagnosticKind::NoFrontmatter,
                "no YAML frontmatter: the file must start with a `---` line and close it with another",
            );
            return None;
        };
        let entries = match yaml::parse_lenient(frontmatter) {
            Ok(yaml::Lenient {
                yaml: Yaml::Map(entries),
                duplicates,
                repairs,
            }) => {
                for note in repairs {
                    let msg = format!("{note} (read as PyYAML reads it)");
                    self.report(DiagnosticKind::NonStandardYaml, msg);
                }
                for key in duplicates {
                    let msg = format!("key `{key}` appears more than once; the last one is used");
                    self.report(DiagnosticKind::DuplicateKey, msg);
                }
                entries
            }
            Ok(other) => {
                let msg = format!("frontmatter must be a mapping, got {}", other.yaml.type_name());
                self.report(DiagnosticKind::FrontmatterNotMapping, msg);
                return None;
            }
            Err(e) => self.recover(frontmatter, &e.to_string())?,
        };

        let mut fields = Fields::default();
        let mut extra = Vec::new();
        for (key, value) in entries {
            let key = key.into_cow();
            match Fields::slot(&key) {
                Some(slot) => fields.slots[slot] = Some(value),
                None => extra.push((key.into_owned(), frontmatter_value(value))),
            }
        }

        self.recover_as_written(frontmatter, &mut fields);
        let name = self.required(fields.remove("name"), "name", DiagnosticKind::MissingName);
        let description = self.required(
            fields.remove("description"),
            "description",
            DiagnosticKind::MissingDescription,
        );
        let (name, description) = (name?, description?);
        if !is_prompt_safe_name(&name) {
            let msg = format!(
                "name {name:?} holds a line break, control character, `<`, `>` or backtick; \
                 it cannot be shown to an agent"
            );
            self.report(DiagnosticKind::UnsafeName, msg);
            return None;
        }

        match validate_skill_name(&name, directory_name) {
            Ok(()) => {}
            Err(e @ NameError::DirectoryMismatch { .. }) => self.report(DiagnosticKind::NameMismatch, e.message()),
            Err(e) => self.report(
                DiagnosticKind::InvalidName,
                format!("'{name}' does not follow the specification: {e}"),
            ),
        }
        let description = self.truncate(
            description,
            MAX_SKILL_DESCRIPTION_LENGTH,
            "description",
            DiagnosticKind::DescriptionTruncated,
        );
        let license = self.optional_text(fields.remove("license"), "license");
        let compatibility = self
            .optional_text(fields.remove("compatibility"), "compatibility")
            .map(|c| {
                self.truncate(
                    c,
                    MAX_SKILL_COMPATIBILITY_LENGTH,
                    "compatibility",
                    DiagnosticKind::CompatibilityTruncated,
                )
            });
        let allowed_tools = self.allowed_tools(fields.remove("allowed-tools"));
        let metadata = self.metadata(fields.remove("metadata"));
        let mut extensions = if fields.any_extension() {
            parse_extensions(|key| fields.remove(key), &mut |kind, message| {
                self.report(kind, message);
            })
        } else {
            None
        };
        if let Some(ext) = extensions.as_deref_mut() {
            let skills = &mut ext.dependencies.skills;
            if skills.contains(&name) {
                // A package list whose package has the skill's name (`axolotl`), not a cycle.
                skills.retain(|d| *d != name);
                let msg = format!(
                    "`dependencies` names the skill itself (`{name}`): dropped (a list of names there means skills)"
                );
                self.report(DiagnosticKind::FieldIgnored, msg);
            }
        }

        Some(SkillMetadata {
            path: self.path.to_owned(),
            name,
            description,
            license,
            compatibility,
            metadata,
            allowed_tools,
            extra: extra.into_iter().collect(),
            extensions,
        })
    }

    /// The frontmatter YAML refused (`error`), read line by line when the reason is one
    /// of the common authoring mistakes (see [`recover::recover`]): a `recovered`
    /// warning, or an `invalid-yaml` skip with the hint when there is one.
    fn recover(&mut self, frontmatter: &str, error: &str) -> Option<Vec<(Yaml<'static>, Yaml<'static>)>> {
        match recover::recover(frontmatter, error) {
            Ok((entries, message)) => {
                self.report(DiagnosticKind::Recovered, message);
                Some(entries)
            }
            Err(message) => {
                self.report(DiagnosticKind::InvalidYaml, message);
                None
            }
        }
    }

    /// A `name` or `description` that YAML reads otherwise than the text on its line:
    /// as nothing when the value starts with `#` (a comment), or, for the description, as
    /// a list when its one line is bracketed (`description: [TODO: ...]`, as skill
    /// templates ship it; deepagents loads it too, as the list's Python text). The value
    /// as written, with a `recovered` warning that says how to fix the file.
    fn recover_as_written(&mut self, frontmatter: &str, fields: &mut Fields<'_>) {
        let mut reading = None;
        for field in ["name", "description"] {
            let (value, yaml_reads, fix) = match fields.get(field) {
                None | Some(Yaml::Null) => {
                    let reading = reading.get_or_insert_with(|| recover::read_lines(frontmatter));
                    match reading.get(field) {
                        Some(value) if value.starts_with('#') => (value, "no value", "`#` starts a comment"),
                        _ => continue,
                    }
                }
                Some(Yaml::Seq(_)) if field == "description" => {
                    let reading = reading.get_or_insert_with(|| recover::read_lines(frontmatter));
                    match reading.list(field) {
                        Some(value) => (value, "a list", "`[` starts a list"),
                        None => continue,
                    }
                }
                _ => continue,
            };
            let message = format!(
                "`{field}: {value}` is read as written; YAML reads {yaml_reads} there. To fix: {fix}: quote the value"
            );
            self.report(DiagnosticKind::Recovered, message);
            fields.insert(field, yaml::text_scalar(value.to_owned()));
        }
    }

    /// A required scalar field, trimmed; `None` (with a diagnostic) when absent, null,
    /// blank or a collection.
    fn required(&mut self, value: Option<Yaml<'_>>, field: &str, kind: DiagnosticKind) -> Option<String> {
        let problem = match value {
            None | Some(Yaml::Null) => format!("missing required `{field}`"),
            Some(Yaml::Scalar(s)) if !s.text.trim().is_empty() => return Some(trimmed(s.text)),
            Some(Yaml::Scalar(_)) => format!("`{field}` is blank"),
            Some(other) => format!("`{field}` must be a string, got a {}", other.type_name()),
        };
        self.report(kind, problem);
        None
    }

    /// An optional scalar field, trimmed; empty means absent.
    fn optional_text(&mut self, value: Option<Yaml<'_>>, field: &str) -> Option<String> {
        match value? {
            Yaml::Null => None,
            Yaml::Scalar(s) => Some(trimmed(s.text)).filter(|t| !t.is_empty()),
            other => {
                let msg = format!("ignoring `{field}`: expected a string, got a {}", other.type_name());
                self.report(DiagnosticKind::FieldIgnored, msg);
                None
            }
        }
    }

    fn truncate(&mut self, text: String, max: usize, field: &str, kind: DiagnosticKind) -> String {
        // No more bytes than `max` is no more characters (most descriptions).
        if text.len() <= max {
            return text;
        }
        match text.char_indices().nth(max) {
            None => text,
            Some((cut, _)) => {
                let len = text.chars().count();
                self.report(kind, format!("`{field}` has {len} characters, cut to {max}"));
                text[..cut].to_owned()
            }
        }
    }

    fn allowed_tools(&mut self, value: Option<Yaml<'_>>) -> Vec<String> {
        match value {
            None | Some(Yaml::Null) => Vec::new(),
            Some(Yaml::Scalar(s)) if s.kind == ScalarKind::Str => split_tools(&s.text),
            Some(Yaml::Seq(items)) => {
                let mut tools = Vec::with_capacity(items.len());
                let mut dropped = Vec::new();
                for item in items {
                    match item {
                        Yaml::Scalar(s) if s.kind == ScalarKind::Str => {
                            let tool = s.text.trim();
                            if !tool.is_empty() {
                                tools.push(tool.to_owned());
                            }
                        }
                        other => dropped.push(format!("{} `{}`", other.type_name(), other.to_text())),
                    }
                }
                if !dropped.is_empty() {
                    let msg = format!("dropped non-string `allowed-tools` entries: {}", dropped.join(", "));
                    self.report(DiagnosticKind::AllowedToolsEntryDropped, msg);
                }
                tools
            }
            Some(other) => {
                let msg = format!(
                    "ignoring `allowed-tools`: expected a string or a list, got a {}",
                    other.type_name()
                );
                self.report(DiagnosticKind::AllowedToolsIgnored, msg);
                Vec::new()
            }
        }
    }

    fn metadata(&mut self, value: Option<Yaml<'_>>) -> FieldMap<String> {
        match value {
            None | Some(Yaml::Null) => FieldMap::new(),
            Some(Yaml::Map(entries)) => entries
                .into_iter()
                .map(|(k, v)| (k.into_text(), v.into_text()))
                .collect(),
            Some(other) => {
                let msg = format!("ignoring `metadata`: expected a mapping, got a {}", other.type_name());
                self.report(DiagnosticKind::MetadataIgnored, msg);
                FieldMap::new()
            }
        }
    }
}

pub use crate::split::split_tools;

pub use crate::frontmatter::{MAX_SKILL_FILE_SIZE, frontmatter_json, split_frontmatter};

/// `text` without the whitespace around it, reusing an owned text when there is none.
fn trimmed(text: Cow<'_, str>) -> String {
    match text {
        Cow::Owned(text) if text.trim().len() == text.len() => text,
        text => text.trim().to_owned(),
    }
}

fn frontmatter_value(node: Yaml<'_>) -> FrontmatterValue {
    match node {
        Yaml::Null => FrontmatterValue::Null,
        Yaml::Scalar(s) => FrontmatterValue::Text(s.text.into_owned()),
        Yaml::Seq(items) => FrontmatterValue::List(items.into_iter().map(frontmatter_value).collect()),
        Yaml::Map(entries) => FrontmatterValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.into_text(), frontmatter_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;

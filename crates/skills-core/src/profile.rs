//! Validation profiles: how strictly `validate` judges a library.

use crate::diagnostic::{Diagnostic, DiagnosticKind, Severity};
use crate::skill::SkillMetadata;

/// The top-level frontmatter keys the Agent Skills specification defines.
pub const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// How strictly a library is judged.
///
/// ```
/// use skills_core::{parse_skill_md, ValidationProfile};
/// let md = b"---\nname: web\ndescription: Web\nversion: 2\n---\n";
/// let outcome = parse_skill_md(md, "/s/web/SKILL.md", "web");
/// let skill = outcome.skill.unwrap();
/// let found = ValidationProfile::Spec.check(&skill);
/// assert_eq!(found[0].kind.as_str(), "unknown-field");
/// assert!(ValidationProfile::Spec.fails(&found[0]));
/// assert!(!ValidationProfile::Lenient.fails(&found[0]));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValidationProfile {
    /// What loads is fine: only skipped skills and unreadable sources fail. Recovered
    /// mistakes and specification warnings are reported, not failed.
    #[default]
    Lenient,
    /// The Agent Skills specification to the letter: besides what fails `Lenient`, a
    /// name that breaks the rules or differs from its folder, a description or
    /// compatibility over its length, a recovered frontmatter, a field of the wrong type,
    /// a duplicate name, and any top-level key the specification does not define.
    Spec,
}

impl ValidationProfile {
    /// The name on the command line: `lenient`, `spec`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lenient => "lenient",
            Self::Spec => "spec",
        }
    }

    /// The diagnostics this profile adds for a loaded skill: under every profile, a
    /// `placeholder-description` for a description that still starts with `TODO`;
    /// under `Spec`, one `unknown-field` per top-level key the specification does not
    /// define.
    pub fn check(self, skill: &SkillMetadata) -> Vec<Diagnostic> {
        let mut found = Vec::new();
        if is_placeholder(&skill.description) {
            let msg = "the description is still a placeholder: say what the skill does and when to use it, \
                       the model picks skills by it";
            found.push(Diagnostic::new(
                &skill.path,
                DiagnosticKind::PlaceholderDescription,
                msg,
            ));
        }
        match self {
            Self::Lenient => {}
            Self::Spec => found.extend(self.unknown_fields(skill)),
        }
        found
    }

    fn unknown_fields(self, skill: &SkillMetadata) -> Vec<Diagnostic> {
        skill
            .extra
            .keys()
            .map(String::as_str)
            .chain(skill.extensions().map(|e| e.declared_keys()).unwrap_or_default())
            .filter(|key| !SPEC_FIELDS.contains(key))
            .map(|key| {
                let msg = format!(
                    "`{key}` is not a field of the Agent Skills specification (it defines {})",
                    SPEC_FIELDS.join(", ")
                );
                Diagnostic::new(&skill.path, DiagnosticKind::UnknownField, msg)
            })
            .collect()
    }

    /// Whether `diagnostic` fails validation under this profile.
    pub fn fails(self, diagnostic: &Diagnostic) -> bool {
        if diagnostic.severity() >= Severity::Skip {
            return true;
        }
        match self {
            Self::Lenient => false,
            Self::Spec => matches!(
                diagnostic.kind,
                DiagnosticKind::InvalidName
                    | DiagnosticKind::NameMismatch
                    | DiagnosticKind::DescriptionTruncated
                    | DiagnosticKind::CompatibilityTruncated
                    | DiagnosticKind::AllowedToolsIgnored
                    | DiagnosticKind::AllowedToolsEntryDropped
                    | DiagnosticKind::MetadataIgnored
                    | DiagnosticKind::FieldIgnored
                    | DiagnosticKind::DuplicateName
                    | DiagnosticKind::Recovered
                    | DiagnosticKind::UnknownField
                    | DiagnosticKind::DuplicateKey
                    | DiagnosticKind::NonStandardYaml
                    | DiagnosticKind::OverSpecLimits
            ),
        }
    }
}

/// Whether a description is a placeholder left to fill in: it starts with `TODO`
/// (`TODO: ...`, `[TODO] ...`, `todo - ...`), as the scaffold's does.
fn is_placeholder(description: &str) -> bool {
    let text = description.trim_start().trim_start_matches(['[', '(', '<']);
    text.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("todo"))
        && !text[4..].starts_with(|c: char| c.is_alphanumeric())
}

impl std::str::FromStr for ValidationProfile {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "lenient" => Ok(Self::Lenient),
            "spec" => Ok(Self::Spec),
            other => Err(format!(
                "unknown validation profile {other:?} (expected lenient or spec)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_skill_md;

    fn outcome(md: &str, dir: &str) -> (Option<SkillMetadata>, Vec<Diagnostic>) {
        let outcome = parse_skill_md(md.as_bytes(), &format!("/s/{dir}/SKILL.md"), dir);
        (outcome.skill, outcome.diagnostics)
    }

    #[test]
    fn spec_fails_what_lenient_reports() {
        for (md, dir) in [
            ("---\nname: Web_Search\ndescription: d\n---\n", "Web_Search"),
            ("---\nname: web\ndescription: d\n---\n", "other"),
            ("---\nname: web\ndescription: Deploys: fast\n---\n", "web"),
        ] {
            let (skill, diagnostics) = outcome(md, dir);
            assert!(skill.is_some(), "{md:?} loads");
            assert!(
                diagnostics.iter().any(|d| ValidationProfile::Spec.fails(d)),
                "{md:?}: {diagnostics:?}"
            );
            assert!(
                !diagnostics.iter().any(|d| ValidationProfile::Lenient.fails(d)),
                "{md:?}"
            );
        }
    }

    #[test]
    fn a_placeholder_description_is_warned_under_every_profile_and_failed_by_none() {
        for (description, placeholder) in [
            ("TODO: what this skill does and when to use it.", true),
            ("[TODO: Say what it does, and when.]", true),
            ("todo - fill in", true),
            ("TODO", true),
            ("Todoist tasks: add, list and close them", false),
            ("Reviews TODO comments in code", false),
            ("Writes release notes", false),
        ] {
            let md = format!("---\nname: web\ndescription: {description:?}\n---\n");
            let (skill, _) = outcome(&md, "web");
            let skill = skill.unwrap();
            for profile in [ValidationProfile::Lenient, ValidationProfile::Spec] {
                let found: Vec<_> = profile
                    .check(&skill)
                    .into_iter()
                    .filter(|d| d.kind == DiagnosticKind::PlaceholderDescription)
                    .collect();
                assert_eq!(
                    found.len(),
                    usize::from(placeholder),
                    "{description:?} under {profile:?}"
                );
                assert!(!found.iter().any(|d| profile.fails(d)));
            }
        }
    }

    #[test]
    fn only_undefined_keys_are_unknown_fields() {
        let (skill, _) = outcome(
            "---\nname: web\ndescription: d\nlicense: MIT\nmetadata:\n  a: b\nversion: 2\nx-team: infra\n---\n",
            "web",
        );
        let found = ValidationProfile::Spec.check(&skill.unwrap());
        let keys: Vec<_> = found.iter().map(|d| d.message.split('`').nth(1).unwrap()).collect();
        assert_eq!(keys, ["version", "x-team"]);
        assert_eq!("spec".parse::<ValidationProfile>(), Ok(ValidationProfile::Spec));
        assert!("strict".parse::<ValidationProfile>().is_err());
    }
}

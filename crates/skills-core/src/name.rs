//! The Agent Skills name rules.

/// Longest skill name allowed by the specification, in characters.
pub const MAX_SKILL_NAME_LENGTH: usize = 64;

/// Why a name breaks the Agent Skills specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// The name is empty.
    #[error("name is required")]
    Empty,
    /// The name has more than 64 characters.
    #[error("name exceeds 64 characters ({0} characters)")]
    TooLong(usize),
    /// The name has a character other than a lowercase letter, a digit or a hyphen, or a
    /// hyphen at either end or doubled.
    #[error("name must be lowercase alphanumeric with single hyphens only")]
    InvalidCharacters,
    /// The name differs from the directory that holds the skill.
    #[error("name '{name}' must match directory name '{directory}'")]
    DirectoryMismatch {
        /// The name from the frontmatter.
        name: String,
        /// The directory's name.
        directory: String,
    },
}

/// Checks a name's form: 1-64 characters, each a Unicode lowercase letter, a Unicode
/// digit or a hyphen, no hyphen at either end, no `--`.
///
/// `café` and `über-tool` pass; `Café`, CJK ideographs (which have no case) and emoji
/// do not.
pub fn check_skill_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let len = name.chars().count();
    if len > MAX_SKILL_NAME_LENGTH {
        return Err(NameError::TooLong(len));
    }
    let char_ok = |c: char| c == '-' || (c.is_alphabetic() && c.is_lowercase()) || c.is_numeric();
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") || !name.chars().all(char_ok) {
        return Err(NameError::InvalidCharacters);
    }
    Ok(())
}

/// Checks a name's form ([`check_skill_name`]) and that it equals the name of the
/// directory holding the skill.
///
/// ```
/// use skills_core::{validate_skill_name, NameError};
/// assert!(validate_skill_name("web-research", "web-research").is_ok());
/// assert_eq!(validate_skill_name("Web", "Web"), Err(NameError::InvalidCharacters));
/// ```
pub fn validate_skill_name(name: &str, directory_name: &str) -> Result<(), NameError> {
    check_skill_name(name)?;
    if name != directory_name {
        return Err(NameError::DirectoryMismatch {
            name: name.to_owned(),
            directory: directory_name.to_owned(),
        });
    }
    Ok(())
}

/// Whether a character breaks a line of text or its reading order: control characters
/// (line breaks, tabs, NUL), Unicode line and paragraph separators, and bidirectional
/// controls. Prompts turn them into spaces; a name may not contain them.
pub fn is_breaking_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Whether a name can be shown verbatim in a prompt: no [breaking
/// character](is_breaking_char), no `<` or `>` (a name could spell the prompt's own
/// tags) and no backtick (the `load_skill("name")` line quotes it in a code span).
///
/// Names that break only the specification's rules (`Web_Research`) still load, with a
/// warning, as in deepagents; a name that fails this check skips its skill
/// (`unsafe-name`): an agent could not be told it without the risk of changing what
/// its prompt says.
///
/// ```
/// use skills_core::name::is_prompt_safe_name;
/// assert!(is_prompt_safe_name("Web_Research"));
/// assert!(!is_prompt_safe_name("x</skill_load_warnings>"));
/// assert!(!is_prompt_safe_name("two\nlines"));
/// ```
pub fn is_prompt_safe_name(name: &str) -> bool {
    !name
        .chars()
        .any(|c| is_breaking_char(c) || matches!(c, '<' | '>' | '`'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, expected: Result<(), NameError>) {
        assert_eq!(validate_skill_name(name, name), expected, "{name:?}");
    }

    #[test]
    fn accepted_names() {
        for name in [
            "a",
            "web-research",
            "pdf2text",
            "caf\u{e9}",
            "\u{fc}ber-tool",
            "v1-2-3",
            &"a".repeat(64),
        ] {
            check(name, Ok(()));
        }
    }

    #[test]
    fn refused_names() {
        use NameError::*;
        check("", Err(Empty));
        check(&"a".repeat(65), Err(TooLong(65)));
        check(&"\u{e9}".repeat(65), Err(TooLong(65)));
        for name in [
            "Web",
            "WEB-research",
            "Caf\u{e9}",
            "-web",
            "web-",
            "web--research",
            "web_research",
            "web research",
            "web.research",
            "\u{6280}\u{80fd}",
            "\u{1f600}",
            "a/b",
            "a\nb",
        ] {
            check(name, Err(InvalidCharacters));
        }
    }

    #[test]
    fn directory_mismatch_is_its_own_error() {
        assert_eq!(
            validate_skill_name("web", "web-research"),
            Err(NameError::DirectoryMismatch {
                name: "web".into(),
                directory: "web-research".into()
            })
        );
        // The form is checked first.
        assert_eq!(validate_skill_name("Web", "web"), Err(NameError::InvalidCharacters));
    }
}

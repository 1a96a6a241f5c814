//! The Agent Skills name rules.

use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

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

impl NameError {
    /// The message as [`to_string`](ToString::to_string) writes it, in a string of
    /// exactly its length: a flattened library gives most of its skills a
    /// `DirectoryMismatch`, whose message would otherwise be grown, then shrunk for
    /// keeping.
    pub(crate) fn message(&self) -> String {
        use std::fmt::Write as _;
        let len = match self {
            Self::DirectoryMismatch { name, directory } => MISMATCH_WORDS + name.len() + directory.len(),
            _ => 0,
        };
        let mut message = String::with_capacity(len);
        let _ = write!(message, "{self}");
        message
    }
}

/// The bytes of a `DirectoryMismatch` message besides the two names.
const MISMATCH_WORDS: usize = "name '' must match directory name ''".len();

/// Checks a name's form as the specification's reference library does: after NFKC
/// normalization, 1-64 characters, each alphanumeric (any script) or a hyphen, no
/// hyphen at either end, no `--`, and lowercase (a name equal to its own lowercase
/// form: scripts without case, such as Han, pass).
///
/// `café` (precomposed or with a combining accent), `über-tool`, `技能` and
/// `мой-навык` pass; `Café`, `НАВЫК`, `web_search` and emoji do not.
pub fn check_skill_name(name: &str) -> Result<(), NameError> {
    check_normalized(&normalized(name))
}

/// The NFKC form of `text`, the form names are compared in; ASCII is its own.
pub fn normalized(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

fn check_normalized(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.is_ascii() {
        return check_ascii(name.as_bytes());
    }
    check_chars(name)
}

/// [`check_normalized`] of a name in ASCII, the common case, in one pass over its bytes
/// (a server checks each of a library's names at its start: 40,000 at once).
fn check_ascii(name: &[u8]) -> Result<(), NameError> {
    if name.len() > MAX_SKILL_NAME_LENGTH {
        return Err(NameError::TooLong(name.len()));
    }
    // A hyphen before the first byte: a leading hyphen fails as a doubled one does.
    let mut last = b'-';
    for &byte in name {
        match byte {
            b'a'..=b'z' | b'0'..=b'9' => {}
            b'-' if last != b'-' => {}
            _ => return Err(NameError::InvalidCharacters),
        }
        last = byte;
    }
    if last == b'-' {
        return Err(NameError::InvalidCharacters);
    }
    Ok(())
}

/// [`check_normalized`] of any non-empty name, character by character.
fn check_chars(name: &str) -> Result<(), NameError> {
    let len = name.chars().count();
    if len > MAX_SKILL_NAME_LENGTH {
        return Err(NameError::TooLong(len));
    }
    let lowercase = name.is_ascii() && !name.bytes().any(|b| b.is_ascii_uppercase())
        || !name.is_ascii() && name.to_lowercase() == name;
    let char_ok = |c: char| c == '-' || c.is_alphanumeric();
    if !lowercase || name.starts_with('-') || name.ends_with('-') || name.contains("--") || !name.chars().all(char_ok) {
        return Err(NameError::InvalidCharacters);
    }
    Ok(())
}

/// Checks a name's form ([`check_skill_name`]) and that it equals the name of the
/// directory holding the skill, both compared in NFKC form.
///
/// ```
/// use skills_core::{validate_skill_name, NameError};
/// assert!(validate_skill_name("web-research", "web-research").is_ok());
/// assert!(validate_skill_name("cafe\u{301}", "caf\u{e9}").is_ok());
/// assert_eq!(validate_skill_name("Web", "Web"), Err(NameError::InvalidCharacters));
/// ```
pub fn validate_skill_name(name: &str, directory_name: &str) -> Result<(), NameError> {
    let name_form = normalized(name);
    check_normalized(&name_form)?;
    if name_form != normalized(directory_name) {
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
    if name.is_ascii() {
        // ASCII's breaking characters are its control characters.
        return !name
            .bytes()
            .any(|b| b.is_ascii_control() || matches!(b, b'<' | b'>' | b'`'));
    }
    is_prompt_safe_by_chars(name)
}

/// [`is_prompt_safe_name`] of any name, character by character.
fn is_prompt_safe_by_chars(name: &str) -> bool {
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
            // The reference library's cases: any script, lowercase where it has case.
            "\u{6280}\u{80fd}",
            "\u{43c}\u{43e}\u{439}-\u{43d}\u{430}\u{432}\u{44b}\u{43a}",
            "\u{43d}\u{430}\u{432}\u{44b}\u{43a}",
            "\u{661}\u{662}",
            // NFKC: a combining accent, a ligature.
            "cafe\u{301}",
            "\u{fb01}le",
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
            "\u{41d}\u{410}\u{412}\u{42b}\u{41a}",
            "\u{1f600}",
            "\u{2160}",
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
        // Both sides are compared in NFKC form: a decomposed name in a composed folder.
        assert_eq!(validate_skill_name("cafe\u{301}", "caf\u{e9}"), Ok(()));
        assert_eq!(validate_skill_name("caf\u{e9}", "cafe\u{301}"), Ok(()));
        assert!(validate_skill_name("\u{6280}\u{80fd}", "\u{6280}").is_err());
    }

    #[test]
    fn a_mismatch_message_is_sized_to_its_text() {
        let mismatch = NameError::DirectoryMismatch {
            name: "caf\u{e9}".into(),
            directory: "skills__x--caf\u{e9}".into(),
        };
        let message = mismatch.message();
        assert_eq!(message, mismatch.to_string());
        // No room over: the message is kept as it is made, not grown or shrunk.
        assert_eq!(message.capacity(), message.len());
        assert_eq!(
            NameError::InvalidCharacters.message(),
            NameError::InvalidCharacters.to_string()
        );
    }

    #[test]
    fn length_is_counted_after_normalization() {
        // 64 decomposed `é` are 128 characters as written and 64 once composed.
        let decomposed = "e\u{301}".repeat(64);
        assert_eq!(check_skill_name(&decomposed), Ok(()));
        assert_eq!(check_skill_name(&"e\u{301}".repeat(65)), Err(NameError::TooLong(65)));
    }

    /// Every string of up to four bytes over `alphabet`.
    fn strings_over(alphabet: &[u8]) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |&b| format!("{s}{}", b as char)))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn ascii_names_are_judged_as_character_by_character() {
        // Lowercase, uppercase, digit, hyphen, underscore, a tag's bracket, a backtick,
        // a control character, a space.
        let alphabet = b"aZ7-_<>`\x07 ";
        for name in strings_over(alphabet) {
            let by_chars = if name.is_empty() {
                Err(NameError::Empty)
            } else {
                check_chars(&name)
            };
            assert_eq!(check_skill_name(&name), by_chars, "{name:?}");
            assert_eq!(is_prompt_safe_name(&name), is_prompt_safe_by_chars(&name), "{name:?}");
        }
        for len in [63, 64, 65, 200] {
            let name = "a".repeat(len);
            assert_eq!(check_skill_name(&name), check_chars(&name), "{len}");
        }
    }
}

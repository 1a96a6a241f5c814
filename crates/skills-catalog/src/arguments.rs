//! A skill's arguments and their substitution into its instructions, as Claude Code
//! does it: `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` (0-based), `${SKILL_DIR}`.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The most characters of arguments one activation takes.
pub const MAX_ARGUMENTS_CHARS: usize = 16 * 1024;
/// The most arguments one activation takes.
pub const MAX_ARGUMENTS: usize = 256;

/// The arguments of a skill's activation: one string, split with shell-style quoting
/// (what a model or a person types), or a list taken as given (`skills load NAME --
/// ARG...`, a JSON array).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillArguments {
    /// `deploy "staging eu" 2.1`: split like a shell does (`shlex`).
    Text(String),
    /// Each argument as given.
    List(Vec<String>),
}

/// Why arguments cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentsError {
    /// A quote opened in the string is never closed.
    #[error("a quote is not closed")]
    UnclosedQuote,
    /// More than [`MAX_ARGUMENTS_CHARS`] characters or [`MAX_ARGUMENTS`] arguments.
    #[error("too long: at most {MAX_ARGUMENTS} arguments and {MAX_ARGUMENTS_CHARS} characters")]
    TooLong,
}

impl SkillArguments {
    /// The arguments one by one, and the whole text `$ARGUMENTS` stands for (a list is
    /// joined with spaces).
    ///
    /// ```
    /// use skills_catalog::SkillArguments;
    /// let args = SkillArguments::Text(r#"staging "eu west" 2.1"#.into());
    /// let (list, whole) = args.split().unwrap();
    /// assert_eq!(list, ["staging", "eu west", "2.1"]);
    /// assert_eq!(whole, r#"staging "eu west" 2.1"#);
    /// assert!(SkillArguments::Text("'open".into()).split().is_err());
    /// ```
    pub fn split(&self) -> Result<(Vec<String>, String), ArgumentsError> {
        let (list, whole) = match self {
            Self::Text(text) => {
                if text.chars().count() > MAX_ARGUMENTS_CHARS {
                    return Err(ArgumentsError::TooLong);
                }
                let list = shlex::split(text).ok_or(ArgumentsError::UnclosedQuote)?;
                (list, text.trim().to_owned())
            }
            Self::List(list) => (list.clone(), list.join(" ")),
        };
        if list.len() > MAX_ARGUMENTS || whole.chars().count() > MAX_ARGUMENTS_CHARS {
            return Err(ArgumentsError::TooLong);
        }
        Ok((list, whole))
    }
}

/// What to put into a skill's instructions.
#[derive(Debug, Clone, Copy)]
pub struct Substitution<'a> {
    /// The arguments one by one and as one text; `None` leaves argument placeholders
    /// as written.
    pub arguments: Option<(&'a [String], &'a str)>,
    /// The skill's folder, as the agent's file tools see it.
    pub skill_dir: &'a str,
}

/// `text` with its placeholders substituted in one pass (a value is never expanded
/// again):
///
/// - `${SKILL_DIR}` (or `${CLAUDE_SKILL_DIR}`): the skill's folder, always;
/// - with arguments: `$ARGUMENTS` is all of them as one text, `$ARGUMENTS[N]` and `$N`
///   the argument at N, counted from 0; a placeholder past the last argument stays as
///   written; when the text has no argument placeholder (an escaped one does not
///   count) and there are
///   arguments, `ARGUMENTS: <text>` is appended;
/// - a backslash before a placeholder (`\$0`, `\${SKILL_DIR}`) keeps the placeholder
///   as written, without the backslash; any other `\$` (`\$HOME`) is left alone, so
///   shell snippets keep their escapes.
///
/// ```
/// use skills_catalog::{Substitution, substitute};
/// let args = ["prod".to_owned(), "v2".to_owned()];
/// let with = Substitution { arguments: Some((&args, "prod v2")), skill_dir: "/skills/deploy" };
/// assert_eq!(
///     substitute("Deploy $1 to $0 ($ARGUMENTS), costs \\$5, run ${SKILL_DIR}/go.sh $7", with),
///     "Deploy v2 to prod (prod v2), costs $5, run /skills/deploy/go.sh $7"
/// );
/// assert_eq!(substitute("Deploy.", with), "Deploy.\n\nARGUMENTS: prod v2");
/// ```
pub fn substitute(text: &str, with: Substitution<'_>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut used_arguments = false;
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let escaped = rest[..at].ends_with('\\');
        let before = if escaped { &rest[..at - 1] } else { &rest[..at] };
        out.push_str(before);
        let tail = &rest[at..];
        let Some((placeholder, len)) = placeholder(tail) else {
            if escaped {
                out.push('\\');
            }
            out.push('$');
            rest = &tail[1..];
            continue;
        };
        let written = &tail[..len];
        rest = &tail[len..];
        if escaped {
            out.push_str(written);
            continue;
        }
        if !matches!(placeholder, Placeholder::SkillDir) {
            used_arguments = true;
        }
        let value = match (placeholder, with.arguments) {
            (Placeholder::SkillDir, _) => Some(with.skill_dir),
            (_, None) => None,
            (Placeholder::All, Some((_, whole))) => Some(whole),
            (Placeholder::At(n), Some((list, _))) => list.get(n).map(String::as_str),
        };
        out.push_str(value.unwrap_or(written));
    }
    out.push_str(rest);
    if let Some((list, whole)) = with.arguments
        && !used_arguments
        && !list.is_empty()
    {
        let _ = write!(out, "\n\nARGUMENTS: {whole}");
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Placeholder {
    SkillDir,
    All,
    At(usize),
}

/// The placeholder `text` (starting at a `$`) opens with, and its length.
fn placeholder(text: &str) -> Option<(Placeholder, usize)> {
    for written in ["${SKILL_DIR}", "${CLAUDE_SKILL_DIR}"] {
        if text.starts_with(written) {
            return Some((Placeholder::SkillDir, written.len()));
        }
    }
    if let Some(after) = text.strip_prefix("$ARGUMENTS") {
        if let Some(index) = after.strip_prefix('[') {
            let digits = index.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && index[digits..].starts_with(']') {
                let n = index[..digits].parse().unwrap_or(usize::MAX);
                return Some((Placeholder::At(n), "$ARGUMENTS[".len() + digits + 1));
            }
        }
        let word_goes_on = after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        return (!word_goes_on).then_some((Placeholder::All, "$ARGUMENTS".len()));
    }
    let digits = text[1..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n = text[1..=digits].parse().unwrap_or(usize::MAX);
    Some((Placeholder::At(n), 1 + digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(list: &'a [String], whole: &'a str) -> Substitution<'a> {
        Substitution {
            arguments: Some((list, whole)),
            skill_dir: "/skills/s",
        }
    }

    fn args(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn arguments_whole_indexed_and_positional_are_zero_based() {
        let list = args(&["a", "b c"]);
        let w = with(&list, "a \"b c\"");
        assert_eq!(substitute("$ARGUMENTS", w), "a \"b c\"");
        assert_eq!(substitute("$ARGUMENTS[0]|$ARGUMENTS[1]", w), "a|b c");
        assert_eq!(substitute("$0-$1", w), "a-b c");
    }

    #[test]
    fn placeholders_past_the_last_argument_stay_as_written() {
        let list = args(&["a"]);
        let w = with(&list, "a");
        assert_eq!(substitute("$7 $ARGUMENTS[3] $0", w), "$7 $ARGUMENTS[3] a");
        assert_eq!(substitute("$99999999999999999999999", w), "$99999999999999999999999");
    }

    #[test]
    fn values_are_never_expanded_again() {
        let list = args(&["$1", "${SKILL_DIR}"]);
        let w = with(&list, "$1 ${SKILL_DIR}");
        assert_eq!(substitute("$0 $1 $ARGUMENTS", w), "$1 ${SKILL_DIR} $1 ${SKILL_DIR}");
    }

    #[test]
    fn a_backslash_keeps_a_placeholder_and_leaves_other_escapes_alone() {
        let list = args(&["x"]);
        let w = with(&list, "x");
        assert_eq!(
            substitute(r"\$0 \$ARGUMENTS \${SKILL_DIR} \$HOME $", w),
            "$0 $ARGUMENTS ${SKILL_DIR} \\$HOME $\n\nARGUMENTS: x"
        );
    }

    #[test]
    fn skill_dir_and_its_alias_are_replaced_even_without_arguments() {
        let none = Substitution {
            arguments: None,
            skill_dir: "/skills/s",
        };
        assert_eq!(
            substitute("${SKILL_DIR}/a ${CLAUDE_SKILL_DIR}/b $0 $ARGUMENTS", none),
            "/skills/s/a /skills/s/b $0 $ARGUMENTS"
        );
    }

    #[test]
    fn arguments_are_appended_only_when_no_placeholder_takes_them() {
        let list = args(&["x", "y"]);
        assert_eq!(substitute("Go.", with(&list, "x y")), "Go.\n\nARGUMENTS: x y");
        assert_eq!(substitute("Go $1.", with(&list, "x y")), "Go y.");
        assert_eq!(
            substitute("Go $7.", with(&list, "x y")),
            "Go $7.",
            "a placeholder was written"
        );
        assert_eq!(
            substitute("Go.", with(&[], "")),
            "Go.",
            "no arguments, nothing appended"
        );
        assert_eq!(
            substitute("$ARGUMENTSX", with(&list, "x y")),
            "$ARGUMENTSX\n\nARGUMENTS: x y"
        );
        assert_eq!(
            substitute(r"Use \$0.", with(&list, "x y")),
            "Use $0.\n\nARGUMENTS: x y",
            "an escaped placeholder takes no argument"
        );
    }

    #[test]
    fn strings_split_like_a_shell_and_lists_are_taken_as_given() {
        let (list, whole) = SkillArguments::Text(" a 'b c' \"d\\\"e\" ".into()).split().unwrap();
        assert_eq!(list, ["a", "b c", "d\"e"]);
        assert_eq!(whole, "a 'b c' \"d\\\"e\"");
        let (list, whole) = SkillArguments::List(args(&["a b", "'c"])).split().unwrap();
        assert_eq!(list, ["a b", "'c"]);
        assert_eq!(whole, "a b 'c");
        assert_eq!(
            SkillArguments::Text("\"x".into()).split(),
            Err(ArgumentsError::UnclosedQuote)
        );
        let long = "a ".repeat(MAX_ARGUMENTS + 1);
        assert_eq!(SkillArguments::Text(long).split(), Err(ArgumentsError::TooLong));
    }
}

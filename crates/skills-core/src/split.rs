//! Splitting a frontmatter string into a list, keeping bracketed parts whole.

/// Splits an `allowed-tools` string on whitespace and commas, keeping parenthesized
/// arguments whole: `"Bash(git add:*), Read"` is `["Bash(git add:*)", "Read"]`.
pub fn split_tools(text: &str) -> Vec<String> {
    split_outside(text, ('(', ')'), |c| c == ',' || c.is_whitespace())
}

/// Splits `text` where `separator` says, except between the `brackets` (nested), and
/// drops the empty pieces; the pieces are trimmed.
pub(crate) fn split_outside(text: &str, brackets: (char, char), separator: impl Fn(char) -> bool) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut push = |piece: &str| {
        let piece = piece.trim();
        if !piece.is_empty() {
            pieces.push(piece.to_owned());
        }
    };
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == brackets.0 {
            depth += 1;
        } else if c == brackets.1 {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && separator(c) {
            // Each piece is a slice of `text`, copied once when kept.
            push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn tools_split_outside_their_arguments() {
        let cases: &[(&str, &[&str])] = &[
            ("Bash(git add:*), Read", &["Bash(git add:*)", "Read"]),
            ("Read Grep\tGlob,,Write", &["Read", "Grep", "Glob", "Write"]),
            ("Bash(a (b, c) d) Edit", &["Bash(a (b, c) d)", "Edit"]),
            ("Bash(unclosed, still one", &["Bash(unclosed, still one"]),
            (") Read", &[")", "Read"]),
            ("  ", &[]),
            ("", &[]),
            ("Ünï\u{3000}cödé(ü ü)", &["Ünï", "cödé(ü ü)"]),
        ];
        for (text, expected) in cases {
            assert_eq!(split_tools(text), *expected, "{text:?}");
        }
    }

    /// The rule as first written: a piece grown a character at a time.
    fn split_as_said(text: &str, brackets: (char, char), separator: impl Fn(char) -> bool) -> Vec<String> {
        let mut pieces = Vec::new();
        let mut current = String::new();
        let mut depth = 0usize;
        for c in text.chars() {
            if c == brackets.0 {
                depth += 1;
            } else if c == brackets.1 {
                depth = depth.saturating_sub(1);
            } else if depth == 0 && separator(c) {
                pieces.push(current.trim().to_owned());
                current.clear();
                continue;
            }
            current.push(c);
        }
        pieces.push(current.trim().to_owned());
        pieces.retain(|p| !p.is_empty());
        pieces
    }

    proptest! {
        #[test]
        fn slices_split_as_characters_do(text in "[a-z(){} ,\t\u{3000}é:*]{0,40}") {
            let tools = |c: char| c == ',' || c.is_whitespace();
            prop_assert_eq!(split_outside(&text, ('(', ')'), tools), split_as_said(&text, ('(', ')'), tools));
            prop_assert_eq!(split_outside(&text, ('{', '}'), |c| c == ','), split_as_said(&text, ('{', '}'), |c| c == ','));
        }
    }
}

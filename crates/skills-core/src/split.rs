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
    let mut current = String::new();
    let mut depth = 0usize;
    let mut flush = |current: &mut String| {
        let piece = current.trim();
        if !piece.is_empty() {
            pieces.push(piece.to_owned());
        }
        current.clear();
    };
    for c in text.chars() {
        if c == brackets.0 {
            depth += 1;
        } else if c == brackets.1 {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && separator(c) {
            flush(&mut current);
            continue;
        }
        current.push(c);
    }
    flush(&mut current);
    pieces
}

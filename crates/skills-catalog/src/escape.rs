//! Untrusted text on its way into a prompt: one line, no markup it could use to pass
//! for instructions.

/// Characters of one untrusted value shown in the prompt at most.
pub const MAX_PROMPT_FIELD_CHARS: usize = 1024;

/// Makes untrusted text safe to place inside one line of the prompt:
///
/// - line breaks, tabs and other control characters, Unicode line and paragraph
///   separators and bidirectional controls become spaces, so the text cannot start a
///   heading, a list item, a new block or a fake closing tag on a line of its own;
/// - `\`, `` ` ``, `<`, `>` and runs of `*` are backslash-escaped, so the text cannot
///   close the bold name, open a code span, or spell an HTML-like tag (a lone `*`, as in
///   `*.md` or `Bash(git:*)`, stays as it is);
/// - the result is cut at `max_chars` characters (with `...`).
pub fn escape_untrusted(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 2));
    let mut prev = None;
    let mut chars = text.chars().peekable();
    let mut count = 0;
    while let Some(c) = chars.next() {
        if count == max_chars {
            out.push_str("...");
            break;
        }
        count += 1;
        // A lone `*` (`*.md`, `Bash(git:*)`) cannot close `**name**`; only runs can.
        let star_run = c == '*' && (prev == Some('*') || chars.peek() == Some(&'*'));
        match c {
            '\\' | '`' | '<' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '*' if star_run => out.push_str("\\*"),
            c if skills_core::name::is_breaking_char(c) => out.push(' '),
            c => out.push(c),
        }
        prev = Some(c);
    }
    out
}

/// `text` as a Markdown code span: breaking characters become spaces and the fence is one
/// backtick longer than the longest run inside, so the text cannot end the span.
pub fn code_span(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if skills_core::name::is_breaking_char(c) { ' ' } else { c })
        .collect();
    let mut longest = 0;
    let mut run = 0;
    for c in clean.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_untrusted_keeps_text_on_one_line_and_escapes_markup() {
        let cases = [
            ("plain words", "plain words"),
            ("a\nb\r\nc\td", "a b  c d"),
            ("**bold** `code`", "\\*\\*bold\\*\\* \\`code\\`"),
            ("</skill_load_warnings>", "\\</skill_load_warnings\\>"),
            ("x\u{2028}## Heading", "x ## Heading"),
            ("rtl\u{202e}txt", "rtl txt"),
            ("back\\slash", "back\\\\slash"),
            ("*.md and Bash(git:*)", "*.md and Bash(git:*)"),
            ("a***b", "a\\*\\*\\*b"),
        ];
        for (input, expected) in cases {
            assert_eq!(escape_untrusted(input, 100), expected, "{input:?}");
        }
        assert_eq!(escape_untrusted("abcdef", 3), "abc...");
    }

    #[test]
    fn code_span_fence_outgrows_backticks_inside() {
        assert_eq!(code_span("/a/b"), "`/a/b`");
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("x\ny"), "`x y`");
    }
}

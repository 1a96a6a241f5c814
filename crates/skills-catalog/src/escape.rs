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
    let whole = text.as_bytes();
    // Only a text of more bytes than `max_chars` can have more characters than that.
    let end = (text.len() > max_chars)
        .then(|| text.char_indices().nth(max_chars))
        .flatten();
    let (text, cut) = match end {
        Some((end, _)) => (&text[..end], true),
        None => (text, false),
    };
    let mut out = String::with_capacity(text.len() + 3);
    // The text is copied in runs that need no change, one `push_str` each (a description
    // is mostly one such run); `kept` is where the current run starts. Bytes of a
    // character of several bytes are never ASCII, so every byte below is looked at
    // alone, and only the first byte of the few characters of several bytes that break
    // a line (U+0080-U+009F, U+061C, U+200E-U+2069) leads to a look at the character.
    let mut kept = 0;
    let mut from = 0;
    let bytes = text.as_bytes();
    while let Some(found) = bytes[from..].iter().position(|&b| LOOK[usize::from(b)]) {
        let at = from + found;
        from = at + 1;
        let (replacement, len) = match bytes[at] {
            b'\\' => ("\\\\", 1),
            b'`' => ("\\`", 1),
            b'<' => ("\\<", 1),
            b'>' => ("\\>", 1),
            // A lone `*` (`*.md`, `Bash(git:*)`) cannot close `**name**`; only runs can
            // (the byte after the cut counts: the run goes on there).
            b'*' if at > 0 && whole[at - 1] == b'*' || whole.get(at + 1) == Some(&b'*') => ("\\*", 1),
            b'*' => continue,
            0..=0x7f => (" ", 1),
            _ => match text[at..].chars().next() {
                Some(c) if skills_core::name::is_breaking_char(c) => (" ", c.len_utf8()),
                _ => continue,
            },
        };
        out.push_str(&text[kept..at]);
        out.push_str(replacement);
        kept = at + len;
    }
    out.push_str(&text[kept..]);
    if cut {
        out.push_str("...");
    }
    out
}

/// The bytes [`escape_untrusted`] looks at: ASCII controls, `\\`, `` ` ``, `<`, `>` and
/// `*`, and the first bytes of the characters of several bytes that can break a line.
static LOOK: [bool; 256] = {
    let mut look = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        look[byte] = may_break(byte as u8);
        byte += 1;
    }
    let mut i = 0;
    let escaped = [b'\\', b'`', b'<', b'>', b'*'];
    while i < escaped.len() {
        look[escaped[i] as usize] = true;
        i += 1;
    }
    look
};

/// `text` as a Markdown code span: breaking characters become spaces and the fence is one
/// backtick longer than the longest run inside, so the text cannot end the span.
pub fn code_span(text: &str) -> String {
    // Most text has no byte that could start a breaking character and is taken as it is.
    let clean: std::borrow::Cow<'_, str> = if text.bytes().any(may_break) {
        text.chars()
            .map(|c| if skills_core::name::is_breaking_char(c) { ' ' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    };
    let mut longest = 0;
    let mut run = 0;
    for byte in clean.bytes() {
        run = if byte == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let pad = if longest > 0 { " " } else { "" };
    let fence = || std::iter::repeat_n('`', longest + 1);
    let mut span = String::with_capacity(clean.len() + 2 * (longest + 2));
    span.extend(fence());
    span.extend([pad, &clean, pad]);
    span.extend(fence());
    span
}

/// Whether `byte` is, or may start, a [breaking character](skills_core::name::is_breaking_char):
/// an ASCII control, or the first byte of U+0080-U+009F, U+061C or U+200E-U+2069.
const fn may_break(byte: u8) -> bool {
    byte < 0x20 || matches!(byte, 0x7f | 0xc2 | 0xd8 | 0xe2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Random;

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

    /// The escaping as it was written first, a character at a time: what the runs must
    /// give.
    fn escape_char_by_char(text: &str, max_chars: usize) -> String {
        let mut out = String::new();
        let mut prev = None;
        let mut chars = text.chars().peekable();
        let mut count = 0;
        while let Some(c) = chars.next() {
            if count == max_chars {
                out.push_str("...");
                break;
            }
            count += 1;
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

    #[test]
    fn escaping_in_runs_gives_what_escaping_each_character_gives() {
        // Characters of every kind the escaping tells apart: plain ASCII, each escaped
        // one, stars alone and in runs, controls, several bytes long (plain and
        // breaking), and four bytes long.
        const PARTS: &[&str] = &[
            "a", "Z", " ", "-", "\\", "`", "<", ">", "*", "**", "\n", "\t", "\u{7f}", "\u{85}", "é", "技", "\u{2028}",
            "\u{202e}", "\u{2066}", "\u{200e}", "\u{061c}", "😀", "*é", "é*",
            // Led by the same bytes as breaking ones, and not breaking.
            "\u{a0}", "\u{620}", "€", "…", "\u{2065}", "\u{206a}",
        ];
        let mut random = Random(0x2026_1128);
        for _ in 0..20_000 {
            let text = random.text(PARTS, 24);
            let max_chars = random.below(30);
            assert_eq!(
                escape_untrusted(&text, max_chars),
                escape_char_by_char(&text, max_chars),
                "{text:?} at {max_chars}"
            );
        }
    }

    #[test]
    fn a_code_span_is_what_the_text_cleaned_a_character_at_a_time_gives() {
        let reference = |text: &str| {
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
        };
        const PARTS: &[&str] = &[
            "a", " ", "`", "``", "\n", "\u{7f}", "\u{85}", "\u{a0}", "\u{61c}", "\u{620}", "\u{2028}", "…", "技", "😀",
        ];
        let mut random = Random(0x000c_0de5_ba11);
        for _ in 0..10_000 {
            let text = random.text(PARTS, 12);
            assert_eq!(code_span(&text), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn code_span_fence_outgrows_backticks_inside() {
        assert_eq!(code_span("/a/b"), "`/a/b`");
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("x\ny"), "`x y`");
    }
}

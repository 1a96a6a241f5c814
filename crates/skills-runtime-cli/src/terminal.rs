//! Text from skill files on a terminal: a description, a file name or a value can hold
//! control characters (`ESC [2J` clears the screen, an OSC sequence sets the window's
//! title or the clipboard) and bidirectional controls (which reorder what is shown), and
//! a terminal obeys them. Every line the CLI prints for a person shows them as escapes
//! instead; JSON output escapes control characters itself.

use std::borrow::Cow;
use std::io::IsTerminal as _;

/// Whether `c` would act on a terminal instead of showing: a control character other
/// than a line break or a tab, or a bidirectional embedding, override or isolate.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each character that would act on a terminal written as an escape
/// (`\x1b`, `\u{202e}`); borrowed when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    // Most text is ASCII without a control character: told byte by byte.
    let quiet = if text.is_ascii() {
        !text
            .bytes()
            .any(|b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
    } else {
        !text.chars().any(acts)
    };
    if quiet {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !acts(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// `text` as printed on standard output: [`visible`] when that is a terminal, as it is
/// when piped (what `skills load` and `skills prompt` print is what a model reads, byte
/// for byte).
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    if std::io::stdout().is_terminal() {
        visible(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as printed on standard error: see [`for_stdout`].
pub fn for_stderr(text: &str) -> Cow<'_, str> {
    if std::io::stderr().is_terminal() {
        visible(text)
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn what_would_act_on_a_terminal_is_shown_as_an_escape() {
        assert_eq!(
            visible("plain text\twith a tab\nand a line"),
            "plain text\twith a tab\nand a line"
        );
        assert!(matches!(
            visible("caf\u{e9} \u{4e2d}\u{6587}"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(visible("a\u{1b}[2Jb"), "a\\x1b[2Jb");
        assert_eq!(visible("\u{7f}\u{9b}\r"), "\\x7f\\x9b\\x0d");
        assert_eq!(visible("txt.\u{202e}fdp"), "txt.\\u{202e}fdp");
        assert_eq!(visible("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }
}

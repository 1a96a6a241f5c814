//! Text as a JSON string, written without `serde_json`'s byte-at-a-time escaping.

/// `text` as a JSON string, escaped as `serde_json` escapes it: `"` and `\`, the
/// control characters below U+0020 (`\n`, `\t` and the like where JSON has a short
/// form, `\u00XX` otherwise), nothing else. Eight bytes are checked at a time.
pub(super) fn push_text(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8)
            && !needs_escape(u64::from_le_bytes(word.try_into().unwrap_or_default()))
        {
            at += 8;
            continue;
        }
        let byte = bytes[at];
        if byte < 0x20 || byte == b'"' || byte == b'\\' {
            out.extend_from_slice(&bytes[start..at]);
            push_escape(out, byte);
            start = at + 1;
        }
        at += 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Whether any of the eight bytes of `word` is below 0x20, `"` or `\` (each test is the
/// classic one for a byte below a bound, exact about whether there is one). A word it
/// flags goes through the byte-by-byte check.
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    (below_space | zero_byte(word ^ (ONES * u64::from(b'"'))) | zero_byte(word ^ (ONES * u64::from(b'\\')))) != 0
}

fn push_escape(out: &mut Vec<u8>, byte: u8) {
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(text: &str) -> String {
        let mut out = Vec::new();
        push_text(&mut out, text);
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
    }

    fn theirs(text: &str) -> String {
        serde_json::to_string(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Whether `byte` is one JSON text must escape.
    fn escaped(byte: u8) -> bool {
        byte < 0x20 || byte == b'"' || byte == b'\\'
    }

    #[test]
    fn text_is_escaped_as_serde_json_escapes_it() {
        // Every ASCII character at every place of texts from 1 to 19 bytes long (the
        // word-at-a-time check's edges), alone and twice.
        for byte in 0..0x80u8 {
            let c = char::from(byte);
            for len in 1..20 {
                for at in 0..len {
                    let mut text: String = "abcdefghijklmnopqrs".chars().take(len).collect();
                    text.replace_range(at..=at, &c.to_string());
                    assert_eq!(ours(&text), theirs(&text), "{text:?}");
                    text.push(c);
                    assert_eq!(ours(&text), theirs(&text), "{text:?}");
                }
            }
        }
        for text in [
            "",
            "é",
            "ascii then 中文 then \"quoted\"\n",
            "\u{7f}\u{80}\u{ff}\u{2028}\u{fffd}😀 trailing\\",
            "tab\tcr\rff\u{c}bs\u{8}nul\0unit\u{1f}",
            "a description long enough to be checked a word at a time, with \"one\" quote near its end.",
        ] {
            assert_eq!(ours(text), theirs(text), "{text:?}");
        }
    }

    #[test]
    fn a_word_is_flagged_exactly_when_one_of_its_bytes_needs_escaping() {
        let exact = |word: u64| word.to_le_bytes().into_iter().any(escaped);
        // One byte of every value at every place, among bytes near the bounds.
        for filler in [b'a', b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xff] {
            for byte in 0..=u8::MAX {
                for at in 0..8 {
                    let mut bytes = [filler; 8];
                    bytes[at] = byte;
                    let word = u64::from_le_bytes(bytes);
                    assert_eq!(needs_escape(word), exact(word), "{bytes:?}");
                }
            }
        }
        // And words of any bytes.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            assert_eq!(needs_escape(state), exact(state), "{:?}", state.to_le_bytes());
        }
    }
}

//! A UTF-8 check for the many short strings a process reads: names in a folder, paths
//! and words decoded from the persistent cache.
//!
//! Most of them are short and ASCII (folder names, paths, diagnostic kinds, frontmatter
//! keys, an index's words); for those, the standard library's check (and `simdutf8`,
//! which hands short strings over to it) spent about a hundred instructions a string
//! before it looked at a byte (a tenth of a warm agentskillexchange start's decoding,
//! by `callgrind`). `is_ascii` checks them a word at a time.
//!
//! ```
//! use skills_core::utf8::checked;
//! assert_eq!(checked(b"pdf-tools"), Some("pdf-tools"));
//! assert_eq!(checked("caf\u{e9}".as_bytes()), Some("caf\u{e9}"));
//! assert_eq!(checked(b"\xff\xfe"), None);
//! ```

/// `bytes` as text, if they are UTF-8.
pub fn checked(bytes: &[u8]) -> Option<&str> {
    if bytes.len() < SHORT_TEXT && bytes.is_ascii() {
        // SAFETY: every ASCII byte string is UTF-8.
        #[allow(unsafe_code)]
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    simdutf8::basic::from_utf8(bytes).ok()
}

/// Below this length `simdutf8` uses the standard library's check; from it on, its own
/// vector code is the faster check.
const SHORT_TEXT: usize = 64;

#[cfg(test)]
mod tests {
    use super::checked;

    #[test]
    fn agrees_with_the_standard_check_on_both_sides_of_the_short_length() {
        let long_han = "\u{6280}\u{80fd}".repeat(20);
        let texts: [&[u8]; 9] = [
            b"",
            b"a",
            &[b'x'; 63],
            &[b'x'; 64],
            "\u{e9}t\u{e9}".as_bytes(),
            &[0xc3],
            b"ok\xc3",
            &[0x80; 70],
            long_han.as_bytes(),
        ];
        for bytes in texts {
            assert_eq!(checked(bytes), std::str::from_utf8(bytes).ok(), "{bytes:?}");
        }
    }
}

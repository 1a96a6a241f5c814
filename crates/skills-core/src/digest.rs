//! SHA-256 digests as the MCP skills extension, lockfiles and indexes write them.

use sha2::{Digest as _, Sha256};

/// `sha256:` and the 64 lowercase hex digits of `bytes`' SHA-256.
///
/// ```
/// assert_eq!(
///     skills_core::digest::sha256_text(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn sha256_text(bytes: &[u8]) -> String {
    text_of(&Sha256::digest(bytes).into())
}

/// The 32 bytes of `bytes`' SHA-256.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// `sha256:<hex>` of a digest.
pub fn text_of(digest: &[u8; 32]) -> String {
    use std::fmt::Write as _;
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in digest {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// One digest of a list of files, `(path, digest, size)` in the order given: equal lists,
/// equal digests. What a published index's version and a lock's content version are.
///
/// ```
/// use skills_core::digest::files_digest;
/// let a = files_digest([("web/SKILL.md", "sha256:00", 3)]);
/// assert_eq!(a, files_digest([("web/SKILL.md", "sha256:00", 3)]));
/// assert_ne!(a, files_digest([("web/SKILL.md", "sha256:00", 4)]));
/// ```
pub fn files_digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a str, u64)>) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for (path, digest, size) in files {
        let _ = writeln!(text, "{path} {digest} {size}");
    }
    sha256_text(text.as_bytes())
}

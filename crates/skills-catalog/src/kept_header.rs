//! [`KeptHeader`]: what a kept listing says of itself before its payload.

/// What a kept listing's key ends with after the files' digest when the walk was made
/// at a revision of the backend.
const REVISION_LINE: &str = "\nat ";

/// What a kept listing says of itself before its payload: for which files it was kept,
/// and at which revision of its backend they were walked, if the backend names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptHeader {
    /// The digest of the files' paths and etags.
    pub(crate) digest: u128,
    /// The backend's [`revision`](skills_core::BackendProtocol::revision) when the
    /// files were walked.
    pub(crate) revision: Option<String>,
}

impl KeptHeader {
    /// The header of a listing kept for the files of `digest` walked at `revision`; a
    /// revision that cannot be written on one line is left out (the listing is then
    /// taken only after a walk).
    pub(crate) fn new(digest: u128, revision: Option<&str>) -> Self {
        let revision = revision.filter(|r| !r.is_empty() && !r.contains(['\n', '\r']));
        Self {
            digest,
            revision: revision.map(str::to_owned),
        }
    }

    /// What the listing's key holds after `listing of `, which [`parse`](Self::parse)
    /// reads back.
    pub(crate) fn key(&self) -> String {
        let mut key = format!("{:032x}", self.digest);
        if let Some(revision) = &self.revision {
            key.push_str(REVISION_LINE);
            key.push_str(revision);
        }
        key
    }

    /// The header from what a listing's key holds after `listing of `: the digest in 32
    /// hexadecimal digits, then the revision's line if any.
    pub(crate) fn parse(rest: &str) -> Option<Self> {
        let (digest, revision) = match rest.split_at_checked(32)? {
            (digest, "") => (digest, None),
            (digest, line) => (digest, Some(line.strip_prefix(REVISION_LINE)?)),
        };
        if !digest.bytes().all(|b| b.is_ascii_hexdigit()) || revision.is_some_and(str::is_empty) {
            return None;
        }
        Some(Self {
            digest: u128::from_str_radix(digest, 16).ok()?,
            revision: revision.map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::KeptHeader;

    #[test]
    fn a_kept_header_names_the_revision_its_files_were_walked_at() {
        let digest = format!("{:032x}", 7u128);
        let parse = |rest: &str| KeptHeader::parse(rest);
        assert_eq!(
            parse(&digest),
            Some(KeptHeader {
                digest: 7,
                revision: None
            })
        );
        assert_eq!(
            parse(&format!("{digest}\nat git:abc")),
            Some(KeptHeader {
                digest: 7,
                revision: Some("git:abc".into())
            })
        );
        // What is written is read back; a revision that is not one line is left out.
        for header in [
            KeptHeader::new(7, None),
            KeptHeader::new(u128::MAX, Some("git:0123abcd")),
        ] {
            assert_eq!(parse(&header.key()), Some(header));
        }
        assert_eq!(KeptHeader::new(7, Some("git:a\nat git:b")), KeptHeader::new(7, None));
        assert_eq!(KeptHeader::new(7, Some("")).key(), digest);
        // Anything else after the digest, a short or non-hexadecimal digest, an empty
        // revision: not a header, the listing is ignored.
        for bad in [
            format!("{digest}x"),
            format!("{digest}\nat "),
            format!("{digest}\nby git:abc"),
            digest[1..].to_owned(),
            format!("{}g", &digest[1..]),
            String::new(),
        ] {
            assert_eq!(parse(&bad), None, "{bad:?}");
        }
    }
}

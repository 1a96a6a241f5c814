//! [`KeptHeader`]: what a kept listing says of itself before its payload.

/// What a kept listing's key ends with after the files' digest when the walk was made
/// at a revision of the backend.
pub(crate) const REVISION_LINE: &str = "\nat ";

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

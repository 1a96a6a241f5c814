//! What the backend remembers of the objects it listed, and path helpers.

use std::collections::BTreeMap;

use skills_core::FileInfo;

/// What the backend remembers of an object.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) size: u64,
    pub(crate) fingerprint: String,
}

/// The entries of `seen` strictly under directory `dir`.
pub(crate) fn under<'a>(seen: &'a BTreeMap<String, Seen>, dir: &str) -> impl Iterator<Item = (&'a String, &'a Seen)> {
    let start = if dir == "/" { "/".to_owned() } else { format!("{dir}/") };
    seen.range(start.clone()..)
        .take_while(move |(path, _)| path.starts_with(&start))
}

/// An object's content fingerprint: its ETag, else its size and modification time.
pub(crate) fn fingerprint(file: &FileInfo) -> String {
    match &file.etag {
        Some(etag) => etag.clone(),
        None => format!("{}-{:?}", file.size, file.modified_at),
    }
}

/// The number of components of a normalized path (`/` is 0, `/a/b` is 2).
pub(crate) fn depth(path: &str) -> usize {
    path.split('/').filter(|part| !part.is_empty()).count()
}

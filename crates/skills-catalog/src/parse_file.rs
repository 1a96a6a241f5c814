//! [`ParseFile`]: where a first discovery's parses go as they are read
//! ([`SkillCatalog::spill_parses`](crate::SkillCatalog)).

use std::sync::{Arc, Mutex};

use crate::cache_file::CacheFileWriter;

/// The cache file a first discovery's parses go to as they are read: shared with the
/// cache's sink, and taken out of it to be finished.
pub(crate) struct ParseFile(pub(crate) Arc<Mutex<Option<CacheFileWriter>>>);

impl std::fmt::Debug for ParseFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseFile").finish_non_exhaustive()
    }
}

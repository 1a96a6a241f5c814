//! [`ParseFile`]: where a first discovery's parses go as they are read
//! ([`SkillCatalog::spill_parses`](crate::SkillCatalog)).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::cache_file::CacheFileWriter;

/// The cache file a first discovery's parses go to as they are read.
pub(crate) struct ParseFile {
    pub(crate) writer: Arc<Mutex<Option<CacheFileWriter>>>,
    pub(crate) file: PathBuf,
}

impl std::fmt::Debug for ParseFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseFile").field("file", &self.file).finish()
    }
}

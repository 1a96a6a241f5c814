//! A [`ParseCache`] kept in a file between processes: [`ParseCache::save`] and
//! [`ParseCache::load`].
//!
//! The file is a text header and a binary payload:
//!
//! ```text
//! agent-skills parse cache
//! 2                                  the format's version
//! "<key>"                            what the entries are valid for (JSON string)
//! <payload bytes> <payload SHA-256>
//! payload := u32 count entry*        (by path)
//! entry   := str path str etag u32 length outcome
//! ```
//!
//! `outcome` is [`cache_codec`](crate::cache_codec)'s encoding, decoded only when
//! discovery uses it; the entries stay in the file's bytes ([`crate::cache_base`]). The
//! search index's words for the instructions are a file of their own beside it
//! (`.words`: `u32 count (str path str etag str words)*`), read only by a search: a
//! listing does not hold them.
//!
//! A file that is not exactly that (another format or key, a length or checksum that does
//! not match, entries that do not parse) is refused as a whole, so a damaged cache costs
//! a cold start and never changes an answer. It is written to a temporary file in the
//! same folder and renamed over the old one: a reader sees the old file or the new one,
//! never a part, and of two processes saving at once the last rename wins.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest as _, Sha256};

use crate::cache_base::Base;
use crate::cache_codec::{Reader, put_len, put_str};
use crate::parse_cache::ParseCache;

/// The first line of every cache file.
const MAGIC: &str = "agent-skills parse cache";
/// The version of the format; a file of another version is refused.
const FORMAT_VERSION: u32 = 3;
/// The largest cache file read or written: 256 MiB (a 40,000-skill library takes about
/// 25 MiB). A larger one is not written, and one found is ignored.
pub const MAX_CACHE_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Why a cache file was not used (it is then ignored: the next save replaces it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheFileError {
    /// There is none (yet).
    #[error("no cache file")]
    Missing,
    /// It could not be read.
    #[error("cannot read the cache file: {0}")]
    Io(#[from] std::io::Error),
    /// It is over [`MAX_CACHE_FILE_BYTES`].
    #[error("the cache file is over {MAX_CACHE_FILE_BYTES} bytes")]
    TooLarge,
    /// It was written by another version of the format or for another key.
    #[error("the cache file is for another version or key")]
    Other,
    /// It is truncated, corrupt or does not parse.
    #[error("the cache file is damaged: {0}")]
    Damaged(String),
}

impl ParseCache {
    /// Reads the cache [`save`](Self::save) wrote to `file` for `key` (a text naming the
    /// source and every setting that changes what discovery makes of a file). Anything
    /// but such a file, whole and unchanged, is an error and nothing is loaded.
    ///
    /// ```
    /// use skills_core::ParseCache;
    /// let dir = std::env::temp_dir().join(format!("parse-cache-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let file = dir.join("source.cache");
    /// ParseCache::new().save(&file, "my source")?;
    /// assert!(ParseCache::load(&file, "my source").is_ok());
    /// assert!(ParseCache::load(&file, "another source").is_err());
    /// std::fs::write(&file, b"agent-skills parse cache\n1\n")?;
    /// assert!(ParseCache::load(&file, "my source").is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(file: &Path, key: &str) -> Result<Self, CacheFileError> {
        let base =
            Base::parse(read_cache_file(file, key)?).ok_or_else(|| CacheFileError::Damaged("bad entry".into()))?;
        let mut cache = Self::new();
        cache.base = Some(base);
        Ok(cache)
    }

    /// Writes the cache to `file` for `key` (see [`load`](Self::load)), atomically: a
    /// temporary file in the same folder renamed over `file`. Entries whose file changed
    /// within the racy window of its read are left out (the next process reads those
    /// files again). The search words given since the last save go to a file beside it.
    /// Afterwards the cache is no longer [dirty](Self::is_dirty). A cache
    /// over [`MAX_CACHE_FILE_BYTES`] is not written (an `InvalidData` error).
    pub fn save(&mut self, file: &Path, key: &str) -> std::io::Result<()> {
        let mut entries: Vec<Stored<'_>> = self
            .entries
            .iter()
            .filter(|(_, e)| !e.racy)
            .map(|(path, e)| (path.as_str(), e.etag.as_str(), e.outcome.bytes(), e.words.as_ref()))
            .chain(self.base.iter().flat_map(Base::entries))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        // When only words changed, the parses on disk are the ones held.
        if self.dirty || !self.words_dirty {
            write_cache_file(file, key, &payload(&entries))?;
        }
        if self.words_dirty {
            entries.retain(|e| e.3.is_some());
            write_cache_file(&words_file(file), key, &words_payload(&entries))?;
        }
        self.dirty = false;
        self.words_dirty = false;
        Ok(())
    }

    /// Gives the entries the search index's words [`save`](Self::save) kept beside
    /// `file` for `key`, where their etag is the one cached now; how many were given.
    pub fn load_words(&mut self, file: &Path, key: &str) -> Result<usize, CacheFileError> {
        let bytes = read_cache_file(&words_file(file), key)?;
        let damaged = || CacheFileError::Damaged("bad words entry".into());
        let mut reader = Reader { bytes: &bytes };
        let count = reader.len().ok_or_else(damaged)?;
        let mut given = 0;
        for _ in 0..count {
            let path = reader.str().ok_or_else(damaged)?;
            let etag = reader.str().ok_or_else(damaged)?;
            let words = reader.str().ok_or_else(damaged)?;
            given += usize::from(self.give_words(path, etag, words));
        }
        Ok(given)
    }
}

/// The file of the search index's words of the cache at `file`.
fn words_file(file: &Path) -> std::path::PathBuf {
    file.with_extension("words")
}

/// One entry to write: path, etag, encoded parse, words.
type Stored<'a> = (&'a str, &'a str, &'a [u8], Option<&'a Arc<str>>);

/// The payload of a words file of `entries` (sorted by path, each with words).
fn words_payload(entries: &[Stored<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    put_len(&mut out, entries.len());
    for (path, etag, _, words) in entries {
        put_str(&mut out, path);
        put_str(&mut out, etag);
        put_str(&mut out, words.map_or("", |w| w));
    }
    out
}

/// The payload of a cache file holding `entries` (sorted by path).
fn payload(entries: &[Stored<'_>]) -> Vec<u8> {
    let size: usize = entries
        .iter()
        .map(|(p, e, o, _)| 12 + p.len() + e.len() + o.len())
        .sum();
    let mut out = Vec::with_capacity(size + 4);
    put_len(&mut out, entries.len());
    for (path, etag, outcome, _) in entries {
        put_str(&mut out, path);
        put_str(&mut out, etag);
        put_len(&mut out, outcome.len());
        out.extend_from_slice(outcome);
    }
    out
}

/// Writes `payload` to `file` as a cache for `key`, with the header that
/// [`read_cache_file`] checks (the format, the key, the payload's length and SHA-256):
/// atomically, through a temporary file in the same folder renamed over `file`. A payload
/// over [`MAX_CACHE_FILE_BYTES`] is not written (an `InvalidData` error).
///
/// ```
/// use skills_core::{read_cache_file, write_cache_file};
/// let file = std::env::temp_dir().join(format!("cache-file-doc-{}", std::process::id()));
/// write_cache_file(&file, "key", b"payload")?;
/// assert_eq!(read_cache_file(&file, "key")?, b"payload");
/// assert!(read_cache_file(&file, "other key").is_err());
/// # std::fs::remove_file(&file)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_cache_file(file: &Path, key: &str, payload: &[u8]) -> std::io::Result<()> {
    let mut text = format!("{MAGIC}\n{FORMAT_VERSION}\n");
    text.push_str(&serde_json::to_string(key)?);
    text.push_str(&format!("\n{} {}\n", payload.len(), hex(&Sha256::digest(payload))));
    if (text.len() + payload.len()) as u64 > MAX_CACHE_FILE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the cache is over its size limit",
        ));
    }
    write_atomically(file, text.as_bytes(), payload)
}

/// The payload [`write_cache_file`] wrote to `file` for `key`, once the header, the
/// length and the checksum hold; an error for anything else (missing, unreadable, over
/// [`MAX_CACHE_FILE_BYTES`], another format or key, truncated or corrupt).
pub fn read_cache_file(file: &Path, key: &str) -> Result<Vec<u8>, CacheFileError> {
    let mut bytes = read_bounded(file)?;
    let at = payload_at(&bytes, key)?;
    bytes.drain(..at);
    Ok(bytes)
}

fn read_bounded(file: &Path) -> Result<Vec<u8>, CacheFileError> {
    let opened = match std::fs::File::open(file) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheFileError::Missing),
        Err(e) => return Err(e.into()),
    };
    let len = opened.metadata()?.len();
    if len > MAX_CACHE_FILE_BYTES {
        return Err(CacheFileError::TooLarge);
    }
    let mut bytes = Vec::with_capacity(len as usize);
    opened.take(MAX_CACHE_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CACHE_FILE_BYTES {
        return Err(CacheFileError::TooLarge);
    }
    Ok(bytes)
}

/// Where the payload of a cache file for `key` starts, once its header, length and
/// checksum hold.
fn payload_at(bytes: &[u8], key: &str) -> Result<usize, CacheFileError> {
    let damaged = |what: &str| CacheFileError::Damaged(what.to_owned());
    let mut rest = bytes;
    let mut line = || -> Result<&[u8], CacheFileError> {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| damaged("truncated header"))?;
        let (line, after) = rest.split_at(end);
        rest = &after[1..];
        Ok(line)
    };
    if line()? != MAGIC.as_bytes() {
        return Err(damaged("not a parse cache"));
    }
    if line()? != FORMAT_VERSION.to_string().as_bytes() {
        return Err(CacheFileError::Other);
    }
    let stored_key: String = serde_json::from_slice(line()?).map_err(|_| damaged("bad key line"))?;
    if stored_key != key {
        return Err(CacheFileError::Other);
    }
    let sums = std::str::from_utf8(line()?).map_err(|_| damaged("bad length line"))?;
    let (len, sum) = sums.split_once(' ').ok_or_else(|| damaged("bad length line"))?;
    if len.parse::<usize>().ok() != Some(rest.len()) {
        return Err(damaged("truncated payload"));
    }
    if hex(&Sha256::digest(rest)) != sum {
        return Err(damaged("checksum mismatch"));
    }
    Ok(bytes.len() - rest.len())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `head` then `body` to a new temporary file beside `file` and renames it over
/// `file`; the temporary file goes if anything fails.
fn write_atomically(file: &Path, head: &[u8], body: &[u8]) -> std::io::Result<()> {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = file
        .file_name()
        .map_or_else(|| "cache".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), unique()));
    let written = (|| {
        let mut out = std::fs::File::create(&temporary)?;
        out.write_all(head)?;
        out.write_all(body)?;
        out.flush()?;
        drop(out);
        std::fs::rename(&temporary, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A number no other save of this process uses.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

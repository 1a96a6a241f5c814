//! The files of the persistent cache: a text header and a payload, checked as a whole
//! and written atomically.
//!
//! ```text
//! agent-skills cache
//! 2                                  the format's version
//! "<key>"                            what the payload is valid for (JSON string)
//! <payload bytes> <payload XXH3-128>  the length as 20 digits (filled in last)
//! <payload>
//! ```
//!
//! A file that is not exactly that (another format or key, a length or checksum that
//! does not match) is refused as a whole, so a damaged cache costs a cold start and never
//! changes an answer. The checksum finds damage, not tampering (a cache is the user's
//! own file, like the skills it caches): XXH3 checks 65 MiB in a few milliseconds, where
//! SHA-256 took 70. It is written to a temporary file in the same folder and renamed
//! over the old one: a reader sees the old file or the new one, never a part, and of two
//! processes writing at once the last rename wins.

use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// The first line of every cache file.
const MAGIC: &str = "agent-skills cache";
/// The version of the container; a file of another version is refused.
const FORMAT_VERSION: u32 = 2;
/// The largest cache file read or written: 256 MiB (the parses of a 61,000-folder
/// library take 65 MiB). A larger one is not written, and one found is ignored.
pub const MAX_CACHE_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Why a cache file was not used (it is then ignored: the next write replaces it).
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

/// Writes `payload` to `file` as a cache for `key`, with the header that
/// [`read_cache_file`] checks (the format, the key, the payload's length and checksum):
/// atomically, through a temporary file in the same folder renamed over `file`. A payload
/// over [`MAX_CACHE_FILE_BYTES`] is not written (an `InvalidData` error).
///
/// ```
/// use skills_catalog::{read_cache_file, write_cache_file};
/// let file = std::env::temp_dir().join(format!("cache-file-doc-{}", std::process::id()));
/// write_cache_file(&file, "key", b"payload")?;
/// assert_eq!(read_cache_file(&file, "key")?, b"payload");
/// assert!(read_cache_file(&file, "other key").is_err());
/// std::fs::write(&file, b"agent-skills cache\n1\n")?;
/// assert!(read_cache_file(&file, "key").is_err());
/// # std::fs::remove_file(&file)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_cache_file(file: &Path, key: &str, payload: &[u8]) -> std::io::Result<()> {
    write_cache_file_with(file, key, &|sink| sink(payload))
}

/// What gives a payload part by part to the sink it is handed
/// ([`write_cache_file_with`]).
pub type Producer<'a> = dyn Fn(&mut dyn FnMut(&[u8])) + 'a;

/// [`write_cache_file`] of the payload `produce` gives to its sink part by part; called
/// once, its parts written as they come, so a large payload is never held whole in
/// memory nor made twice. The header's last line is written with room for any length
/// and checksum, and filled in once the payload is written.
pub fn write_cache_file_with(file: &Path, key: &str, produce: &Producer<'_>) -> std::io::Result<()> {
    write_within(file, key, produce, MAX_CACHE_FILE_BYTES)
}

/// [`write_cache_file_with`], refusing a file over `limit` bytes.
fn write_within(file: &Path, key: &str, produce: &Producer<'_>, limit: u64) -> std::io::Result<()> {
    let mut writer = CacheFileWriter::create(file, key, limit)?;
    produce(&mut |part| writer.write(part));
    writer.finish()
}

/// A cache file written part by part as its payload is made, for a payload made over
/// time rather than by one call (a discovery's parses, written as they are read instead of
/// held): the header is written first with room for any length and checksum, the parts
/// go to a temporary file beside `file` as they come, and [`finish`](Self::finish) fills
/// the header in and renames the file over `file`. Dropped unfinished, or after a failed
/// write, it leaves nothing behind and `file` as it was.
pub(crate) struct CacheFileWriter {
    /// The file it puts in place.
    pub(crate) file: PathBuf,
    pub(crate) temporary: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
    /// Where the header's last line starts.
    at: u64,
    /// How long the header is: where the payload starts.
    pub(crate) header: u64,
    /// Bytes written, header included.
    pub(crate) written: u64,
    limit: u64,
    hasher: xxhash_rust::xxh3::Xxh3,
    failed: Option<std::io::Error>,
}

impl CacheFileWriter {
    /// A writer of `file` for `key`, refusing a file over `limit` bytes.
    pub(crate) fn create(file: &Path, key: &str, limit: u64) -> std::io::Result<Self> {
        let mut text = format!("{MAGIC}\n{FORMAT_VERSION}\n");
        text.push_str(&serde_json::to_string(key)?);
        text.push('\n');
        let at = text.len() as u64;
        // The length as 20 digits (any `u64`; the reader takes leading zeros) and a checksum
        // (of nothing, as wide as any): as long a line as the one filled in.
        text.push_str(&length_line_of(0, &checksum_of(&xxhash_rust::xxh3::Xxh3::new())));
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let name = file
            .file_name()
            .map_or_else(|| "cache".into(), |n| n.to_string_lossy().into_owned());
        let temporary = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), unique()));
        let out = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&temporary)?);
        let mut writer = Self {
            file: file.to_owned(),
            temporary,
            out: Some(out),
            at,
            header: text.len() as u64,
            written: text.len() as u64,
            limit,
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            failed: None,
        };
        // Made before the header is written: dropped on failure, it removes the file.
        if let Some(out) = &mut writer.out {
            out.write_all(text.as_bytes())?;
        }
        Ok(writer)
    }

    /// Appends `part` to the payload. A failure (of the disk, or the size limit) is kept
    /// for [`finish`](Self::finish), and nothing more is written.
    pub(crate) fn write(&mut self, part: &[u8]) {
        let Some(out) = self.out.as_mut().filter(|_| self.failed.is_none()) else {
            return;
        };
        self.written += part.len() as u64;
        if self.written > self.limit {
            self.failed = Some(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the cache is over its size limit",
            ));
            return;
        }
        self.hasher.update(part);
        self.failed = out.write_all(part).err();
    }

    /// Fills in the header and puts the file in place of `file`; the first error of any
    /// write otherwise (the temporary file is then removed).
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        if let Some(failed) = self.failed.take() {
            return Err(failed);
        }
        let Some(mut out) = self.out.take() else {
            return Err(std::io::Error::other("the cache file was already finished"));
        };
        let header = length_line_of(self.written - self.header, &checksum_of(&self.hasher));
        let filled = (|| {
            out.seek(std::io::SeekFrom::Start(self.at))?;
            out.write_all(header.as_bytes())?;
            out.flush()?;
            drop(out);
            std::fs::rename(&self.temporary, &self.file)
        })();
        if filled.is_err() {
            let _ = std::fs::remove_file(&self.temporary);
        }
        filled
    }
}

impl Drop for CacheFileWriter {
    fn drop(&mut self) {
        // Unfinished (or finished in failure): the temporary file goes.
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// The header's last line for a payload of `len` bytes with checksum `sum`.
fn length_line_of(len: u64, sum: &str) -> String {
    format!("{len:020} {sum}\n")
}

/// The payload [`write_cache_file`] wrote to `file` for `key`, once the header, the
/// length and the checksum hold; an error for anything else (missing, unreadable, over
/// [`MAX_CACHE_FILE_BYTES`], another format or key, truncated or corrupt).
pub fn read_cache_file(file: &Path, key: &str) -> Result<Vec<u8>, CacheFileError> {
    let mut payload = open_payload(file, &|stored| stored == key)?;
    let mut bytes = Vec::with_capacity(usize::try_from(payload.len).unwrap_or(0));
    payload.read_to_end(&mut bytes)?;
    if !payload.verify() {
        return Err(damaged("checksum mismatch"));
    }
    Ok(bytes)
}

/// The cache file at `file`, opened for [`payload_of`].
pub(crate) fn open_cache_file(file: &Path) -> Result<std::fs::File, CacheFileError> {
    match std::fs::File::open(file) {
        Ok(opened) => Ok(opened),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CacheFileError::Missing),
        Err(e) => Err(e.into()),
    }
}

/// How much of a cache file is read to check its header before the rest.
const HEADER_BYTES: u64 = 64 * 1024;

/// The first read of a cache file: its header, and the start of its payload.
const FIRST_READ: u64 = 4 * 1024;

fn damaged(what: &str) -> CacheFileError {
    CacheFileError::Damaged(what.to_owned())
}

/// The next line of a header, `rest` moved past it.
fn header_line<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], CacheFileError> {
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| damaged("truncated header"))?;
    let (line, after) = rest.split_at(end);
    *rest = &after[1..];
    Ok(line)
}

/// Checks the first lines of a header (the format, its version, a key `accept` takes),
/// `rest` moved past them; the key.
fn check_header(rest: &mut &[u8], accept: &dyn Fn(&str) -> bool) -> Result<String, CacheFileError> {
    if header_line(rest)? != MAGIC.as_bytes() {
        return Err(damaged("not a skills cache"));
    }
    if header_line(rest)? != FORMAT_VERSION.to_string().as_bytes() {
        return Err(CacheFileError::Other);
    }
    let stored_key: String = serde_json::from_slice(header_line(rest)?).map_err(|_| damaged("bad key line"))?;
    if !accept(&stored_key) {
        return Err(CacheFileError::Other);
    }
    Ok(stored_key)
}

/// The header's last line: the payload's length and checksum, `rest` moved past it.
fn length_line<'a>(rest: &mut &'a [u8]) -> Result<(u64, &'a str), CacheFileError> {
    let sums = std::str::from_utf8(header_line(rest)?).map_err(|_| damaged("bad length line"))?;
    let (len, sum) = sums.split_once(' ').ok_or_else(|| damaged("bad length line"))?;
    let len = len.parse::<u64>().map_err(|_| damaged("bad length line"))?;
    Ok((len, sum))
}

/// The payload of a cache file, read as a stream (what the header's first read took of
/// it, then the rest of the file), every byte added to a checksum that
/// [`verify`](Self::verify) compares with the header's.
pub(crate) struct Payload {
    head: std::io::Cursor<Vec<u8>>,
    file: std::fs::File,
    hasher: xxhash_rust::xxh3::Xxh3,
    read: u64,
    pub(crate) len: u64,
    sum: String,
    /// The key the file was written for.
    pub(crate) key: String,
}

impl std::io::Read for Payload {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if (self.head.position() as usize) < self.head.get_ref().len() {
            self.head.read(buf)?
        } else {
            self.file.read(buf)?
        };
        self.hasher.update(&buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

impl Payload {
    /// Whether the whole payload was read and its checksum is the header's: only then
    /// may what was decoded from it be used.
    fn verify(&self) -> bool {
        self.read == self.len && checksum_of(&self.hasher) == self.sum
    }

    /// What `decode` reads from the payload (given it and its length), if the whole
    /// payload was read and verifies.
    pub(crate) fn decoded<T>(&mut self, decode: impl FnOnce(&mut dyn std::io::Read, u64) -> Option<T>) -> Option<T> {
        let len = self.len;
        let value = decode(self, len)?;
        self.verify().then_some(value)
    }
}

/// A reader that fails once nobody wants what it reads: a decoding that is no longer
/// wanted stops at its next read.
pub(crate) struct WhileWanted<'a, R: ?Sized>(pub(crate) &'a mut R, pub(crate) &'a std::sync::atomic::AtomicBool);

impl<R: std::io::Read + ?Sized> std::io::Read for WhileWanted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.1.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::other("no longer wanted"));
        }
        self.0.read(buf)
    }
}

/// The payload of the cache file `file` as a stream, once its header holds and `accept`
/// takes its key, and the file is exactly as long as the header says (its checksum is
/// checked as it is read: see [`Payload::verify`]).
pub(crate) fn open_payload(file: &Path, accept: &dyn Fn(&str) -> bool) -> Result<Payload, CacheFileError> {
    payload_of(open_cache_file(file)?, accept)
}

/// [`open_payload`] of a cache file opened before (it is read as it was then, whatever
/// happens to its path since).
pub(crate) fn payload_of(mut opened: std::fs::File, accept: &dyn Fn(&str) -> bool) -> Result<Payload, CacheFileError> {
    let size = opened.metadata()?.len();
    if size > MAX_CACHE_FILE_BYTES {
        return Err(CacheFileError::TooLarge);
    }
    // The header first: a file of another format or for another key (the listing of
    // other files, say: 40 MB at 40,000 skills) is refused before its payload is read.
    // A few KiB hold the header of most files; a longer one (a key naming many sources)
    // is read on, up to `HEADER_BYTES`, then to the end.
    let mut head = Vec::with_capacity(FIRST_READ as usize);
    for limit in [FIRST_READ, HEADER_BYTES, u64::MAX] {
        let wanted = limit.saturating_sub(head.len() as u64);
        let got = (&mut opened).take(wanted).read_to_end(&mut head)? as u64;
        if got < wanted || head.iter().filter(|&&b| b == b'\n').nth(3).is_some() {
            break;
        }
    }
    let mut rest = head.as_slice();
    let key = check_header(&mut rest, accept)?;
    let (len, sum) = length_line(&mut rest)?;
    let (sum, at) = (sum.to_owned(), head.len() - rest.len());
    if size != at as u64 + len {
        return Err(damaged("truncated payload"));
    }
    head.drain(..at);
    Ok(Payload {
        head: std::io::Cursor::new(head),
        file: opened,
        hasher: xxhash_rust::xxh3::Xxh3::new(),
        read: 0,
        len,
        sum,
        key,
    })
}

/// The payload's checksum, as hex.
fn checksum_of(hasher: &xxhash_rust::xxh3::Xxh3) -> String {
    format!("{:032x}", hasher.digest128())
}

/// A number no other save of this process uses.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
#[path = "cache_file_tests.rs"]
mod tests;

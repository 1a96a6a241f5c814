//! Looking up `<child>/SKILL.md` relative to the source folder held open, for the walk of
//! a source (`child_files`): the kernel resolves two path components instead of the
//! whole host path, a third less time per skill on a large library (61,452 lookups:
//! 136-246 ms instead of 245-380 ms).
//!
//! Only a plain sub-directory of the folder is asked this way, and only a regular file,
//! a directory or nothing is answered: a link (of the sub-directory or the file) goes the
//! usual way, which keeps it inside the root or leaves it out.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use skills_core::{FileInfo, Walk, path};

/// A source folder held open for one walk (never longer: a folder replaced by another
/// after the walk is not looked into through the old one).
#[derive(Debug)]
pub(crate) struct SourceDir {
    /// Its resolved path on the host.
    host: PathBuf,
    #[cfg(target_os = "linux")]
    fd: std::os::fd::OwnedFd,
}

impl SourceDir {
    /// Holds the folder at `host` (resolved) open; `None` where it cannot be (the usual
    /// lookups then serve).
    pub(crate) fn open(host: &Path) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
            let fd = rustix::fs::open(host, flags, Mode::empty()).ok()?;
            Some(Self {
                host: host.to_owned(),
                fd,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = host;
            None
        }
    }

    /// Adds `<dir>/<file_name>` to `walk` when it is a file or a directory there, if
    /// `dir` is a plain sub-directory of this folder: whether it was there, or `None`
    /// when the usual lookup must answer (a link, an error other than "not there").
    pub(crate) fn child_file(&self, dir_path: &str, dir: &Path, file_name: &str, walk: &mut Walk) -> Option<bool> {
        let child = child_name(&self.host, dir)?;
        self.stat_child(child, dir_path, file_name, &mut String::new(), walk)
    }

    /// [`child_file`](Self::child_file) of the sub-directory named `child`, whose backend
    /// path is `dir_path`; `rel` is room for `<child>/<file_name>`, kept between calls.
    pub(crate) fn stat_child(
        &self,
        child: &str,
        dir_path: &str,
        file_name: &str,
        rel: &mut String,
        walk: &mut Walk,
    ) -> Option<bool> {
        self.look(child, file_name, rel).record(dir_path, file_name, walk)
    }

    /// What `<child>/<file_name>` is, asked relative to this folder without following a
    /// link; `rel` is room for the relative path, kept between calls.
    #[cfg(target_os = "linux")]
    pub(crate) fn look(&self, child: &str, file_name: &str, rel: &mut String) -> Looked {
        use rustix::fs::AtFlags;
        use rustix::io::Errno;

        rel.clear();
        for part in [child, "/", file_name] {
            rel.push_str(part);
        }
        match rustix::fs::statat(&self.fd, rel.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Looked::Found(Stated::of_stat(&stat)),
            Err(Errno::NOENT | Errno::NOTDIR) => Looked::Missing,
            Err(_) => Looked::Usual,
        }
    }

    /// [`look`](Self::look) by opening `<child>/<file_name>`, and its bytes, put in
    /// `content`, when it is a regular file without other hard links and of at most
    /// `limit` bytes (read as a read would read it; whether it was read): for a walk
    /// that reads every file it finds. The file is opened only beneath this folder and
    /// through no link (a link found on the way is looked at as `look` does), without
    /// blocking on a FIFO; what the opened file's `fstat` says is what `look` would
    /// have said.
    #[cfg(target_os = "linux")]
    pub(crate) fn look_and_read(
        &self,
        (child, file_name): (&str, &str),
        rel: &mut String,
        limit: u64,
        content: &mut Vec<u8>,
    ) -> (Looked, bool) {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;

        rel.clear();
        for part in [child, "/", file_name] {
            rel.push_str(part);
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let fd = match rustix::fs::openat2(&self.fd, rel.as_str(), flags, Mode::empty(), resolve) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::NOTDIR) => return (Looked::Missing, false),
            // A link, a file it may not read, a kernel without `openat2`...: looked at.
            Err(_) => return (self.look(child, file_name, rel), false),
        };
        let Ok(stat) = rustix::fs::fstat(&fd) else {
            return (self.look(child, file_name, rel), false);
        };
        let stated = Stated::of_stat(&stat);
        let readable = stated.kind == Kind::File && stat.st_nlink == 1 && stated.size <= limit;
        let read = readable && read_whole(std::fs::File::from(fd), stated.size, content);
        (Looked::Found(stated), read)
    }

    /// Never asked this way here: the usual lookup answers, and nothing is read.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn look_and_read(
        &self,
        (child, file_name): (&str, &str),
        rel: &mut String,
        _limit: u64,
        _content: &mut Vec<u8>,
    ) -> (Looked, bool) {
        (self.look(child, file_name, rel), false)
    }

    /// Never asked this way here: the usual lookup answers.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn look(&self, _child: &str, _file_name: &str, _rel: &mut String) -> Looked {
        Looked::Usual
    }
}

/// Reads the first `size` bytes of `file` into `content` (emptied first), in one read
/// when it did not change since its `fstat`: whether it could.
#[cfg(target_os = "linux")]
fn read_whole(file: std::fs::File, size: u64, content: &mut Vec<u8>) -> bool {
    use std::io::Read as _;
    content.clear();
    content.reserve(usize::try_from(size).unwrap_or(0));
    file.take(size).read_to_end(content).is_ok()
}

/// What a look at a child's file relative to the source folder found
/// ([`SourceDir::look`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Looked {
    /// Something is there, as its `stat` says.
    Found(Stated),
    /// Nothing is there.
    Missing,
    /// The usual lookup must answer (an error other than "not there").
    Usual,
}

impl Looked {
    /// Adds the file `<dir_path>/<file_name>` to `walk` when it is a file or a directory:
    /// whether it was there, or `None` when the usual lookup must answer (a link, an
    /// error other than "not there").
    pub(crate) fn record(self, dir_path: &str, file_name: &str, walk: &mut Walk) -> Option<bool> {
        let stated = match self {
            Looked::Found(stated) => stated,
            Looked::Missing => return Some(false),
            Looked::Usual => return None,
        };
        match stated.kind {
            Kind::File => walk.entries.push(stated.entry(path::join(dir_path, file_name))),
            Kind::Dir => walk.entries.push(FileInfo::directory(path::join(dir_path, file_name))),
            // A link: the usual lookup follows it within the root, or leaves it out.
            Kind::Link | Kind::Unknown => return None,
            // A special file is not served.
            Kind::Other => return Some(false),
        }
        Some(true)
    }
}

/// What an entry is, as its directory or a `stat` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
    Link,
    /// A special file (a socket, a device...).
    Other,
    /// Not said: some file systems leave it to a `stat`.
    Unknown,
}

/// What a `stat` that does not follow a link says of an entry: its kind and, for a
/// file, what its etag is made of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stated {
    pub(crate) kind: Kind,
    size: u64,
    modified: Option<SystemTime>,
    changed: Option<SystemTime>,
    ino: u64,
}

impl Stated {
    /// What `stat` says (its casts are no-ops here, needed where the fields' types differ).
    #[cfg(target_os = "linux")]
    #[allow(clippy::unnecessary_cast)]
    pub(crate) fn of_stat(stat: &rustix::fs::Stat) -> Self {
        use rustix::fs::FileType;
        let kind = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Link,
            _ => Kind::Other,
        };
        Self {
            kind,
            size: stat.st_size as u64,
            modified: time_of(stat.st_mtime as i64, stat.st_mtime_nsec as u64),
            // As the standard library's metadata gives it: none before the epoch.
            changed: (stat.st_ctime >= 0)
                .then(|| time_of(stat.st_ctime as i64, stat.st_ctime_nsec as u64))
                .flatten(),
            ino: stat.st_ino,
        }
    }

    /// What `meta`, from a `stat` that did not follow a link, says.
    pub(crate) fn of_metadata(meta: &std::fs::Metadata) -> Self {
        let kind = match meta.file_type() {
            t if t.is_file() => Kind::File,
            t if t.is_dir() => Kind::Dir,
            t if t.is_symlink() => Kind::Link,
            _ => Kind::Other,
        };
        let (ino, changed) = inode_and_ctime(meta);
        Self {
            kind,
            size: meta.len(),
            modified: meta.modified().ok(),
            changed,
            ino,
        }
    }

    /// The entry of the file at `path`, its etag made of its size, mtime, ctime and inode.
    pub(crate) fn entry(&self, path: String) -> FileInfo {
        file_entry(path, self.size, self.modified, self.changed, self.ino)
    }
}

/// The inode number and the status change time (ctime), where the platform has them.
#[cfg(unix)]
fn inode_and_ctime(meta: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    use std::os::unix::fs::MetadataExt as _;
    let ctime = u64::try_from(meta.ctime())
        .ok()
        .map(|secs| UNIX_EPOCH + std::time::Duration::new(secs, meta.ctime_nsec().clamp(0, 999_999_999) as u32));
    (meta.ino(), ctime)
}

#[cfg(not(unix))]
fn inode_and_ctime(_meta: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    (0, None)
}

/// The name of `dir` when it is a child of `host`, compared as bytes: the walk joins
/// each child's path to `host` (parsing both paths into components took a tenth of a
/// large library's warm walk).
fn child_name<'a>(host: &Path, dir: &'a Path) -> Option<&'a str> {
    let host = host.as_os_str().as_encoded_bytes();
    let below = dir.as_os_str().as_encoded_bytes().strip_prefix(host)?;
    let child = if host.ends_with(b"/") {
        below
    } else {
        below.strip_prefix(b"/")?
    };
    if child.is_empty() || child.contains(&b'/') || child == b"." || child == b".." {
        return None;
    }
    skills_core::utf8::checked(child)
}

/// A file's entry from its `stat`: the etag is its size, mtime, ctime and inode.
pub(crate) fn file_entry(
    path: String,
    size: u64,
    modified_at: Option<SystemTime>,
    ctime: Option<SystemTime>,
    ino: u64,
) -> FileInfo {
    let nanos = |t: Option<SystemTime>| {
        t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    let (mtime_ns, ctime_ns) = (nanos(modified_at), nanos(ctime));
    FileInfo {
        path,
        is_dir: false,
        size,
        modified_at,
        // ctime catches an edit whose mtime was put back (`touch -d`, `rsync -t`).
        etag: Some(etag_of(size, mtime_ns, ctime_ns, ino)),
        changed_at: modified_at.max(ctime),
    }
}

/// `{size:x}-{mtime_ns:x}-{ctime_ns:x}-{ino:x}`, written without `format!`: a warm
/// start makes one per `SKILL.md`, and the formatting machinery took 7% of its time.
/// The digits are written from the last one back into a buffer on the stack (pushing
/// them one by one onto the string was a third of a warm walk's instructions for each
/// file after its `stat`, by `callgrind`).
fn etag_of(size: u64, mtime_ns: u128, ctime_ns: u128, ino: u64) -> String {
    // Four values of at most 32 hex digits and the three dashes between them.
    let mut text = [0u8; 4 * 32 + 3];
    let mut at = text.len();
    for (k, value) in [u128::from(size), mtime_ns, ctime_ns, u128::from(ino)]
        .into_iter()
        .enumerate()
        .rev()
    {
        let mut value = value;
        loop {
            at -= 1;
            text[at] = b"0123456789abcdef"[(value & 0xf) as usize];
            value >>= 4;
            if value == 0 {
                break;
            }
        }
        if k > 0 {
            at -= 1;
            text[at] = b'-';
        }
    }
    // Hex digits and dashes: ASCII, so the check cannot fail; copied whole (collected
    // a character at a time, they took 1.5% of a warm start).
    String::from_utf8(text[at..].to_vec()).unwrap_or_default()
}

/// The time `secs` seconds and `nanos` nanoseconds from the Unix epoch, as the standard
/// library makes it of a `stat` (before the epoch too).
#[cfg(target_os = "linux")]
fn time_of(secs: i64, nanos: u64) -> Option<std::time::SystemTime> {
    use std::time::{Duration, UNIX_EPOCH};
    let nanos = Duration::from_nanos(nanos.min(999_999_999));
    if secs >= 0 {
        UNIX_EPOCH
            .checked_add(Duration::from_secs(secs as u64))?
            .checked_add(nanos)
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(secs.unsigned_abs()))?
            .checked_add(nanos)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A child's name exactly when the path's parent is the host, as the standard
    /// library's components say.
    #[test]
    fn a_child_is_named_only_below_its_host() {
        let cases = [
            ("/s", "/s/a"),
            ("/s", "/s/a-b.c"),
            ("/", "/a"),
            ("/s", "/s"),
            ("/s", "/s/"),
            ("/s", "/s/a/b"),
            ("/s", "/st/a"),
            ("/s", "/sa"),
            ("/s/t", "/s/a"),
            ("/s", "/s/.."),
        ];
        for (host, dir) in cases {
            let (host, dir) = (Path::new(host), Path::new(dir));
            let expected = (dir.parent() == Some(host))
                .then(|| dir.file_name().and_then(|n| n.to_str()))
                .flatten();
            assert_eq!(super::child_name(host, dir), expected, "{host:?} {dir:?}");
        }
    }

    /// The etag is what `format!` wrote before: caches written by earlier builds of the
    /// same version compare equal, and so do the files they describe.
    #[test]
    fn etags_are_written_as_format_writes_them() {
        let values: [(u64, u128, u128, u64); 4] = [
            (0, 0, 0, 0),
            (1, 15, 16, 255),
            (4_096, 1_764_000_000_123_456_789, 1_764_000_001_000_000_000, 12_345_678),
            (u64::MAX, u128::MAX, 1 << 64, u64::MAX - 1),
        ];
        for (size, mtime, ctime, ino) in values {
            assert_eq!(
                super::etag_of(size, mtime, ctime, ino),
                format!("{size:x}-{mtime:x}-{ctime:x}-{ino:x}")
            );
        }
    }
}

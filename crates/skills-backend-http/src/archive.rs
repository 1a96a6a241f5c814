//! Unpacking a skill's archive (`.tar.gz` or `.zip`) in memory, with the containment
//! rules of every other source: regular files only (no links), no `..`, no absolute
//! paths, at most [`MAX_SKILL_FILES`] files and [`MAX_SKILL_BYTES`] bytes unpacked.

use std::collections::BTreeMap;
use std::io::Read;

use skills_core::digest::sha256_text;
use skills_core::{
    FileInfo, LOWERCASE_SKILL_FILE, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_FILE, is_skill_file_name, path,
};

use crate::index::IndexEntry;

/// A skill's files, by path inside its folder.
pub(crate) type Unpacked = BTreeMap<String, ArchiveFile>;

/// One file of an unpacked archive, with its digest (computed once: every listing of its
/// folder gives it as the file's etag).
#[derive(Debug)]
pub(crate) struct ArchiveFile {
    pub bytes: Vec<u8>,
    pub digest: String,
}

/// Files by path while unpacking.
type Files = BTreeMap<String, Vec<u8>>;

/// The files of an archive: a gzip-compressed tar or a zip (told by their first bytes).
/// When every file lies in one top-level folder holding `SKILL.md`, that folder is the
/// skill's.
pub(crate) fn unpack(bytes: &[u8]) -> Result<Unpacked, String> {
    let files = if bytes.starts_with(&[0x1f, 0x8b]) {
        unpack_tar_gz(bytes)?
    } else if bytes.starts_with(b"PK\x03\x04") {
        unpack_zip(bytes)?
    } else {
        return Err("not a .tar.gz or .zip archive".to_owned());
    };
    let files = strip_single_folder(files);
    // The skill file, as in a folder: SKILL.md, or its lowercase skill.md.
    if !files.contains_key(SKILL_FILE) && !files.contains_key(LOWERCASE_SKILL_FILE) {
        return Err(format!("the archive has no {SKILL_FILE} at its root"));
    }
    Ok(files
        .into_iter()
        .map(|(rel, bytes)| {
            let digest = sha256_text(&bytes);
            (rel, ArchiveFile { bytes, digest })
        })
        .collect())
}

/// Checks one entry's path and size against the limits so far; its clean path.
fn admit(files: &Files, total: &mut u64, name: &str, size: u64) -> Result<String, String> {
    let shown: String = name.chars().take(120).collect();
    if name.starts_with('/') || name.contains('\\') {
        return Err(format!("{shown:?} is not a relative path"));
    }
    let normalized =
        path::normalize(&format!("/{name}")).map_err(|_| format!("{shown:?} leaves the skill's folder"))?;
    if normalized == "/" {
        return Err(format!("{shown:?} is not a file"));
    }
    if files.len() >= MAX_SKILL_FILES {
        return Err(format!("more than {MAX_SKILL_FILES} files"));
    }
    *total += size;
    if *total > MAX_SKILL_BYTES {
        return Err(format!("more than {MAX_SKILL_BYTES} bytes unpacked"));
    }
    Ok(normalized.trim_start_matches('/').to_owned())
}

/// Reads at most `limit` bytes from `reader`; more is an error (a size that lied).
fn read_limited(reader: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot unpack: {e}"))?;
    if out.len() as u64 > limit {
        return Err(format!("more than {MAX_SKILL_BYTES} bytes unpacked"));
    }
    Ok(out)
}

fn unpack_tar_gz(bytes: &[u8]) -> Result<Files, String> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut files = Files::new();
    let mut total = 0u64;
    let entries = archive.entries().map_err(|e| format!("not a tar archive: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot unpack: {e}"))?;
        let kind = entry.header().entry_type();
        let name = entry
            .path()
            .map_err(|e| format!("cannot unpack: {e}"))?
            .to_string_lossy()
            .into_owned();
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            return Err(format!(
                "{name:?} is a link or a special file; archives may hold regular files only"
            ));
        }
        let size = entry.header().size().map_err(|e| format!("cannot unpack: {e}"))?;
        let clean = admit(&files, &mut total, &name, size)?;
        let content = read_limited(entry, size.min(MAX_SKILL_BYTES))?;
        files.insert(clean, content);
    }
    Ok(files)
}

fn unpack_zip(bytes: &[u8]) -> Result<Files, String> {
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| format!("not a zip archive: {e}"))?;
    let mut files = Files::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(|e| format!("cannot unpack: {e}"))?;
        // The raw name: `enclosed_name` would hide a `..` the archive should be refused for.
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        if entry.is_dir() {
            continue;
        }
        if entry.is_symlink() || !entry.is_file() {
            return Err(format!(
                "{name:?} is a link or a special file; archives may hold regular files only"
            ));
        }
        let size = entry.size();
        let clean = admit(&files, &mut total, &name, size)?;
        let content = read_limited(entry, size.min(MAX_SKILL_BYTES))?;
        files.insert(clean, content);
    }
    Ok(files)
}

/// `files` without their common top-level folder, when there is one holding `SKILL.md`.
fn strip_single_folder(files: Files) -> Files {
    let mut tops = files.keys().map(|p| p.split('/').next().unwrap_or_default());
    let Some(first) = tops.next() else { return files };
    let single = tops.all(|t| t == first)
        && [SKILL_FILE, LOWERCASE_SKILL_FILE]
            .iter()
            .any(|name| files.contains_key(&format!("{first}/{name}")));
    if !single {
        return files;
    }
    let prefix = format!("{first}/");
    files
        .into_iter()
        .filter_map(|(path, content)| Some((path.strip_prefix(&prefix)?.to_owned(), content)))
        .collect()
}

/// The etag of the `SKILL.md` of the skill an archive holds: made of the archive's
/// digest, which the index gives, so that a walk of the index knows it without the
/// archive, and a parse cached by it holds until the archive changes.
pub(crate) fn skill_etag(digest: &str) -> String {
    format!("{digest} {SKILL_FILE}")
}

/// The entries directly under `inner` (a folder inside `entry`'s skill) of its unpacked
/// archive: its files, each with its content's digest as etag (the skill's own file with
/// [`skill_etag`]), and its folders.
pub(crate) fn listing(files: &Unpacked, entry: &IndexEntry, inner: &str) -> Vec<FileInfo> {
    let name = &entry.name;
    let prefix = if inner.is_empty() {
        String::new()
    } else {
        format!("{inner}/")
    };
    let mut dirs = std::collections::BTreeSet::new();
    let mut listed = Vec::new();
    for (rel, file) in files
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
    {
        let rest = &rel[prefix.len()..];
        match rest.split_once('/') {
            Some((dir, _)) => {
                dirs.insert(format!("/{name}/{prefix}{dir}"));
            }
            None => listed.push(FileInfo {
                path: format!("/{name}/{rel}"),
                is_dir: false,
                size: file.bytes.len() as u64,
                modified_at: None,
                etag: Some(if is_skill_file_name(rel) {
                    skill_etag(&entry.digest)
                } else {
                    file.digest.clone()
                }),
                changed_at: None,
            }),
        }
    }
    listed.extend(dirs.into_iter().map(FileInfo::directory));
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    listed
}

//! A skill's files with their SHA-256 digests and sizes: the manifest the MCP skills
//! extension publishes and a lockfile pins, computed once for both.

use std::collections::HashMap;
use std::sync::Arc;

use dashmap::DashMap;
use skills_core::digest::{sha256, text_of};
use skills_core::parse::frontmatter_json;
use skills_core::{BackendProtocol, FileErrorKind, SKILL_TREE_DEPTH, SkillMetadata, SkillSize};

/// A JSON object (a frontmatter).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// `sha256:` and the 64 lowercase hex digits of `bytes`' SHA-256, as the MCP skills
/// extension and lockfiles write digests.
///
/// ```
/// assert_eq!(
///     skills_catalog::manifest::sha256_digest(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn sha256_digest(bytes: &[u8]) -> String {
    skills_core::digest::sha256_text(bytes)
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// Path inside the skill's folder.
    pub rel: String,
    /// `sha256:<hex>`.
    pub digest: String,
    /// Bytes.
    pub size: u64,
}

/// Remembers the digest of every file read, by source, path and fingerprint, so an
/// unchanged file is read once for all manifests.
#[derive(Debug, Default)]
pub struct DigestCache {
    entries: DashMap<(usize, String), Cached>,
}

#[derive(Debug, Clone)]
struct Cached {
    etag: String,
    file: Digested,
}

/// What reading a file once tells: its digest and size, and for a `SKILL.md` its
/// frontmatter. Kept for every file of a library, so kept small: the digest as its 32
/// bytes (not its 71-character text) and the frontmatter as compact JSON text (a
/// parsed map is about twice the size).
#[derive(Debug, Clone)]
struct Digested {
    digest: [u8; 32],
    size: u64,
    frontmatter: Option<Arc<str>>,
}

impl Digested {
    fn of(bytes: &[u8], skill_md: bool) -> Self {
        let digest = sha256(bytes);
        let frontmatter = skill_md
            .then(|| frontmatter_json(bytes))
            .flatten()
            .and_then(|map| serde_json::to_string(&sorted(serde_json::Value::Object(map))).ok())
            .map(Arc::from);
        Self {
            digest,
            size: bytes.len() as u64,
            frontmatter,
        }
    }

    /// The digest as SEP-2640 writes it: `sha256:` and 64 lowercase hex digits.
    fn digest_text(&self) -> String {
        text_of(&self.digest)
    }
}

/// A skill's served files and its `SKILL.md` frontmatter as written.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Every served file, sorted by path.
    pub files: Vec<ManifestFile>,
    /// The frontmatter of `SKILL.md` as JSON (`None` if it does not parse).
    pub frontmatter: Option<Arc<JsonObject>>,
}

impl DigestCache {
    fn get(&self, source: usize, path: &str, etag: Option<&str>) -> Option<Digested> {
        let etag = etag?;
        let cached = self.entries.get(&(source, path.to_owned()))?;
        (cached.etag == etag).then(|| cached.file.clone())
    }

    fn put(&self, source: usize, path: String, etag: Option<String>, file: Digested) {
        let entries = &self.entries;
        match etag {
            Some(etag) => {
                entries.insert((source, path), Cached { etag, file });
            }
            None => {
                entries.remove(&(source, path));
            }
        }
    }

    /// The files of a skill with their digests: one walk of its folder, and a read of
    /// each file whose fingerprint is new. The manifest is complete or there is none
    /// (SEP-2640: a host treats an unlisted file as tampering): `Err` says why not, when
    /// the folder cannot be walked, the skill goes beyond the extension's limits
    /// ([`SkillSize::over_limits`]), or one of its files is over the backend's size
    /// limit or cannot be read.
    pub async fn manifest(
        &self,
        backend: &dyn BackendProtocol,
        source: usize,
        skill: &SkillMetadata,
    ) -> Result<Manifest, String> {
        self.read(backend, source, skill, false)
            .await
            .map(|(manifest, _)| manifest)
    }

    /// The [`manifest`](Self::manifest) of a skill and the bytes of each of its files,
    /// in the manifest's order: every file read once (and its digest kept), for a face
    /// that copies the whole skill (an installer, a registry). The same checks apply,
    /// and a skill its source serves only in part ([`Walk::left_out`](skills_core::Walk::left_out): a link leading out
    /// of the source, a link in a git tree) is refused with the first part left out.
    pub async fn manifest_with_files(
        &self,
        backend: &dyn BackendProtocol,
        source: usize,
        skill: &SkillMetadata,
    ) -> Result<(Manifest, Vec<Vec<u8>>), String> {
        let (manifest, mut bytes) = self.read(backend, source, skill, true).await?;
        let dir = skill.dir();
        let files = manifest
            .files
            .iter()
            .map(|f| bytes.remove(&format!("{dir}/{}", f.rel)).unwrap_or_default())
            .collect();
        Ok((manifest, files))
    }

    /// The manifest, and with `keep` every file read (none skipped by the cache) and
    /// its bytes by backend path.
    async fn read(
        &self,
        backend: &dyn BackendProtocol,
        source: usize,
        skill: &SkillMetadata,
        keep: bool,
    ) -> Result<(Manifest, HashMap<String, Vec<u8>>), String> {
        let dir = skill.dir();
        let walk = backend
            .walk(dir, SKILL_TREE_DEPTH)
            .await
            .map_err(|error| format!("its folder cannot be listed: {error}"))?;
        if let Some(error) = walk.errors.first() {
            return Err(format!("part of its folder cannot be listed: {error}"));
        }
        // A whole copy (an install, a publication) is refused when the source leaves part
        // of the skill out: the copy would not be the skill, and the part left out is
        // often hostile (a link to a file outside the source).
        if keep {
            if let Some(first) = walk.left_out.first() {
                let more = walk.left_out.len() - 1;
                let more = if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                };
                return Err(format!("refused: {first}{more}"));
            }
        }
        if let Some(problem) = SkillSize::of(&walk.entries).over_limits() {
            return Err(problem);
        }
        let limit = backend.max_file_size();
        let files: Vec<_> = walk.entries.into_iter().filter(|e| !e.is_dir).collect();
        if let Some(large) = files.iter().find(|f| f.size > limit) {
            return Err(format!(
                "{} is {} bytes, over this server's limit of {limit} bytes per file",
                large.path, large.size
            ));
        }
        let mut known = Vec::with_capacity(files.len());
        let mut to_read = Vec::new();
        let mut kept = HashMap::new();
        for file in files {
            match self.get(source, &file.path, file.etag.as_deref()).filter(|_| !keep) {
                Some(digested) => known.push((file.path, digested)),
                None => to_read.push(file),
            }
        }
        if !to_read.is_empty() {
            let paths: Vec<String> = to_read.iter().map(|f| f.path.clone()).collect();
            for (file, answer) in to_read.into_iter().zip(backend.download_files(&paths).await) {
                match answer.into_result() {
                    Ok(bytes) => {
                        let digested = Digested::of(&bytes, file.path == skill.path);
                        self.put(source, file.path.clone(), file.etag, digested.clone());
                        if keep {
                            kept.insert(file.path.clone(), bytes);
                        }
                        known.push((file.path, digested));
                    }
                    // Deleted since the walk: not a file of the skill any more.
                    Err(error) if error.kind == FileErrorKind::FileNotFound => {}
                    Err(error) => return Err(format!("{} cannot be read: {error}", file.path)),
                }
            }
        }
        let mut frontmatter = None;
        let mut manifest: Vec<ManifestFile> = Vec::with_capacity(known.len());
        for (file_path, digested) in known {
            if file_path == skill.path {
                frontmatter = digested
                    .frontmatter
                    .as_deref()
                    .and_then(|text| serde_json::from_str::<JsonObject>(text).ok())
                    .map(Arc::new);
            }
            let Some(rel) = file_path.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) else {
                continue;
            };
            manifest.push(ManifestFile {
                rel: rel.to_owned(),
                digest: digested.digest_text(),
                size: digested.size,
            });
        }
        manifest.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
        let skill_file = skills_core::path::file_name(&skill.path);
        if !manifest.iter().any(|f| f.rel == skill_file) {
            return Err(format!("{skill_file} is gone"));
        }
        let manifest = Manifest {
            files: manifest,
            frontmatter,
        };
        Ok((manifest, kept))
    }
}

/// `value` with the keys of every object in name order, whatever serde_json's map keeps
/// (a build that turns on its `preserve_order` keeps insertion order): the same
/// frontmatter gives the same text in every build.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_digest_reads_as_the_one_computed() {
        for bytes in [&b""[..], b"a", b"---\nname: x\ndescription: y\n---\n"] {
            assert_eq!(Digested::of(bytes, false).digest_text(), sha256_digest(bytes));
        }
        let skill_md = Digested::of(
            b"---\nname: x\ndescription: y\ntags: [a]\nmetadata:\n  z: 1\n  a: 2\n---\nBody",
            true,
        );
        assert_eq!(
            skill_md.frontmatter.as_deref(),
            Some(r#"{"description":"y","metadata":{"a":2,"z":1},"name":"x","tags":["a"]}"#)
        );
        assert_eq!(Digested::of(b"no frontmatter", true).frontmatter, None);
    }
}

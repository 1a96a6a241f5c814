//! A skill's files as MCP resources: `skill://` URIs, the containment rule for paths a
//! client asks for, and the manifest (every file with its size and SHA-256 digest) that
//! `skills/list` and `skills/get` carry.

use std::sync::Arc;

use dashmap::DashMap;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use agent_skills::parse::frontmatter_json;
use agent_skills::{BackendProtocol, FileErrorKind, SKILL_FILE, SKILL_TREE_DEPTH, SkillMetadata, SkillSize, path};
use rmcp::model::{JsonObject, SkillResource, SkillResources, sha256_digest};

/// The URI scheme of skill files.
pub const SCHEME: &str = "skill://";
/// Legacy: the index resource of the SEP-2640 draft (every skill's name, description and
/// `SKILL.md` URI), kept for clients written against the draft. The final extension
/// dropped it for `skills/list`, which carries complete manifests.
pub const INDEX_URI: &str = "skill://index.json";

/// The URI of a file of a skill, `rel` being its path inside the skill's folder.
pub fn file_uri(skill: &str, rel: &str) -> String {
    let mut uri = String::with_capacity(SCHEME.len() + skill.len() + 1 + rel.len());
    uri.push_str(SCHEME);
    uri.push_str(skill);
    uri.push('/');
    encode_path(rel, &mut uri);
    uri
}

/// The URI of a skill's `SKILL.md`.
pub fn skill_md_uri(skill: &str) -> String {
    file_uri(skill, SKILL_FILE)
}

/// What a path inside a skill's folder keeps unescaped in a URI: unreserved characters
/// and `/`.
const PATH_ESCAPES: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Percent-encodes every byte but unreserved characters and `/`.
fn encode_path(rel: &str, out: &mut String) {
    out.extend(utf8_percent_encode(rel, PATH_ESCAPES));
}

/// Undoes [`encode_path`]; `None` for a malformed escape or bytes that are not UTF-8.
fn decode_path(encoded: &str) -> Option<String> {
    let bytes = encoded.as_bytes();
    for (i, _) in encoded.match_indices('%') {
        if !bytes.get(i + 1..i + 3)?.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
    }
    Some(percent_decode_str(encoded).decode_utf8().ok()?.into_owned())
}

/// A `skill://` URI taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillUri {
    /// `skill://index.json`.
    Index,
    /// `skill://<name>` or `skill://<name>/`: the skill's folder.
    Root {
        /// The skill's name.
        skill: String,
    },
    /// `skill://<name>/<path>`, the path decoded but not yet checked.
    File {
        /// The skill's name.
        skill: String,
        /// The path inside the skill's folder, as asked.
        rel: String,
    },
}

/// Parses a `skill://` URI; `None` when it is not one (other scheme, query, fragment,
/// malformed escapes).
pub fn parse_uri(uri: &str) -> Option<SkillUri> {
    if uri == INDEX_URI {
        return Some(SkillUri::Index);
    }
    let rest = uri.strip_prefix(SCHEME)?;
    if rest.contains(['?', '#']) {
        return None;
    }
    let (skill, rel) = rest.split_once('/').unwrap_or((rest, ""));
    if skill.is_empty() {
        return None;
    }
    let skill = skill.to_owned();
    if rel.is_empty() {
        return Some(SkillUri::Root { skill });
    }
    Some(SkillUri::File {
        skill,
        rel: decode_path(rel)?,
    })
}

/// The backend path of `asked` inside the folder `skill_dir` of a skill, or why it is
/// refused.
///
/// `asked` is relative to the folder (`scripts/run.py`), or, as `load_skill` prints
/// resources, the full path of a file inside the folder. The backend path rules apply
/// ([`path::normalize`]: no `..`, NUL or other control characters, backslashes or
/// percent-encoded separators), and the result must lie inside the folder, not be the
/// folder itself. Links are the backend's to contain: one that leads out of the source's
/// root is never followed.
pub fn contained_path(skill_dir: &str, asked: &str) -> Result<String, String> {
    let full = if asked.starts_with('/') {
        asked.to_owned()
    } else {
        path::join(skill_dir, asked)
    };
    let normalized = path::normalize(&full).map_err(|e| e.to_string())?;
    let dir = skill_dir.trim_end_matches('/');
    if normalized == dir || !path::is_within(&normalized, dir) {
        let shown: String = asked.chars().take(200).collect();
        return Err(format!("{shown:?} is not a file inside the skill's folder"));
    }
    Ok(normalized)
}

/// One served file of a skill.
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

/// The prefix of a digest's text.
const DIGEST_PREFIX: &str = "sha256:";

impl Digested {
    fn of(bytes: &[u8], skill_md: bool) -> Self {
        let text = sha256_digest(bytes);
        let mut digest = [0u8; 32];
        let hex = text.strip_prefix(DIGEST_PREFIX).unwrap_or(&text).as_bytes();
        for (byte, pair) in digest.iter_mut().zip(hex.chunks(2)) {
            let nibble = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            *byte = (nibble(pair[0]) << 4) | nibble(pair.get(1).copied().unwrap_or(b'0'));
        }
        let frontmatter = skill_md
            .then(|| frontmatter_json(bytes))
            .flatten()
            .and_then(|map| serde_json::to_string(&map).ok())
            .map(Arc::from);
        Self {
            digest,
            size: bytes.len() as u64,
            frontmatter,
        }
    }

    /// The digest as SEP-2640 writes it: `sha256:` and 64 lowercase hex digits.
    fn digest_text(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::with_capacity(DIGEST_PREFIX.len() + 64);
        text.push_str(DIGEST_PREFIX);
        for byte in self.digest {
            let _ = write!(text, "{byte:02x}");
        }
        text
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
        let dir = skill.dir();
        let walk = backend
            .walk(dir, SKILL_TREE_DEPTH)
            .await
            .map_err(|error| format!("its folder cannot be listed: {error}"))?;
        if let Some(error) = walk.errors.first() {
            return Err(format!("part of its folder cannot be listed: {error}"));
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
        for file in files {
            match self.get(source, &file.path, file.etag.as_deref()) {
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
        if !manifest.iter().any(|f| f.rel == SKILL_FILE) {
            return Err(format!("{SKILL_FILE} is gone"));
        }
        Ok(Manifest {
            files: manifest,
            frontmatter,
        })
    }
}

/// The manifest as SEP-2640 resources, `SKILL.md` first.
pub fn skill_resources(skill: &str, files: &[ManifestFile]) -> SkillResources {
    let mut resources: Vec<SkillResource> = files
        .iter()
        .map(|f| SkillResource::new(file_uri(skill, &f.rel), f.digest.clone(), f.size))
        .collect();
    if let Some(at) = files.iter().position(|f| f.rel == SKILL_FILE) {
        let skill_md = resources.remove(at);
        resources.insert(0, skill_md);
    }
    SkillResources::Files(resources)
}

/// A MIME type from a file name; `None` when the extension says nothing.
pub fn mime_type(name: &str) -> Option<&'static str> {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "sql" => "application/sql",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_escapes() {
        let uri = file_uri("pdf", "assets/a b#?%.md");
        assert_eq!(uri, "skill://pdf/assets/a%20b%23%3F%25.md");
        assert_eq!(
            parse_uri(&uri),
            Some(SkillUri::File {
                skill: "pdf".into(),
                rel: "assets/a b#?%.md".into()
            })
        );
        assert_eq!(file_uri("café", "é.md"), "skill://café/%C3%A9.md");
        assert_eq!(
            parse_uri("skill://café/%C3%A9.md"),
            Some(SkillUri::File {
                skill: "café".into(),
                rel: "é.md".into()
            })
        );
    }

    #[test]
    fn a_kept_digest_reads_as_the_one_computed() {
        for bytes in [&b""[..], b"a", b"---\nname: x\ndescription: y\n---\n"] {
            assert_eq!(Digested::of(bytes, false).digest_text(), sha256_digest(bytes));
        }
        let skill_md = Digested::of(b"---\nname: x\ndescription: y\ntags: [a]\n---\nBody", true);
        assert_eq!(
            skill_md.frontmatter.as_deref(),
            Some(r#"{"description":"y","name":"x","tags":["a"]}"#)
        );
        assert_eq!(Digested::of(b"no frontmatter", true).frontmatter, None);
    }

    #[test]
    fn uri_forms() {
        assert_eq!(parse_uri(INDEX_URI), Some(SkillUri::Index));
        assert_eq!(parse_uri("skill://pdf"), Some(SkillUri::Root { skill: "pdf".into() }));
        assert_eq!(parse_uri("skill://pdf/"), Some(SkillUri::Root { skill: "pdf".into() }));
        for bad in [
            "file:///etc/passwd",
            "skill://",
            "skill:///x",
            "skill://pdf/a?x",
            "skill://pdf/%zz",
            "skill://pdf/%ff",
        ] {
            assert_eq!(parse_uri(bad), None, "{bad}");
        }
    }

    #[test]
    fn containment() {
        let dir = "/lib/pdf";
        for (asked, expected) in [
            ("scripts/run.py", "/lib/pdf/scripts/run.py"),
            ("/lib/pdf/scripts/run.py", "/lib/pdf/scripts/run.py"),
            ("./scripts//run.py", "/lib/pdf/scripts/run.py"),
        ] {
            assert_eq!(contained_path(dir, asked).as_deref(), Ok(expected), "{asked:?}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../other/SKILL.md",
            "scripts/../../other/SKILL.md",
            "scripts/..",
            "scripts/%2e%2e/x",
            "/etc/passwd",
            "/lib/pdf-other/SKILL.md",
            "/lib/pdf",
            "/lib/pdf/../x",
            "..\\x",
            "a\0b",
        ] {
            assert!(contained_path(dir, bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn skill_md_comes_first() {
        let files = [
            ManifestFile {
                rel: "A.md".into(),
                digest: sha256_digest(b"a"),
                size: 1,
            },
            ManifestFile {
                rel: SKILL_FILE.into(),
                digest: sha256_digest(b"s"),
                size: 1,
            },
        ];
        let SkillResources::Files(resources) = skill_resources("x", &files) else {
            panic!("expected files");
        };
        assert_eq!(resources[0].uri, "skill://x/SKILL.md");
        assert_eq!(resources[1].uri, "skill://x/A.md");
    }
}

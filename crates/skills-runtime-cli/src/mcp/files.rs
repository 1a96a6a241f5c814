//! A skill's files as MCP resources: `skill://` URIs, the containment rule for paths a
//! client asks for, and the manifest (every file with its size and SHA-256 digest, from
//! the catalog's [`DigestCache`]) as `skills/list` and `skills/get` carry it.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use rmcp::model::{SkillResource, SkillResources};
pub use skills_runtime::manifest::{DigestCache, ManifestFile};
use skills_runtime::{SKILL_FILE, SkillMetadata};

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

/// The URI of a skill's `SKILL.md`. SEP-2640 names a skill by it, so a folder whose
/// skill file is a lowercase `skill.md` is served with that file as `SKILL.md` too (in
/// its manifest and when read), which is also the name a host looks for once it has
/// copied the folder.
pub fn skill_md_uri(skill: &SkillMetadata) -> String {
    file_uri(&skill.name, SKILL_FILE)
}

/// The name of a skill's skill file: `SKILL.md`, or the lowercase `skill.md` it was
/// read from.
pub fn skill_file_name(skill: &SkillMetadata) -> &str {
    let name = skills_runtime::path::file_name(&skill.path);
    if skills_runtime::is_skill_file_name(name) {
        name
    } else {
        SKILL_FILE
    }
}

/// What a path inside a skill's folder keeps unescaped in a URI: unreserved characters
/// and `/`.
const PATH_ESCAPES: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Percent-encodes every byte but unreserved characters and `/` (a `skill://` URI's
/// path, and a registry's URL relative to its index).
pub(crate) fn encode_path(rel: &str, out: &mut String) {
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

/// The manifest as SEP-2640 resources, the skill file (`skill_file`, listed as
/// `SKILL.md` whatever its name on disk) first.
pub fn skill_resources(skill: &str, skill_file: &str, files: &[ManifestFile]) -> SkillResources {
    let mut resources: Vec<SkillResource> = files
        .iter()
        .map(|f| {
            let rel = if f.rel == skill_file { SKILL_FILE } else { &f.rel };
            SkillResource::new(file_uri(skill, rel), f.digest.clone(), f.size)
        })
        .collect();
    if let Some(at) = files.iter().position(|f| f.rel == skill_file) {
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
    fn skill_md_comes_first() {
        let files = [
            ManifestFile {
                rel: "A.md".into(),
                digest: "sha256:aa".into(),
                size: 1,
            },
            ManifestFile {
                rel: SKILL_FILE.into(),
                digest: "sha256:bb".into(),
                size: 1,
            },
        ];
        let SkillResources::Files(resources) = skill_resources("x", SKILL_FILE, &files) else {
            panic!("expected files");
        };
        assert_eq!(resources[0].uri, "skill://x/SKILL.md");
        assert_eq!(resources[1].uri, "skill://x/A.md");
    }
}

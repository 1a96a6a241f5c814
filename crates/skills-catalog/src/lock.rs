//! `skills.lock`: what a library held when it was pinned: each source's resolved version
//! and, for every skill, the SHA-256 digest and size of every file in its folder (the
//! digests of [`crate::manifest`]). Deterministic, diff-friendly TOML.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::manifest::{ManifestFile, sha256_digest};

/// The lockfile's name, next to `skills.toml`.
pub const LOCK_FILE: &str = "skills.lock";
/// The format version this crate writes and reads.
pub const LOCK_VERSION: u32 = 1;

/// A pinned library.
///
/// ```
/// use skills_catalog::lock::{Lock, LockedFile, LockedSkill};
/// let mut lock = Lock::default();
/// lock.skills.insert("web".into(), LockedSkill {
///     source: "team".into(),
///     files: [("SKILL.md".to_owned(), LockedFile { digest: "sha256:00".into(), size: 3 })].into(),
/// });
/// let text = lock.to_toml();
/// assert!(text.contains("[skills.\"web\"]"));
/// assert_eq!(Lock::parse(&text).unwrap(), lock);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// Each source by its label.
    #[serde(default)]
    pub sources: BTreeMap<String, LockedSource>,
    /// Each skill by its name.
    #[serde(default)]
    pub skills: BTreeMap<String, LockedSkill>,
}

/// A source as it was pinned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedSource {
    /// Where it is, as shown to people.
    pub location: String,
    /// Its version: `git:<commit>` when the backend names one, else `content
    /// sha256:<hex>`, a digest of every locked file of its skills.
    pub resolved: String,
    /// The source as it can be opened again (`[LABEL=]`'s location: a folder relative to
    /// the lockfile, `s3://...`, `git+...#ref=...`), when it was opened from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// How many levels below it skill folders may lie (0: it is one skill folder).
    #[serde(default = "one")]
    pub depth: usize,
    /// Its place in the chain of sources, lowest priority first (sources are written
    /// by label; for one name, the source with the higher priority wins).
    #[serde(default)]
    pub priority: usize,
}

fn one() -> usize {
    1
}

/// A skill as it was pinned: every file of its folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedSkill {
    /// The label of the source serving it.
    pub source: String,
    /// Each file by its path inside the skill's folder.
    #[serde(with = "file_list")]
    pub files: BTreeMap<String, LockedFile>,
}

/// One pinned file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedFile {
    /// `sha256:<hex>`.
    pub digest: String,
    /// Bytes.
    pub size: u64,
}

/// Files as a list of `{ path, digest, size }` in the TOML, a map in memory.
mod file_list {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::LockedFile;

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        path: String,
        digest: String,
        size: u64,
    }

    pub fn serialize<S: Serializer>(files: &BTreeMap<String, LockedFile>, serializer: S) -> Result<S::Ok, S::Error> {
        let entries: Vec<Entry> = files
            .iter()
            .map(|(path, f)| Entry {
                path: path.clone(),
                digest: f.digest.clone(),
                size: f.size,
            })
            .collect();
        entries.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<BTreeMap<String, LockedFile>, D::Error> {
        let entries = Vec::<Entry>::deserialize(deserializer)?;
        Ok(entries
            .into_iter()
            .map(|e| {
                let file = LockedFile {
                    digest: e.digest,
                    size: e.size,
                };
                (e.path, file)
            })
            .collect())
    }
}

/// Why a lockfile cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// Not valid TOML, or not the lock's shape.
    #[error("{LOCK_FILE} is not a valid lock: {0}")]
    Invalid(String),
    /// Written by a newer version.
    #[error("{LOCK_FILE} has format version {0}; this version reads {LOCK_VERSION}")]
    Version(u32),
}

#[derive(Deserialize)]
struct Document {
    version: u32,
    #[serde(flatten)]
    lock: Lock,
}

/// How one skill differs from its lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// A locked file has other bytes.
    Changed {
        /// The skill.
        skill: String,
        /// The file, inside the skill's folder.
        file: String,
    },
    /// A file the lock does not name.
    Added {
        /// The skill.
        skill: String,
        /// The file.
        file: String,
    },
    /// A locked file is gone.
    Removed {
        /// The skill.
        skill: String,
        /// The file.
        file: String,
    },
    /// A skill the lock does not name.
    NewSkill {
        /// The skill.
        skill: String,
    },
    /// A locked skill is gone.
    Gone {
        /// The skill.
        skill: String,
    },
    /// The skill is served by another source than the locked one.
    Moved {
        /// The skill.
        skill: String,
        /// The locked source.
        locked: String,
        /// The source serving it now.
        now: String,
    },
    /// The skill's files cannot all be read (so cannot be checked).
    Unreadable {
        /// The skill.
        skill: String,
        /// Why.
        reason: String,
    },
}

impl Drift {
    /// The skill concerned.
    pub fn skill(&self) -> &str {
        match self {
            Self::Changed { skill, .. }
            | Self::Added { skill, .. }
            | Self::Removed { skill, .. }
            | Self::NewSkill { skill }
            | Self::Gone { skill }
            | Self::Moved { skill, .. }
            | Self::Unreadable { skill, .. } => skill,
        }
    }
}

impl fmt::Display for Drift {
    /// One line: `changed: web/SKILL.md`, `new skill: pdf`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Changed { skill, file } => write!(f, "changed: {skill}/{file}"),
            Self::Added { skill, file } => write!(f, "added: {skill}/{file}"),
            Self::Removed { skill, file } => write!(f, "removed: {skill}/{file}"),
            Self::NewSkill { skill } => write!(f, "new skill: {skill} (not in {LOCK_FILE})"),
            Self::Gone { skill } => write!(f, "gone: {skill} (locked, not found)"),
            Self::Moved { skill, locked, now } => write!(f, "moved: {skill} (locked in {locked}, served by {now})"),
            Self::Unreadable { skill, reason } => write!(f, "unreadable: {skill}: {reason}"),
        }
    }
}

impl Lock {
    /// Reads a lockfile's text.
    pub fn parse(text: &str) -> Result<Self, LockError> {
        let document: Document = toml::from_str(text).map_err(|e| LockError::Invalid(e.to_string()))?;
        if document.version != LOCK_VERSION {
            return Err(LockError::Version(document.version));
        }
        Ok(document.lock)
    }

    /// The lockfile's text: the same lock always gives the same text, sources and skills
    /// sorted by name, one file per line.
    pub fn to_toml(&self) -> String {
        let mut out = format!(
            "# {LOCK_FILE}: every skill of this library and the digest of each of its files.\n\
             # Written by `skills lock`; `skills verify` checks the library against it.\n\
             version = {LOCK_VERSION}\n"
        );
        for (label, source) in &self.sources {
            out.push_str(&format!(
                "\n[sources.{}]\nlocation = {}\nresolved = {}\n",
                quote(label),
                quote(&source.location),
                quote(&source.resolved)
            ));
            if let Some(spec) = &source.spec {
                out.push_str(&format!("spec = {}\n", quote(spec)));
            }
            if source.depth != 1 {
                out.push_str(&format!("depth = {}\n", source.depth));
            }
            if source.priority > 0 {
                out.push_str(&format!("priority = {}\n", source.priority));
            }
        }
        for (name, skill) in &self.skills {
            out.push_str(&format!(
                "\n[skills.{}]\nsource = {}\nfiles = [\n",
                quote(name),
                quote(&skill.source)
            ));
            for (path, file) in &skill.files {
                out.push_str(&format!(
                    "    {{ path = {}, digest = {}, size = {} }},\n",
                    quote(path),
                    quote(&file.digest),
                    file.size
                ));
            }
            out.push_str("]\n");
        }
        out
    }

    /// `content sha256:<hex>`: a digest of the locked files of the skills of `label`.
    pub(crate) fn content_digest(&self, label: &str) -> String {
        let paths: Vec<(String, &LockedFile)> = self
            .skills
            .iter()
            .filter(|(_, s)| s.source == label)
            .flat_map(|(name, skill)| skill.files.iter().map(move |(path, f)| (format!("{name}/{path}"), f)))
            .collect();
        let digest =
            skills_core::digest::files_digest(paths.iter().map(|(p, f)| (p.as_str(), f.digest.as_str(), f.size)));
        format!("content {digest}")
    }

    /// How `found` (the lock of the library as it is now, see
    /// [`SkillCatalog::pin`](crate::SkillCatalog::pin)) differs from this lock: every
    /// drift of its skills, then each locked skill it no longer has.
    pub fn drift(&self, found: &Lock) -> Vec<Drift> {
        let mut drift: Vec<Drift> = found
            .skills
            .iter()
            .flat_map(|(name, skill)| self.check_files(name, &skill.source, &skill.files))
            .collect();
        drift.extend(
            self.skills
                .keys()
                .filter(|name| !found.skills.contains_key(*name))
                .map(|name| Drift::Gone { skill: name.clone() }),
        );
        drift
    }

    /// How the skill `name`, served by `source` with `files`, differs from the lock.
    pub fn check_skill(&self, name: &str, source: &str, files: &[ManifestFile]) -> Vec<Drift> {
        self.check_files(name, source, &files_of(files))
    }

    fn check_files(&self, name: &str, source: &str, found: &BTreeMap<String, LockedFile>) -> Vec<Drift> {
        let Some(locked) = self.skills.get(name) else {
            return vec![Drift::NewSkill { skill: name.to_owned() }];
        };
        let mut drift = Vec::new();
        if locked.source != source {
            drift.push(Drift::Moved {
                skill: name.to_owned(),
                locked: locked.source.clone(),
                now: source.to_owned(),
            });
        }
        for (path, file) in found {
            let skill = name.to_owned();
            match locked.files.get(path) {
                None => drift.push(Drift::Added {
                    skill,
                    file: path.clone(),
                }),
                Some(pinned) if pinned != file => drift.push(Drift::Changed {
                    skill,
                    file: path.clone(),
                }),
                Some(_) => {}
            }
        }
        for path in locked.files.keys().filter(|p| !found.contains_key(*p)) {
            drift.push(Drift::Removed {
                skill: name.to_owned(),
                file: path.clone(),
            });
        }
        drift
    }

    /// Whether `bytes` are the locked content of file `path` (inside its folder) of
    /// skill `name`.
    pub fn holds(&self, name: &str, path: &str, bytes: &[u8]) -> bool {
        self.skills
            .get(name)
            .and_then(|s| s.files.get(path))
            .is_some_and(|f| f.size == bytes.len() as u64 && f.digest == sha256_digest(bytes))
    }
}

pub(crate) fn files_of(files: &[ManifestFile]) -> BTreeMap<String, LockedFile> {
    files
        .iter()
        .map(|f| {
            let file = LockedFile {
                digest: f.digest.clone(),
                size: f.size,
            };
            (f.rel.clone(), file)
        })
        .collect()
}

/// `text` as a TOML basic string.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rel: &str, bytes: &[u8]) -> ManifestFile {
        ManifestFile {
            rel: rel.into(),
            digest: sha256_digest(bytes),
            size: bytes.len() as u64,
        }
    }

    #[test]
    fn text_round_trips_and_is_stable() {
        let mut lock = Lock::default();
        lock.sources.insert(
            "team \"a\"".into(),
            LockedSource {
                location: "s3://b/p".into(),
                resolved: "git:abc".into(),
                spec: Some("s3://b/p".into()),
                depth: 3,
                priority: 1,
            },
        );
        lock.sources.insert(
            "plain".into(),
            LockedSource {
                location: "/lib".into(),
                resolved: "content sha256:00".into(),
                spec: None,
                depth: 1,
                priority: 0,
            },
        );
        lock.skills.insert(
            "web".into(),
            LockedSkill {
                source: "team \"a\"".into(),
                files: files_of(&[file("SKILL.md", b"x"), file("scripts/a b.py", b"y")]),
            },
        );
        let text = lock.to_toml();
        assert_eq!(Lock::parse(&text).unwrap(), lock);
        assert_eq!(Lock::parse(&text).unwrap().to_toml(), text);
        assert!(
            text.contains("    { path = \"scripts/a b.py\", digest = \"sha256:"),
            "{text}"
        );
        assert!(matches!(Lock::parse("version = 9"), Err(LockError::Version(9))));
        assert!(matches!(Lock::parse("nonsense ="), Err(LockError::Invalid(_))));
    }

    #[test]
    fn drift_names_each_file() {
        let mut lock = Lock::default();
        lock.skills.insert(
            "web".into(),
            LockedSkill {
                source: "team".into(),
                files: files_of(&[file("SKILL.md", b"x"), file("old.md", b"o")]),
            },
        );
        let now = [file("SKILL.md", b"changed"), file("new.md", b"n")];
        let drift: Vec<String> = lock
            .check_skill("web", "base", &now)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            drift,
            [
                "moved: web (locked in team, served by base)",
                "changed: web/SKILL.md",
                "added: web/new.md",
                "removed: web/old.md"
            ]
        );
        assert!(
            lock.check_skill("web", "team", &[file("SKILL.md", b"x"), file("old.md", b"o")])
                .is_empty()
        );
        assert_eq!(
            lock.check_skill("pdf", "team", &[])[0].to_string(),
            "new skill: pdf (not in skills.lock)"
        );
        assert!(lock.holds("web", "SKILL.md", b"x") && !lock.holds("web", "SKILL.md", b"y"));

        // Two locks: what the found one has that differs, then what it lost.
        let mut found = Lock::default();
        found.skills.insert(
            "pdf".into(),
            LockedSkill {
                source: "team".into(),
                files: files_of(&[file("SKILL.md", b"p")]),
            },
        );
        let drift: Vec<String> = lock.drift(&found).iter().map(ToString::to_string).collect();
        assert_eq!(
            drift,
            ["new skill: pdf (not in skills.lock)", "gone: web (locked, not found)"]
        );
        assert!(lock.drift(&lock).is_empty());
    }
}

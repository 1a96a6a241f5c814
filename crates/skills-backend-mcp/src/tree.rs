//! The files a server publishes, as a tree of backend paths: each skill
//! `skill://PATH/SKILL.md` is the folder `/PATH`, each file of its manifest a file in it.
//! What the extension forbids (a URI outside its skill, a skill over the limits, two
//! skills at one path) is left out and said, never served.

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::{Skill, SkillResources};
use skills_core::{FileInfo, SKILL_FILE, path};

/// The most files one skill may publish (the extension's limit).
pub const MAX_SKILL_FILES: usize = 512;
/// The most bytes one skill's files may hold together (the extension's limit).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// The most skills read from one server.
pub const MAX_SKILLS: usize = 20_000;

/// One published file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEntry {
    /// Its resource URI.
    pub uri: String,
    /// Its size, from the manifest (0 when the skill's resources are dynamic).
    pub size: u64,
    /// `sha256:...` from the manifest; `None` when the skill's resources are dynamic.
    pub digest: Option<String>,
}

/// The server's skills as files and folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tree {
    pub files: BTreeMap<String, FileEntry>,
    pub dirs: BTreeSet<String>,
    /// The folders of skills whose resources are dynamic (served without digests).
    pub dynamic: BTreeSet<String>,
}

impl Tree {
    /// Builds the tree of `skills`; what is left out is pushed onto `problems`.
    pub fn build(skills: Vec<Skill>, problems: &mut Vec<String>) -> Self {
        let mut tree = Self::default();
        tree.dirs.insert("/".to_owned());
        for skill in skills {
            tree.add(skill, problems);
        }
        tree
    }

    fn add(&mut self, skill: Skill, problems: &mut Vec<String>) {
        let Some(folder) = skill_folder(&skill.uri) else {
            problems.push(format!(
                "skill URI {} is not skill://PATH/SKILL.md; left out",
                shown(&skill.uri)
            ));
            return;
        };
        let skill_md = format!("{folder}/{SKILL_FILE}");
        if self.files.contains_key(&skill_md) {
            problems.push(format!("two skills at {}; the second is left out", shown(&skill.uri)));
            return;
        }
        let base = format!("{}/", &skill.uri[..skill.uri.len() - SKILL_FILE.len() - 1]);
        let mut files = BTreeMap::new();
        match skill.resources {
            SkillResources::Files(list) => {
                if list.len() > MAX_SKILL_FILES {
                    problems.push(format!(
                        "{} publishes {} files (at most {MAX_SKILL_FILES}); left out",
                        shown(&skill.uri),
                        list.len()
                    ));
                    return;
                }
                let total: u64 = list.iter().map(|f| f.size).fold(0, u64::saturating_add);
                if total > MAX_SKILL_BYTES {
                    problems.push(format!(
                        "{} publishes {total} bytes (at most {MAX_SKILL_BYTES}); left out",
                        shown(&skill.uri)
                    ));
                    return;
                }
                for file in list {
                    let rel = file.uri.strip_prefix(&base).and_then(relative_path).map(str::to_owned);
                    let Some(rel) = rel else {
                        problems.push(format!(
                            "{}: file URI {} is outside the skill; not served",
                            shown(&skill.uri),
                            shown(&file.uri)
                        ));
                        continue;
                    };
                    let entry = FileEntry {
                        uri: file.uri,
                        size: file.size,
                        digest: Some(file.digest),
                    };
                    files.insert(format!("{folder}/{rel}"), entry);
                }
                if !files.contains_key(&skill_md) {
                    problems.push(format!(
                        "{}: the manifest does not list SKILL.md; left out",
                        shown(&skill.uri)
                    ));
                    return;
                }
            }
            SkillResources::Dynamic => {
                problems.push(format!(
                    "{} publishes its resources as dynamic: its SKILL.md is served without a digest to check",
                    shown(&skill.uri)
                ));
                self.dynamic.insert(folder.clone());
                let entry = FileEntry {
                    uri: skill.uri.clone(),
                    size: 0,
                    digest: None,
                };
                files.insert(skill_md, entry);
            }
            _ => {
                problems.push(format!("{}: resources of an unknown form; left out", shown(&skill.uri)));
                return;
            }
        }
        for path in files.keys() {
            let mut dir = path::parent(path);
            while dir != "/" && self.dirs.insert(dir.to_owned()) {
                dir = path::parent(dir);
            }
        }
        self.files.extend(files);
    }

    /// Adds `uri`, found by a directory read under the dynamic skill at `folder`
    /// (`skill_base` its URI prefix), as a file without a digest; `false` (and nothing
    /// added) when it is outside the skill.
    pub fn add_dynamic_file(&mut self, folder: &str, skill_base: &str, uri: &str, size: u64) -> bool {
        let Some(rel) = uri.strip_prefix(skill_base).and_then(relative_path) else {
            return false;
        };
        let path = format!("{folder}/{rel}");
        let mut dir = path::parent(&path);
        while dir != "/" && self.dirs.insert(dir.to_owned()) {
            dir = path::parent(dir);
        }
        self.files.entry(path).or_insert(FileEntry {
            uri: uri.to_owned(),
            size,
            digest: None,
        });
        true
    }

    /// The entries directly in the folder `dir` (normalized), sorted by path.
    pub fn children(&self, dir: &str) -> Vec<FileInfo> {
        let prefix = if dir == "/" { "/".to_owned() } else { format!("{dir}/") };
        let direct = |p: &&String| p.starts_with(&prefix) && p.len() > prefix.len() && !p[prefix.len()..].contains('/');
        let mut listed: Vec<FileInfo> = self
            .files
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter(|(p, _)| direct(p))
            .map(|(p, entry)| FileInfo {
                path: p.clone(),
                is_dir: false,
                size: entry.size,
                modified_at: None,
                etag: entry.digest.clone(),
                changed_at: None,
            })
            .collect();
        listed.extend(
            self.dirs
                .range(prefix.clone()..)
                .take_while(|p| p.starts_with(&prefix))
                .filter(direct)
                .map(|p| FileInfo::directory(p.clone())),
        );
        listed.sort_by(|a, b| a.path.cmp(&b.path));
        listed
    }

    /// What polling compares: each skill folder and its files' digests.
    pub fn fingerprints(&self) -> BTreeMap<String, String> {
        let mut prints: BTreeMap<String, String> = BTreeMap::new();
        for (p, entry) in &self.files {
            let folder = skill_folder_of(p, &self.files);
            let print = prints.entry(folder).or_default();
            print.push_str(p);
            print.push(' ');
            print.push_str(entry.digest.as_deref().unwrap_or("dynamic"));
            print.push('\n');
        }
        prints
    }
}

/// The folder `/PATH` of `skill://PATH/SKILL.md`: PATH made of plain segments.
fn skill_folder(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("skill://")?;
    let path = rest.strip_suffix(SKILL_FILE)?.strip_suffix('/')?;
    let rel = relative_path(path)?;
    Some(format!("/{rel}"))
}

/// `rel` when it is a relative path of plain segments (no `..`, `.`, empty segment,
/// backslash, control character, query or fragment).
fn relative_path(rel: &str) -> Option<&str> {
    let plain = |segment: &str| {
        !segment.is_empty()
            && segment != "."
            && segment != ".."
            && !segment.chars().any(|c| c.is_control() || matches!(c, '\\' | '?' | '#'))
    };
    (!rel.is_empty() && rel.split('/').all(plain)).then_some(rel)
}

/// The skill folder holding `path`: the nearest ancestor with a SKILL.md.
fn skill_folder_of(p: &str, files: &BTreeMap<String, FileEntry>) -> String {
    let mut dir = path::parent(p);
    while dir != "/" {
        if files.contains_key(&format!("{dir}/{SKILL_FILE}")) {
            return dir.to_owned();
        }
        dir = path::parent(dir);
    }
    path::parent(p).to_owned()
}

/// A URI as shown in a message: at most 200 characters, on one line.
pub(crate) fn shown(uri: &str) -> String {
    let one_line: String = uri
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    format!("`{one_line}`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{SkillFrontmatter, SkillResource};

    fn skill(uri: &str, files: &[(&str, u64)]) -> Skill {
        let files = files
            .iter()
            .map(|(u, size)| SkillResource::new(*u, format!("sha256:{:064x}", size), *size))
            .collect();
        Skill::new(uri, SkillFrontmatter::new("x", "y"), SkillResources::Files(files))
    }

    #[test]
    fn skills_become_folders_and_what_escapes_is_left_out() {
        let mut problems = Vec::new();
        let tree = Tree::build(
            vec![
                skill(
                    "skill://pdf/SKILL.md",
                    &[
                        ("skill://pdf/SKILL.md", 10),
                        ("skill://pdf/scripts/a.py", 3),
                        ("skill://other/x", 1),
                    ],
                ),
                skill("skill://team/web/SKILL.md", &[("skill://team/web/SKILL.md", 5)]),
                skill("skill://../evil/SKILL.md", &[("skill://../evil/SKILL.md", 1)]),
                skill("skill://pdf/SKILL.md", &[("skill://pdf/SKILL.md", 1)]),
                skill("skill://nomd/SKILL.md", &[("skill://nomd/a.txt", 1)]),
                skill(
                    "skill://dots/SKILL.md",
                    &[("skill://dots/SKILL.md", 1), ("skill://dots/../pdf/x", 1)],
                ),
            ],
            &mut problems,
        );
        let paths: Vec<&str> = tree.files.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "/dots/SKILL.md",
                "/pdf/SKILL.md",
                "/pdf/scripts/a.py",
                "/team/web/SKILL.md"
            ]
        );
        assert_eq!(problems.len(), 5, "{problems:?}");
        let root: Vec<String> = tree.children("/").into_iter().map(|f| f.path).collect();
        assert_eq!(root, ["/dots", "/pdf", "/team"]);
        let pdf = tree.children("/pdf");
        assert_eq!(pdf[0].path, "/pdf/SKILL.md");
        assert_eq!(pdf[0].size, 10);
        assert!(pdf[0].etag.as_deref().unwrap().starts_with("sha256:"));
        assert_eq!(pdf[1].path, "/pdf/scripts");
        assert!(pdf[1].is_dir);
        let prints = tree.fingerprints();
        assert_eq!(prints.keys().collect::<Vec<_>>(), ["/dots", "/pdf", "/team/web"]);
    }

    #[test]
    fn limits_leave_a_skill_out() {
        let mut problems = Vec::new();
        let many: Vec<(String, u64)> = (0..=MAX_SKILL_FILES).map(|i| (format!("skill://m/f{i}"), 1)).collect();
        let many: Vec<(&str, u64)> = many.iter().map(|(u, s)| (u.as_str(), *s)).collect();
        let tree = Tree::build(
            vec![
                skill("skill://m/SKILL.md", &many),
                skill("skill://big/SKILL.md", &[("skill://big/SKILL.md", MAX_SKILL_BYTES + 1)]),
            ],
            &mut problems,
        );
        assert!(tree.files.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}

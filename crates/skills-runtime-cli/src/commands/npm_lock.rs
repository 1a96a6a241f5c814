//! `skills sync --from-npm-lock`: the `skills-lock.json` the `skills` npm installer
//! writes in a project, read as `[[install]]` tables, so a team moves over with one
//! command. Each entry names its source (`sourceType` github, gitlab, git, local or
//! well-known, a `ref`, and the skill's `skillPath`); entries of one source folder
//! become one `[[install]]` naming its skills. Skills npm took from `node_modules`
//! packages are left to npm, and said so.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;
use skills_runtime::sources::InstallSpec;

/// The file the npm installer writes at a project's root.
pub const NPM_LOCK_FILE: &str = "skills-lock.json";

#[derive(Deserialize)]
struct NpmLock {
    version: u64,
    #[serde(default)]
    skills: BTreeMap<String, NpmEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NpmEntry {
    #[serde(default)]
    source: String,
    source_url: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
    #[serde(default)]
    source_type: String,
    skill_path: Option<String>,
}

/// The `[[install]]` tables `text` (a `skills-lock.json` of the project at `root`)
/// stands for, and one line per entry that cannot be taken over.
pub fn specs_from_npm_lock(text: &str, root: &Path) -> anyhow::Result<(Vec<InstallSpec>, Vec<String>)> {
    let lock: NpmLock = serde_json::from_str(text).context("not a skills-lock.json of the npm installer")?;
    if lock.version < 1 {
        bail!(
            "skills-lock.json version {} is not one this reads (1 and later)",
            lock.version
        );
    }
    // Each source with its depth (0 for a repository that is one skill).
    let mut sources: BTreeMap<(String, Option<usize>), Vec<String>> = BTreeMap::new();
    let mut left = Vec::new();
    for (name, entry) in &lock.skills {
        match source_of(entry, root) {
            Ok(source) => {
                let depth = is_one_skill(entry).then_some(0);
                sources.entry((source, depth)).or_default().push(name.clone());
            }
            Err(why) => left.push(format!("{name}: {why}")),
        }
    }
    let specs = sources
        .into_iter()
        .map(|((source, depth), skills)| InstallSpec {
            source,
            skills,
            depth,
            ..InstallSpec::default()
        })
        .collect();
    Ok((specs, left))
}

/// The folder of the entry's skill below its source (`skills/pdf`; empty at the root).
fn skill_folder(entry: &NpmEntry) -> &str {
    entry
        .skill_path
        .as_deref()
        .map(|p| {
            p.trim_end_matches("SKILL.md")
                .trim_end_matches("skill.md")
                .trim_matches('/')
        })
        .unwrap_or("")
}

/// Whether the entry's source is itself its skill (its `SKILL.md` at the root of a
/// repository or folder): read at depth 0.
fn is_one_skill(entry: &NpmEntry) -> bool {
    skill_folder(entry).is_empty() && matches!(entry.source_type.as_str(), "github" | "git" | "gitlab" | "local")
}

/// Our source for one entry: its repository or folder, at its ref, down to the folder
/// that holds the skill's folder (the repository or folder itself when that is the
/// skill: see [`is_one_skill`]).
fn source_of(entry: &NpmEntry, root: &Path) -> Result<String, String> {
    // "skills/pdf/SKILL.md" -> the skill's folder "skills/pdf" -> its parent "skills".
    let folder = skill_folder(entry);
    let parent = folder.rsplit_once('/').map_or("", |(parent, _)| parent);
    if parent.split('/').any(|s| s == "..") {
        return Err(format!("its skillPath {folder:?} leaves the repository"));
    }
    let git = |url: &str| {
        let mut fragment = Vec::new();
        if let Some(reference) = entry.reference.as_deref().filter(|r| !r.is_empty()) {
            fragment.push(format!("ref={reference}"));
        }
        if !parent.is_empty() {
            fragment.push(format!("path={parent}"));
        }
        let mut spec = format!("git+{url}");
        if !fragment.is_empty() {
            spec.push('#');
            spec.push_str(&fragment.join("&"));
        }
        spec
    };
    match entry.source_type.as_str() {
        "github" => {
            let repo = entry.source.trim_end_matches(".git");
            if repo.contains("://") {
                Ok(git(&format!("{repo}.git")))
            } else {
                Ok(git(&format!("https://github.com/{repo}.git")))
            }
        }
        "git" | "gitlab" => match &entry.source_url {
            Some(url) => Ok(git(url)),
            None if entry.source.contains("://") => Ok(git(&entry.source)),
            None => Err("a git source without its URL (sourceUrl)".to_owned()),
        },
        "local" => {
            let base = root.join(entry.source.trim_start_matches("./"));
            let dir = if parent.is_empty() { base } else { base.join(parent) };
            Ok(dir.display().to_string())
        }
        "well-known" => entry
            .source_url
            .clone()
            .ok_or_else(|| "a well-known source without its URL (sourceUrl)".to_owned()),
        "node_modules" => Err("installed from an npm package: npm keeps it".to_owned()),
        other => Err(format!("a source of type {other:?}, which this does not read")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_one_folder_become_one_install_and_the_rest_is_said() {
        let text = r#"{
          "version": 1,
          "skills": {
            "pdf": {"source": "anthropics/skills", "ref": "main", "sourceType": "github",
                     "skillPath": "skills/pdf/SKILL.md", "computedHash": "ab"},
            "docx": {"source": "anthropics/skills", "ref": "main", "sourceType": "github",
                      "skillPath": "skills/docx/SKILL.md", "computedHash": "cd"},
            "root": {"source": "me/one-skill", "sourceType": "github", "skillPath": "SKILL.md"},
            "here": {"source": "./one", "sourceType": "local", "skillPath": "SKILL.md"},
            "team": {"source": "team/skills", "sourceUrl": "https://git.example.com/team/skills.git",
                      "sourceType": "git", "skillPath": "lib/team/SKILL.md"},
            "mine": {"source": "./vendor/skills", "sourceType": "local", "skillPath": "mine/SKILL.md"},
            "npm": {"source": "some-package", "sourceType": "node_modules"},
            "bare": {"source": "team/skills", "sourceType": "git", "skillPath": "a/b/SKILL.md"}
          }
        }"#;
        let (specs, left) = specs_from_npm_lock(text, Path::new("/p")).unwrap();
        let pairs: Vec<(&str, Option<usize>, Vec<&str>)> = specs
            .iter()
            .map(|s| {
                (
                    s.source.as_str(),
                    s.depth,
                    s.skills.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ("/p/one", Some(0), vec!["here"]),
                ("/p/vendor/skills", None, vec!["mine"]),
                (
                    "git+https://git.example.com/team/skills.git#path=lib",
                    None,
                    vec!["team"]
                ),
                (
                    "git+https://github.com/anthropics/skills.git#ref=main&path=skills",
                    None,
                    vec!["docx", "pdf"]
                ),
                ("git+https://github.com/me/one-skill.git", Some(0), vec!["root"]),
            ]
        );
        assert_eq!(
            left,
            [
                "bare: a git source without its URL (sourceUrl)",
                "npm: installed from an npm package: npm keeps it",
            ]
        );
        assert!(specs_from_npm_lock("{\"version\": 0, \"skills\": {}}", Path::new("/p")).is_err());
        assert!(specs_from_npm_lock("[]", Path::new("/p")).is_err());
    }
}

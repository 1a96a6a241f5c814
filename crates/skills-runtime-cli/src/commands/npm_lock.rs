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
    let mut sources: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut left = Vec::new();
    for (name, entry) in &lock.skills {
        match source_of(entry, root) {
            Ok(source) => sources.entry(source).or_default().push(name.clone()),
            Err(why) => left.push(format!("{name}: {why}")),
        }
    }
    let specs = sources
        .into_iter()
        .map(|(source, skills)| InstallSpec {
            source,
            skills,
            ..InstallSpec::default()
        })
        .collect();
    Ok((specs, left))
}

/// Our source for one entry: its repository or folder, at its ref, down to the folder
/// that holds the skill's folder.
fn source_of(entry: &NpmEntry, root: &Path) -> Result<String, String> {
    // "skills/pdf/SKILL.md" -> the skill's folder "skills/pdf" -> its parent "skills".
    let folder = entry
        .skill_path
        .as_deref()
        .map(|p| {
            p.trim_end_matches("SKILL.md")
                .trim_end_matches("skill.md")
                .trim_matches('/')
        })
        .unwrap_or("");
    if folder.is_empty() && entry.source_type != "well-known" && entry.source_type != "node_modules" {
        return Err(
            "its SKILL.md is at the root of its source, which cannot be read as a library of skills yet".to_owned(),
        );
    }
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
            "team": {"source": "team/skills", "sourceUrl": "https://git.example.com/team/skills.git",
                      "sourceType": "git", "skillPath": "lib/team/SKILL.md"},
            "mine": {"source": "./vendor/skills", "sourceType": "local", "skillPath": "mine/SKILL.md"},
            "npm": {"source": "some-package", "sourceType": "node_modules"},
            "bare": {"source": "team/skills", "sourceType": "git", "skillPath": "a/b/SKILL.md"}
          }
        }"#;
        let (specs, left) = specs_from_npm_lock(text, Path::new("/p")).unwrap();
        let pairs: Vec<(&str, Vec<&str>)> = specs
            .iter()
            .map(|s| (s.source.as_str(), s.skills.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("/p/vendor/skills", vec!["mine"]),
                ("git+https://git.example.com/team/skills.git#path=lib", vec!["team"]),
                (
                    "git+https://github.com/anthropics/skills.git#ref=main&path=skills",
                    vec!["docx", "pdf"]
                ),
            ]
        );
        assert_eq!(
            left,
            [
                "bare: a git source without its URL (sourceUrl)",
                "npm: installed from an npm package: npm keeps it",
                "root: its SKILL.md is at the root of its source, which cannot be read as a library of skills yet"
            ]
        );
        assert!(specs_from_npm_lock("{\"version\": 0, \"skills\": {}}", Path::new("/p")).is_err());
        assert!(specs_from_npm_lock("[]", Path::new("/p")).is_err());
    }
}

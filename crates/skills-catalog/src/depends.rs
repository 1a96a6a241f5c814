//! Skills that depend on skills: the closure of a set of names (what installing or
//! viewing them brings along), and what `validate` reports of a snapshot (a dependency
//! no source has, a cycle).

use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap};

use skills_core::extensions::{OPENAI_AGENT_FILE, agent_yaml_dependencies};
use skills_core::{BackendExt, Diagnostic, DiagnosticKind, FileErrorKind, McpServerDependency, SkillMetadata};

use crate::snapshot::CatalogSnapshot;

/// `names` followed by every skill they depend on, transitively, each once (in the order
/// found), and the dependencies no skill of the snapshot answers to.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_catalog::{SkillCatalog, SkillSource, with_dependencies};
/// use skills_core::MemoryBackend;
///
/// let backend = Arc::new(MemoryBackend::new());
/// backend.insert("/s/ship/SKILL.md", "---\nname: ship\ndescription: Ship\ndependencies: [review, gone]\n---\n")?;
/// backend.insert("/s/review/SKILL.md", "---\nname: review\ndescription: Review\ndependencies: [lint]\n---\n")?;
/// backend.insert("/s/lint/SKILL.md", "---\nname: lint\ndescription: Lint\n---\n")?;
/// let snapshot = SkillCatalog::new(vec![SkillSource::new(backend, "/s")]).ensure_loaded().await;
/// let (names, missing) = with_dependencies(&snapshot, &["ship".to_owned()]);
/// assert_eq!(names, ["ship", "review", "lint"]);
/// assert_eq!(missing, ["gone"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub fn with_dependencies(snapshot: &CatalogSnapshot, names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut order = Vec::new();
    let mut missing = Vec::new();
    let mut queue: Vec<&str> = names.iter().map(String::as_str).collect();
    queue.reverse();
    while let Some(name) = queue.pop() {
        if !seen.insert(name) {
            continue;
        }
        match snapshot.get(name) {
            Some(skill) => {
                order.push(name.to_owned());
                queue.extend(skill.required_skills().iter().rev().map(String::as_str));
            }
            None if names.iter().any(|n| n == name) => order.push(name.to_owned()),
            None => missing.push(name.to_owned()),
        }
    }
    (order, missing)
}

/// What is wrong with the snapshot's skill dependencies: each dependency no source has
/// (`missing-dependency`, on the skill that names it) and each cycle
/// (`dependency-cycle`, once, on the first skill of the cycle in snapshot order).
pub fn dependency_diagnostics(snapshot: &CatalogSnapshot) -> Vec<Diagnostic> {
    dependency_problems(snapshot.skills())
}

/// [`dependency_diagnostics`] of a list of skills (a name given twice: the last one).
pub fn dependency_problems<S: Borrow<SkillMetadata>>(skills: &[S]) -> Vec<Diagnostic> {
    let skills: Vec<&SkillMetadata> = skills.iter().map(Borrow::borrow).collect();
    let position: HashMap<&str, usize> = skills.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
    let mut found = Vec::new();
    for skill in &skills {
        for dependency in skill.required_skills() {
            if !position.contains_key(dependency.as_str()) {
                let msg = format!(
                    "`{}` depends on `{dependency}`, which no source has (`dependencies` lists skills, not packages)",
                    skill.name
                );
                found.push(Diagnostic::new(&skill.path, DiagnosticKind::MissingDependency, msg));
            }
        }
    }
    // Depth-first search with colours: a grey skill reached again closes a cycle.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour = vec![Colour::White; skills.len()];
    let mut reported: BTreeSet<Vec<usize>> = BTreeSet::new();
    for start in 0..skills.len() {
        if colour[start] != Colour::White {
            continue;
        }
        // (position, next dependency to look at)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = Colour::Grey;
        while let Some(&mut (at, ref mut next)) = stack.last_mut() {
            let deps = skills[at].required_skills();
            if *next == deps.len() {
                colour[at] = Colour::Black;
                stack.pop();
                continue;
            }
            let dependency = &deps[*next];
            *next += 1;
            let Some(&to) = position.get(dependency.as_str()) else {
                continue;
            };
            match colour[to] {
                Colour::White => {
                    colour[to] = Colour::Grey;
                    stack.push((to, 0));
                }
                Colour::Grey => {
                    let from = stack.iter().position(|(p, _)| *p == to).unwrap_or(0);
                    let cycle: Vec<usize> = stack[from..].iter().map(|(p, _)| *p).collect();
                    let mut key = cycle.clone();
                    key.sort_unstable();
                    if reported.insert(key) {
                        let mut names: Vec<&str> = cycle.iter().map(|&p| skills[p].name.as_str()).collect();
                        names.push(&skills[to].name);
                        let first = skills[cycle[0]];
                        let msg = format!("skills depend on each other in a circle: {}", names.join(" -> "));
                        found.push(Diagnostic::new(&first.path, DiagnosticKind::DependencyCycle, msg));
                    }
                }
                Colour::Black => {}
            }
        }
    }
    found
}

/// The largest `agents/openai.yaml` read; a larger one is not read.
const MAX_AGENT_FILE: u64 = 64 * 1024;

/// The MCP servers a skill uses: those of its frontmatter, then those of its
/// `agents/openai.yaml` (Codex's form), read through the skill's backend when the file
/// exists; with what could not be read of that file.
pub async fn mcp_server_dependencies(
    snapshot: &CatalogSnapshot,
    name: &str,
) -> (Vec<McpServerDependency>, Vec<String>) {
    let Some(skill) = snapshot.get(name) else {
        return (Vec::new(), Vec::new());
    };
    let mut servers = skill
        .extensions()
        .map(|e| e.dependencies.mcp_servers.clone())
        .unwrap_or_default();
    let mut problems = Vec::new();
    if let Some(source) = snapshot.source_for(name) {
        let path = format!("{}/{OPENAI_AGENT_FILE}", skill.dir().trim_end_matches('/'));
        let backend = source.backend();
        match backend.download_file(&path).await {
            Ok(bytes) if bytes.len() as u64 > MAX_AGENT_FILE => {
                problems.push(format!("{OPENAI_AGENT_FILE} is over {MAX_AGENT_FILE} bytes; not read"));
            }
            Ok(bytes) => {
                let (found, file_problems) = agent_yaml_dependencies(&bytes);
                for server in found {
                    if !servers.iter().any(|known| known.name == server.name) {
                        servers.push(server);
                    }
                }
                problems.extend(file_problems);
            }
            Err(e) if e.kind == FileErrorKind::FileNotFound => {}
            Err(e) => problems.push(format!("{OPENAI_AGENT_FILE} could not be read: {e}")),
        }
    }
    (servers, problems)
}

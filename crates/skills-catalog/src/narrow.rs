//! Reloads narrowed to the paths a change names: [`SkillCatalog::reload_paths`] re-reads
//! the skill folders those paths lie in and nothing else, so a one-file edit in a source
//! of 10,000 skills reads one file instead of walking the source.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use skills_core::{DiagnosticKind, Discovery, is_skill_file_name, path};
use tracing::debug;

use crate::catalog::SkillCatalog;
use crate::listing::{Listing, keep_last_good};
use crate::snapshot::CatalogEvent;

/// More changed paths than this in one source reload the whole source: past it, one
/// walk costs less than the folders one by one.
const MAX_NARROWED_PATHS: usize = 256;

/// Which skill folders of a source the changed `paths` touch, or `None` when the
/// change may reach beyond known skill folders (a new folder that could hold skills
/// deeper down, a `SKILL.md` above known skills) or the last walk said something of
/// the source as a whole: then only a walk is right.
fn touched_folders(last: &Listing, root: &str, depth: usize, paths: &[String]) -> Option<BTreeSet<String>> {
    // What the last walk said of the source as a whole (no skill folder at all, a hint
    // to look deeper, a limit, a listing that failed, a stale backend) only a walk can
    // say again.
    let source_wide = last.diagnostics.iter().any(|d| {
        matches!(
            d.kind,
            DiagnosticKind::DeeperSkills
                | DiagnosticKind::SourceIsASkill
                | DiagnosticKind::HiddenSkills
                | DiagnosticKind::LimitExceeded
                | DiagnosticKind::ListingFailed
                | DiagnosticKind::SourceStale
        )
    });
    if last.folders == 0 || source_wide {
        return None;
    }
    let known: BTreeSet<&str> = last.skills.iter().map(|s| s.dir()).collect();
    let mut dirs = BTreeSet::new();
    for changed in paths {
        let Ok(changed) = path::normalize(changed) else {
            continue;
        };
        let Some(rel) = changed.strip_prefix(root).map(|r| r.trim_start_matches('/')) else {
            continue;
        };
        if rel.is_empty() {
            // The source folder itself.
            return None;
        }
        let parts: Vec<&str> = rel.split('/').collect();
        // The known skill folder the path lies in (or is).
        let mut at = root.trim_end_matches('/').to_owned();
        let mut inside = None;
        for part in parts.iter().take(depth) {
            at = format!("{at}/{part}");
            if known.contains(at.as_str()) {
                inside = Some(at.clone());
                break;
            }
        }
        if let Some(dir) = inside {
            dirs.insert(dir);
            continue;
        }
        // Discovery never looks into hidden folders or node_modules.
        if parts
            .iter()
            .take(parts.len() - 1)
            .any(|p| p.starts_with('.') || *p == "node_modules")
        {
            continue;
        }
        let last_part = parts[parts.len() - 1];
        if is_skill_file_name(last_part) && parts.len() - 1 == depth {
            // A new SKILL.md as deep as skills may lie: nothing can be below it.
            dirs.insert(path::parent(&changed).to_owned());
        } else if depth == 1 && parts.len() == 1 {
            // A folder (or file) right in the source: a skill folder, or nothing.
            dirs.insert(changed.clone());
        } else if parts.len() > depth + 1 {
            // Deeper than a skill folder's files: not a new skill, not a known one.
            continue;
        } else {
            return None;
        }
    }
    Some(dirs)
}

impl SkillCatalog {
    /// Reloads the source at index `source` for a change to `paths` (backend paths, as
    /// a watcher names them): only the skill folders those paths lie in are read again,
    /// with the same checks, limits and last-good rule as a full reload. Falls back to
    /// [`reload_sources`](Self::reload_sources) when the change may reach beyond known
    /// skill folders, names more than 256 paths, renames a skill onto another one's name,
    /// or the catalog keeps no memory between reloads. Returns the change event, or
    /// `None` when nothing changed.
    pub async fn reload_paths(&self, source: usize, paths: &[String]) -> Option<CatalogEvent> {
        let mut guard = self.work.lock().await;
        let narrowed = match (guard.as_mut(), self.sources().get(source)) {
            // A frozen catalog checks whole sources against its lock.
            (Some(work), Some(spec))
                if self.incremental && paths.len() <= MAX_NARROWED_PATHS && self.lock().is_none() =>
            {
                let root = path::normalize(spec.path()).ok();
                let state = work.get(source);
                match (root, state.and_then(|s| s.last.as_ref())) {
                    (Some(root), Some(last)) => {
                        touched_folders(last, &root, spec.depth().max(1), paths).map(|dirs| (root, dirs))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((root, dirs)) = narrowed else {
            drop(guard);
            return self.reload_sources(&[source]).await;
        };
        if dirs.is_empty() {
            return None;
        }
        let work = guard.as_mut()?;
        self.load_parses(work).await;
        let spec = &self.sources()[source];
        let state = &mut work[source];
        state.files_digest = None;
        let dirs: Vec<String> = dirs.into_iter().collect();
        let before = state.cache.files_read();
        let found = Discovery::new(&**spec.backend(), &root)
            .limits(self.limits)
            .depth(spec.depth())
            .resources(self.discovers_resources())
            .cache(&mut state.cache)
            .run_folders(&dirs)
            .await;
        self.files_read
            .fetch_add(state.cache.files_read() - before, Ordering::Relaxed);
        let merged = match (found, state.last.take()) {
            (Ok(found), Some(last)) => merge_folders(last, found.into(), &dirs, self.limits.max_skills()),
            (_, last) => Err(last),
        };
        let (merged, gone, names) = match merged {
            Ok(merged) => merged,
            Err(last) => {
                state.last = last;
                drop(guard);
                debug!(source, "narrowed reload gave way to a full one");
                return self.reload_sources(&[source]).await;
            }
        };
        debug!(
            source,
            folders = dirs.len(),
            "skills reload narrowed to changed folders"
        );
        state.error = None;
        state.last = Some(keep_last_good(merged, &gone.skills, &gone.resources));
        self.reloads.fetch_add(1, Ordering::Relaxed);
        // A lazy catalog does not list resources: a file changed in a skill's folder is
        // reported as a change of the skill (an MCP client's manifest of it is stale).
        let files_changed = if self.lazy_resources() {
            names.clone()
        } else {
            BTreeSet::new()
        };
        let event = self.publish(work, false, Some(&names), &files_changed, false);
        self.keep_caches(work, &[source]).await;
        event
    }
}

/// The skills, resources and names a narrowed reload took out of a listing.
type Merged = (Listing, Listing, BTreeSet<String>);

/// `last` with the folders `dirs` replaced by what reading them `found`, in place;
/// with the listing of what was there before (for the last-good rule) and every name
/// the change touched. Gives `last` back when a full reload must decide (a name now
/// held by a folder outside `dirs`, or the source's skill limit reached).
fn merge_folders(
    mut last: Listing,
    found: Listing,
    dirs: &[String],
    max_skills: usize,
) -> Result<Merged, Option<Listing>> {
    let within = |p: &str| {
        dirs.iter()
            .any(|d| p == d || p.strip_prefix(d.as_str()).is_some_and(|r| r.starts_with('/')))
    };
    // One pass over the source's skills: how many lie in `dirs`, whether a name read
    // there is held outside them, and which of `dirs` held a SKILL.md (with the
    // diagnostics, for one that did not load).
    // A folder's skill file is its `SKILL.md` or its lowercase `skill.md`.
    let held_in = |file: &str| {
        is_skill_file_name(path::file_name(file))
            .then(|| dirs.iter().position(|d| d == path::parent(file)))
            .flatten()
    };
    let mut held = vec![false; dirs.len()];
    let mut gone_count = 0;
    for skill in &last.skills {
        if within(skill.dir()) {
            gone_count += 1;
            if let Some(i) = held_in(&skill.path) {
                held[i] = true;
            }
        } else if found.skills.iter().any(|f| f.name == skill.name) {
            return Err(Some(last));
        }
    }
    if last.skills.len() - gone_count + found.skills.len() >= max_skills {
        return Err(Some(last));
    }
    // A skill that hides an earlier folder's copy of its name (the copy's
    // `duplicate-name` warning names it) holds the copy's place, and without it the copy
    // comes back: a full reload decides.
    let hides_a_copy = |skill: &skills_core::SkillMetadata| {
        let named = format!(" by {}, ", skill.path);
        last.diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::DuplicateName && d.message.contains(&named))
    };
    if gone_count > 0 && last.skills.iter().any(|s| within(s.dir()) && hides_a_copy(s)) {
        return Err(Some(last));
    }
    for diagnostic in last.diagnostics.iter() {
        if let Some(i) = held_in(&diagnostic.path) {
            held[i] = true;
        }
    }
    let held = held.iter().filter(|h| **h).count();
    // In place: the few skills of `dirs` are copied out, the others stay where they are.
    let mut gone_skills = Vec::with_capacity(gone_count);
    last.skills.retain(|s| {
        let gone = within(s.dir());
        if gone {
            gone_skills.push(std::sync::Arc::clone(s));
        }
        !gone
    });
    let mut gone = Listing::default();
    let mut names: BTreeSet<String> = found.skills.iter().map(|s| s.name.clone()).collect();
    for skill in gone_skills {
        if let Some(resources) = last.resources.remove(&skill.name) {
            gone.resources.insert(skill.name.clone(), resources);
        }
        names.insert(skill.name.clone());
        gone.skills.push(skill);
    }
    // The diagnostics are shared with the snapshot: written anew only when they change.
    if !found.diagnostics.is_empty() || last.diagnostics.iter().any(|d| within(&d.path)) {
        let mut diagnostics: Vec<skills_core::Diagnostic> =
            last.diagnostics.iter().filter(|d| !within(&d.path)).cloned().collect();
        for diagnostic in found.diagnostics.iter() {
            let at = diagnostics.partition_point(|d| d.path <= diagnostic.path);
            diagnostics.insert(at, diagnostic.clone());
        }
        last.diagnostics = diagnostics.into();
    }
    last.folders = last.folders.saturating_sub(held) + found.folders;
    // Each in its place by path, so the listing stays sorted without sorting it again.
    for skill in found.skills {
        let at = last.skills.partition_point(|s| s.path < skill.path);
        last.skills.insert(at, skill);
    }
    last.resources.extend(found.resources);
    Ok((last, gone, names))
}

//! The hint for a source in which discovery finds no skill folder: a probe of a few
//! hundred folders below it says whether skill folders lie deeper than the discovery
//! looked, or only in hidden folders, or whether the source is itself a skill folder.

use crate::backend::BackendProtocol;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::file::FileInfo;
use crate::path;
use crate::skill::SKILL_FILE;

/// How many levels below a source that holds no skill folder the probe looks.
const PROBE_DEPTH: usize = 4;

/// Most directories the probe for deeper skills lists: the hint must stay cheap on a
/// large tree (a walk of every level would read each skill's resources too).
const PROBE_DIRS: usize = 256;

/// Sub-folders of each folder a second probe looks into, when the first spent its budget
/// on one wide level (thousands of owners' folders, each holding a few skill folders)
/// and found none; it lists at most [`NARROW_DIRS`] folders.
const PROBE_FAN_OUT: usize = 4;

/// Most directories each of the probes after the first lists: a source without skills
/// costs at most [`PROBE_DIRS`] and three times this many listings (on a remote source,
/// requests).
const NARROW_DIRS: usize = PROBE_DIRS / 4;

/// What a probe below a source saw.
#[derive(Default)]
struct Probed {
    /// The `SKILL.md` of each skill folder found, in the order found.
    found: Vec<String>,
    /// The deepest level a skill folder was found at.
    levels: usize,
    /// Whether folders were left unseen (the budget or the fan-out).
    partial: bool,
    /// Whether the source itself holds a skill file.
    root_is_a_skill: bool,
    /// Whether a hidden folder (not `.git`) was passed over.
    hidden_seen: bool,
}

/// Whether a folder holds a skill file.
fn holds_skill_file(entries: &[FileInfo]) -> bool {
    entries
        .iter()
        .any(|e| !e.is_dir && crate::is_skill_file_name(path::file_name(&e.path)))
}

/// The skill folders below `root`, up to [`PROBE_DEPTH`] levels down, level by level,
/// listing at most `budget` folders and at most `fan_out` sub-folders of each; hidden
/// folders only when `hidden` (never `.git`), `node_modules` never.
async fn probe(backend: &dyn BackendProtocol, root: &str, budget: usize, fan_out: usize, hidden: bool) -> Probed {
    let mut seen = Probed::default();
    let mut queue = std::collections::VecDeque::from([(root.to_owned(), 0usize)]);
    let mut visits = 0;
    while let Some((dir, level)) = queue.pop_front() {
        if visits == budget {
            seen.partial = true;
            break;
        }
        visits += 1;
        let Ok(entries) = backend.ls_info(&dir).await else {
            continue;
        };
        if holds_skill_file(&entries) {
            if level == 0 {
                seen.root_is_a_skill = true;
            } else {
                seen.found.push(path::join(&dir, SKILL_FILE));
                seen.levels = seen.levels.max(level);
                continue;
            }
        }
        if level == PROBE_DEPTH {
            continue;
        }
        let below = entries.into_iter().filter(|e| {
            let name = path::file_name(&e.path);
            let passed_over = e.is_dir && name != ".git" && name.starts_with('.') && !hidden;
            seen.hidden_seen |= passed_over;
            e.is_dir && name != "node_modules" && name != ".git" && !passed_over
        });
        let room = (budget - visits).saturating_sub(queue.len()).min(fan_out);
        for (n, entry) in below.enumerate() {
            if n == room {
                seen.partial = true;
                break;
            }
            queue.push_back((entry.path, level + 1));
        }
    }
    seen
}

/// [`probe`] with every sub-folder and `budget`, then, when that found nothing before
/// its budget ran out, with [`PROBE_FAN_OUT`] of each and [`NARROW_DIRS`].
async fn probe_wide_then_deep(backend: &dyn BackendProtocol, root: &str, budget: usize, hidden: bool) -> Probed {
    let wide = probe(backend, root, budget, usize::MAX, hidden).await;
    if !wide.found.is_empty() || !wide.partial {
        return wide;
    }
    let narrow = probe(backend, root, NARROW_DIRS, PROBE_FAN_OUT, hidden).await;
    Probed {
        root_is_a_skill: wide.root_is_a_skill,
        hidden_seen: wide.hidden_seen || narrow.hidden_seen,
        ..narrow
    }
}

/// How many skill folders a probe saw: the number, or "at least" it when some folders
/// were not seen (`partial`).
fn counted(partial: bool, found: usize) -> String {
    if partial {
        format!("at least {found}")
    } else {
        found.to_string()
    }
}

/// The hint for a source without skill folders: with `depth` below [`PROBE_DEPTH`], the
/// skill folders found deeper and how deep to look for them; else the skill folders in
/// hidden folders, which discovery does not search, and which folders to give as
/// sources instead; else whether the source is itself a skill folder.
pub(crate) async fn deeper_skills(backend: &dyn BackendProtocol, root: &str, depth: usize) -> Option<Diagnostic> {
    let mut root_is_a_skill = false;
    // Whether hidden folders may hold skills: not when a whole look found none.
    let mut may_hide = true;
    if depth < PROBE_DEPTH {
        let seen = probe_wide_then_deep(backend, root, PROBE_DIRS, false).await;
        root_is_a_skill = seen.root_is_a_skill;
        may_hide = seen.hidden_seen || seen.partial;
        if let Some(first) = seen.found.first() {
            let levels = seen.levels.max(depth + 1);
            let count = counted(seen.partial, seen.found.len());
            let message = format!(
                "no skill folder within {depth} level(s) of this source, but {count} deeper, such as {first}: \
                 discover {levels} levels deep to find them"
            );
            return Some(Diagnostic::new(root, DiagnosticKind::DeeperSkills, message));
        }
    }
    if may_hide {
        let hidden = probe_wide_then_deep(backend, root, NARROW_DIRS, true).await;
        root_is_a_skill |= hidden.root_is_a_skill;
        if let Some(hint) = in_hidden_folders(root, &hidden) {
            return Some(hint);
        }
    }
    root_is_a_skill.then(|| {
        let message = "this source is itself a skill folder (its SKILL.md is at the root), and a source \
                       is a folder of skill folders: read it as one skill with depth 0 (`--depth 0`, \
                       `depth = 0` in skills.toml), or read its parent folder";
        Diagnostic::new(root, DiagnosticKind::SourceIsASkill, message)
    })
}

/// The hint for skill folders found only in hidden folders (`skills/.curated/...`): the
/// hidden folders that hold them, each to be given as a source of its own (with the
/// depth its skill folders need).
fn in_hidden_folders(root: &str, seen: &Probed) -> Option<Diagnostic> {
    const NAMED: usize = 4;
    // Each hidden folder with how deep below it its skill folders lie, and the skill
    // folders found in them.
    let mut folders: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut in_them: Vec<&str> = Vec::new();
    for found in &seen.found {
        let inside = found.strip_prefix(root).unwrap_or(found).trim_start_matches('/');
        let parts: Vec<&str> = inside.split('/').collect();
        // The first hidden folder above the skill folder (a skill folder that is itself
        // hidden is read where the walk reaches it).
        let above = &parts[..parts.len().saturating_sub(2)];
        let Some(at) = above.iter().position(|p| p.starts_with('.')) else {
            continue;
        };
        let depth = folders.entry(path::join(root, &parts[..=at].join("/"))).or_default();
        *depth = (*depth).max(parts.len() - at - 2);
        in_them.push(found);
    }
    let first = in_them.first()?;
    let mut named = folders
        .iter()
        .take(NAMED)
        .map(|(folder, depth)| match depth {
            1 => folder.clone(),
            _ => format!("{folder} with depth {depth}"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    if folders.len() > NAMED {
        named.push_str(&format!(" and {} more", folders.len() - NAMED));
    }
    let count = counted(seen.partial, in_them.len());
    let message = format!(
        "no skill folder outside hidden folders, which discovery does not search, but {count} in them, such as \
         {first}: give each folder that holds them as a source of its own: {named}"
    );
    Some(Diagnostic::new(root, DiagnosticKind::HiddenSkills, message))
}

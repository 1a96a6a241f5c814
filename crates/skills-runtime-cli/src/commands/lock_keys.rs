//! Which entry of `skills.lock` a source is kept under: two sources may carry one label
//! (`skills`, the last folder of both `anthropics/skills#path=skills` and
//! `obra/superpowers#path=skills`), and each keeps an entry of its own.

use std::path::Path;

use skills_runtime::lock::{Lock, LockedSource};
use skills_runtime::sources::{SourceSpec, is_path};

/// The label under which `lock` pins the source `source` (an `[[install]]`'s source
/// text): its own `label=`, or the locked source whose spec is the same location (a
/// folder compared as the folder it resolves to).
pub(crate) fn label_in_lock(lockfile: &Path, lock: &Lock, source: &str) -> Option<String> {
    let spec: SourceSpec = source.parse().ok()?;
    if let Some(label) = spec.label {
        return lock.sources.contains_key(&label).then_some(label);
    }
    let base = lockfile
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let wanted = if is_path(&spec.location) {
        std::fs::canonicalize(base.join(&spec.location))
            .ok()?
            .display()
            .to_string()
    } else {
        skills_runtime::url::without_password(&spec.location)
    };
    lock.sources.iter().find_map(|(label, locked)| {
        let locked_spec = locked.spec.as_deref()?;
        let same = if is_path(locked_spec) {
            std::fs::canonicalize(base.join(locked_spec)).is_ok_and(|p| p.display().to_string() == wanted)
        } else {
            locked_spec == wanted
        };
        same.then(|| label.clone())
    })
}

/// The key under which the lock keeps the source pinned as `label`: the entry of the same
/// location if the lock has one, else `label` if it is free, else `label` with a number.
pub(crate) fn lock_key(lock: &Lock, label: &str, source: &LockedSource) -> String {
    if source.spec.is_some() {
        if let Some((key, _)) = lock.sources.iter().find(|(_, locked)| locked.spec == source.spec) {
            return key.clone();
        }
    }
    match lock.sources.get(label) {
        // A lock written before sources recorded where they are: the same source.
        Some(locked) if locked.spec.is_none() => label.to_owned(),
        _ => skills_runtime::free_label(label, |key| lock.sources.contains_key(key)),
    }
}

/// `source` under the key `lock` (read from `lockfile`) keeps it by (`KEY=SOURCE`), when it has
/// one and the source names no label: two sources may carry one label (`skills`), and
/// the lock keeps the second under another key, which its catalog must carry for the
/// lock's checks to find its skills.
pub fn locked_as(source: &str, lockfile: &Path, lock: Option<&Lock>) -> String {
    let labelled = source.parse::<SourceSpec>().is_ok_and(|spec| spec.label.is_some());
    let key = lock.and_then(|lock| label_in_lock(lockfile, lock, source));
    // A key that cannot be a label (an MCP server's `host:port`) is left out: it is the
    // label the source gives itself.
    key.filter(|_| !labelled)
        .map(|key| format!("{key}={source}"))
        .filter(|keyed| keyed.parse::<SourceSpec>().is_ok_and(|spec| spec.label.is_some()))
        .unwrap_or_else(|| source.to_owned())
}

//! Reading what a project's `skills.lock` says was installed (`skills add`, `sync`,
//! `update`, `remove` and `installed` read it the same way).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use skills_runtime::lock::Lock;

/// The lock at `path`, `None` when there is none yet.
pub fn read_lock(path: &Path) -> anyhow::Result<Option<Lock>> {
    read_trusted_lock(path, None)
}

/// [`read_lock`], refusing a lock without a good signature by `trusted_key` when one
/// is given.
pub fn read_trusted_lock(path: &Path, trusted_key: Option<&Path>) -> anyhow::Result<Option<Lock>> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            if let Some(key) = trusted_key {
                crate::signing::check_signature(path, &text, key)?;
            }
            Ok(Some(
                Lock::parse(&text).with_context(|| format!("in {}", path.display()))?,
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// What the lock says was installed as `name`: each file's digest.
pub fn installed_digests(lock: &Lock, name: &str) -> Option<BTreeMap<String, String>> {
    let skill = lock.skills.get(name)?;
    Some(
        skill
            .files
            .iter()
            .map(|(rel, f)| (rel.clone(), f.digest.clone()))
            .collect(),
    )
}

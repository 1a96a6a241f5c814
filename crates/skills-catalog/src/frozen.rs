//! A frozen catalog: every discovered skill checked against `skills.lock` before it is
//! served. A skill whose files differ from the lock, or that the lock does not name, is
//! withheld with a `lock-mismatch` diagnostic naming the files; a locked skill that is
//! gone is reported.

use skills_core::{Diagnostic, DiagnosticKind, SourceError};

use crate::listing::Listing;
use crate::lock::{Drift, Lock};
use crate::manifest::DigestCache;
use crate::source::SkillSource;

/// `result` (one source's discovery) with only the skills that match `lock`.
pub(crate) async fn verify_listing(
    lock: &Lock,
    digests: &DigestCache,
    index: usize,
    source: &SkillSource,
    result: Result<Listing, SourceError>,
) -> Result<Listing, SourceError> {
    let mut listing = result?;
    let label = source.label();
    let mut kept = Vec::with_capacity(listing.skills.len());
    let mut seen = std::collections::HashSet::new();
    let mut diagnostics = listing.diagnostics.to_vec();
    for skill in std::mem::take(&mut listing.skills) {
        seen.insert(skill.name.clone());
        let drift = match digests.manifest(source.backend().as_ref(), index, skill.as_ref()).await {
            Ok(manifest) => lock.check_skill(&skill.name, label, &manifest.files),
            Err(reason) => vec![Drift::Unreadable {
                skill: skill.name.clone(),
                reason,
            }],
        };
        if drift.is_empty() {
            kept.push(skill);
            continue;
        }
        let what: Vec<String> = drift.iter().map(ToString::to_string).collect();
        let message = format!("not served: it differs from skills.lock ({})", what.join("; "));
        diagnostics.push(Diagnostic::new(&skill.path, DiagnosticKind::LockMismatch, message));
        listing.resources.remove(&skill.name);
    }
    for (name, locked) in &lock.skills {
        if locked.source == label && !seen.contains(name) {
            let message = format!("locked skill '{name}' is not in this source any more");
            let path = format!("{}/{name}", source.path().trim_end_matches('/'));
            diagnostics.push(Diagnostic::new(path, DiagnosticKind::LockMismatch, message));
        }
    }
    listing.skills = kept;
    diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    listing.diagnostics = diagnostics.into();
    Ok(listing)
}

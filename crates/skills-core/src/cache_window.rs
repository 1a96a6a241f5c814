//! A listing decoded from a reader through a [`ReadWindow`], item by item.

use std::io::Read;
use std::sync::Arc;

use crate::cache_codec::Reader;
use crate::window::ReadWindow;
use crate::{Diagnostic, DiagnosticKind, SkillListing, SkillMetadata};

/// The next item `decode` reads from `window`, with more of the source read in as long as
/// it fails and there is more: an item cut by the window's edge is decoded again whole.
/// `None` when it fails on everything left (a damaged encoding, or a read error).
fn item<T>(window: &mut ReadWindow<'_>, decode: impl Fn(&mut Reader<'_>) -> Option<T>) -> Option<T> {
    loop {
        let mut reader = Reader { bytes: window.held() };
        if let Some(item) = decode(&mut reader) {
            let used = window.held().len() - reader.bytes.len();
            window.advance(used);
            return Some(item);
        }
        if !window.fill(1) {
            return None;
        }
    }
}

impl SkillListing {
    /// [`from_bytes`](Self::from_bytes) of the next `len` bytes of `source`, read
    /// through a window of a few hundred KiB instead of held whole. `None` unless they
    /// hold a listing whole (whatever is left in `source` after them is not read).
    pub fn read_from(source: &mut dyn Read, len: u64) -> Option<Self> {
        Self::read_from_gated(source, len, &mut || true)
    }

    /// [`read_from`](Self::read_from), calling `between` once the skills are read and
    /// before the diagnostics are: a caller that must let memory go before they come
    /// (a large library's diagnostics outweigh its skills) waits there. `between`
    /// answering `false` stops the read (`None`).
    pub fn read_from_gated(source: &mut dyn Read, len: u64, between: &mut dyn FnMut() -> bool) -> Option<Self> {
        let (folders, skills, diagnostics) = read_listing(source, len, between, |skill| skill)?;
        Some(Self {
            skills,
            diagnostics,
            folders,
            resources: Default::default(),
        })
    }
}

/// A [`SkillListing`] (without resources) as a catalog shares it between its snapshots
/// and threads: each skill behind its own `Arc`, the diagnostics in one shared slice.
///
/// Decoded straight into that shape ([`read_from_gated`](Self::read_from_gated)): a
/// [`SkillListing`] moved into it afterwards holds its skills twice over while they move
/// into their `Arc`s, and copies every diagnostic into the shared slice (at 40,000 skills,
/// about 12 MB of skills and 96,000 diagnostics).
///
/// ```
/// use skills_core::{SharedListing, SkillListing, SkillMetadata};
///
/// let listing = SkillListing {
///     skills: vec![SkillMetadata::new("pdf", "Reads PDFs", "/s/pdf/SKILL.md")],
///     folders: 1,
///     ..SkillListing::default()
/// };
/// let bytes = listing.to_bytes();
/// let shared = SharedListing::read_from_gated(&mut bytes.as_slice(), bytes.len() as u64, &mut || true).unwrap();
/// assert_eq!(*shared.skills[0], listing.skills[0]);
/// assert_eq!((shared.folders, shared.diagnostics.len()), (1, 0));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SharedListing {
    /// Parsed skills, each behind its own `Arc`, in the listing's order.
    pub skills: Vec<Arc<SkillMetadata>>,
    /// Skips and warnings, in the listing's order.
    pub diagnostics: Arc<[Diagnostic]>,
    /// Skill folders seen (see [`SkillListing::folders`]).
    pub folders: usize,
}

impl SharedListing {
    /// [`SkillListing::read_from_gated`], decoded into the shared shape.
    pub fn read_from_gated(source: &mut dyn Read, len: u64, between: &mut dyn FnMut() -> bool) -> Option<Self> {
        let (folders, skills, diagnostics) = read_listing(source, len, between, Arc::new)?;
        Some(Self {
            skills,
            diagnostics,
            folders,
        })
    }
}

/// The encoded bytes a diagnostic of a real listing takes at least: its path, its kind's
/// name and its message, each with its length (a path of a dozen characters, a message of
/// a few words). A diagnostic's item in memory is about 80 bytes.
const PLAUSIBLE_DIAGNOSTIC_BYTES: u64 = 48;

/// The listing encoded in the next `len` bytes of `source` (as
/// [`SkillListing::to_bytes`] writes it), `between` called between its skills and its
/// diagnostics, each skill as `keep` makes it: `(folders, skills, diagnostics)`, `None`
/// unless they hold one whole.
fn read_listing<S, D: FromIterator<Diagnostic>>(
    source: &mut dyn Read,
    len: u64,
    between: &mut dyn FnMut() -> bool,
    keep: impl Fn(SkillMetadata) -> S,
) -> Option<(usize, Vec<S>, D)> {
    let mut window = ReadWindow::new(source, len);
    let (folders, count) = item(&mut window, |r| Some((r.len()?, r.len()?)))?;
    // Each skill takes 20 bytes at least: a damaged count cannot reserve a huge vector.
    if (count as u64).saturating_mul(20) > window.left() {
        return None;
    }
    let mut skills = Vec::with_capacity(count);
    for _ in 0..count {
        skills.push(keep(item(&mut window, |r| r.skill(""))?));
    }
    if !between() {
        return None;
    }
    let count = item(&mut window, |r| r.len())?;
    if (count as u64).saturating_mul(10) > window.left() {
        return None;
    }
    // Collected from a range mapped to its items, an iterator whose length is known: a
    // shared slice is allocated once at its size and written in place, not gathered in a
    // vector and copied. Past a damaged item nothing more is read, the items left are
    // written empty, and the listing is refused. So that a count a damaged file
    // overstates cannot have many empty items written, a count is taken so only when the
    // bytes left hold [`PLAUSIBLE_DIAGNOSTIC_BYTES`] for each; any other is gathered in a
    // vector first, which stops at the first damaged item.
    if (count as u64).saturating_mul(PLAUSIBLE_DIAGNOSTIC_BYTES) > window.left() {
        let mut diagnostics = Vec::new();
        for _ in 0..count {
            diagnostics.push(item(&mut window, |r| r.diagnostic(""))?);
        }
        return (window.left() == 0).then(|| (folders, skills, diagnostics.into_iter().collect()));
    }
    let mut damaged = false;
    let diagnostics = (0..count)
        .map(|_| {
            if !damaged {
                match item(&mut window, |r| r.diagnostic("")) {
                    Some(diagnostic) => return diagnostic,
                    None => damaged = true,
                }
            }
            Diagnostic {
                path: String::new(),
                kind: DiagnosticKind::NoFrontmatter,
                message: String::new(),
                cut: None,
            }
        })
        .collect();
    (!damaged && window.left() == 0).then_some((folders, skills, diagnostics))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::CHUNK;

    /// The listing `read_listing` decodes, as a [`SkillListing`].
    fn read_listing(source: &mut dyn Read, len: u64, between: &mut dyn FnMut() -> bool) -> Option<SkillListing> {
        SkillListing::read_from_gated(source, len, between)
    }

    fn listing(skills: usize) -> SkillListing {
        let skill = |i: usize| SkillMetadata {
            path: format!("/s/skill-{i}/SKILL.md"),
            name: format!("skill-{i}"),
            // Some skills larger than a chunk, so that items cross every edge.
            description: "d".repeat(if i % 97 == 0 { CHUNK + 7 } else { i % 300 }),
            license: None,
            compatibility: None,
            metadata: Default::default(),
            allowed_tools: vec!["Read".into()],
            extra: Default::default(),
            extensions: None,
        };
        SkillListing {
            skills: (0..skills).map(skill).collect(),
            diagnostics: vec![Diagnostic::new("/s/x/SKILL.md", DiagnosticKind::NameMismatch, "m")],
            folders: skills + 1,
            resources: Default::default(),
        }
    }

    #[test]
    fn a_listing_reads_back_through_the_window_as_it_was_written() {
        for skills in [0, 1, 500] {
            let written = listing(skills);
            let bytes = written.to_bytes();
            let read = read_listing(&mut bytes.as_slice(), bytes.len() as u64, &mut || true);
            assert_eq!(read.as_ref(), Some(&written), "{skills} skills");
        }
    }

    #[test]
    fn the_gate_is_passed_once_between_the_skills_and_the_diagnostics_or_stops_the_read() {
        for skills in [0, 300] {
            let written = listing(skills);
            let bytes = written.to_bytes();
            for open in [true, false] {
                let mut calls = 0;
                let read = read_listing(&mut bytes.as_slice(), bytes.len() as u64, &mut || {
                    calls += 1;
                    open
                });
                assert_eq!(calls, 1, "{skills} skills");
                assert_eq!(
                    read.as_ref(),
                    open.then_some(&written),
                    "{skills} skills, gate open: {open}"
                );
            }
        }
        // A listing cut within its skills stops before the gate.
        let bytes = listing(300).to_bytes();
        let mut calls = 0;
        let cut = read_listing(&mut &bytes[..bytes.len() / 2], bytes.len() as u64, &mut || {
            calls += 1;
            true
        });
        assert!(cut.is_none());
        assert_eq!(calls, 0);
    }

    #[test]
    fn a_cut_damaged_or_longer_listing_reads_as_none() {
        let bytes = listing(300).to_bytes();
        for cut in [0, 3, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                read_listing(&mut &bytes[..cut], bytes.len() as u64, &mut || true).is_none(),
                "{cut}"
            );
            assert!(
                read_listing(&mut &bytes[..cut], cut as u64, &mut || true).is_none(),
                "{cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read_listing(&mut longer.as_slice(), longer.len() as u64, &mut || true).is_none());
        let mut huge_count = bytes.clone();
        huge_count[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_listing(&mut huge_count.as_slice(), bytes.len() as u64, &mut || true).is_none());
    }

    /// The shared shape decodes the same listing, diagnostics in order; one whose
    /// diagnostics are damaged or cut (past the gate, where items are no longer
    /// gathered in a vector) reads as `None` in both shapes.
    #[test]
    fn a_shared_listing_reads_as_the_listing_and_refuses_damaged_diagnostics() {
        let mut written = listing(40);
        written.diagnostics = (0..50)
            .map(|i| {
                Diagnostic::new(
                    format!("/s/d-{i}/SKILL.md"),
                    DiagnosticKind::NameMismatch,
                    "m".repeat(i),
                )
            })
            .collect();
        let bytes = written.to_bytes();
        let shared = SharedListing::read_from_gated(&mut bytes.as_slice(), bytes.len() as u64, &mut || true).unwrap();
        let skills: Vec<SkillMetadata> = shared.skills.iter().map(|s| (**s).clone()).collect();
        assert_eq!(skills, written.skills);
        assert_eq!(*shared.diagnostics, *written.diagnostics);
        assert_eq!(shared.folders, written.folders);

        // The kind of the 26th diagnostic renamed to one that does not exist.
        let mut at = bytes
            .windows(b"name-mismatch".len())
            .enumerate()
            .filter(|(_, w)| w == b"name-mismatch");
        let (at, _) = at.nth(25).unwrap();
        let mut damaged = bytes.clone();
        damaged[at] = b'x';
        let len = damaged.len() as u64;
        assert!(SharedListing::read_from_gated(&mut damaged.as_slice(), len, &mut || true).is_none());
        assert!(SkillListing::read_from_gated(&mut damaged.as_slice(), len, &mut || true).is_none());
        let cut = &bytes[..bytes.len() - 3];
        assert!(SharedListing::read_from_gated(&mut &cut[..], bytes.len() as u64, &mut || true).is_none());

        // Diagnostics too short to be taken at their count (gathered in a vector first):
        // the same listing, and `None` when one is damaged.
        written.diagnostics = (0..50)
            .map(|i| Diagnostic::new(format!("/d{i}"), DiagnosticKind::NameMismatch, ""))
            .collect();
        let bytes = written.to_bytes();
        let len = bytes.len() as u64;
        let shared = SharedListing::read_from_gated(&mut bytes.as_slice(), len, &mut || true).unwrap();
        assert_eq!(*shared.diagnostics, *written.diagnostics);
        let at = bytes.len() - 10;
        let mut damaged = bytes.clone();
        damaged[at..].fill(0xff);
        assert!(SharedListing::read_from_gated(&mut damaged.as_slice(), len, &mut || true).is_none());
    }
}

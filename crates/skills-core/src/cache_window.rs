//! A listing decoded from a reader through a [`ReadWindow`], item by item.

use std::io::Read;

use crate::SkillListing;
use crate::cache_codec::Reader;
use crate::window::ReadWindow;

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
        read_listing(source, len, &mut || true)
    }

    /// [`read_from`](Self::read_from), calling `between` once the skills are read and
    /// before the diagnostics are: a caller that must let memory go before they come
    /// (a large library's diagnostics outweigh its skills) waits there. `between`
    /// answering `false` stops the read (`None`).
    pub fn read_from_gated(source: &mut dyn Read, len: u64, between: &mut dyn FnMut() -> bool) -> Option<Self> {
        read_listing(source, len, between)
    }
}

/// The listing encoded in the next `len` bytes of `source` (as
/// [`SkillListing::to_bytes`] writes it), `between` called between its skills and its
/// diagnostics; `None` unless they hold one whole.
fn read_listing(source: &mut dyn Read, len: u64, between: &mut dyn FnMut() -> bool) -> Option<SkillListing> {
    let mut window = ReadWindow::new(source, len);
    let (folders, count) = item(&mut window, |r| Some((r.len()?, r.len()?)))?;
    // Each skill takes 20 bytes at least: a damaged count cannot reserve a huge vector.
    if (count as u64).saturating_mul(20) > window.left() {
        return None;
    }
    let mut skills = Vec::with_capacity(count);
    for _ in 0..count {
        skills.push(item(&mut window, |r| r.skill(""))?);
    }
    if !between() {
        return None;
    }
    let count = item(&mut window, |r| r.len())?;
    if (count as u64).saturating_mul(10) > window.left() {
        return None;
    }
    let mut diagnostics = Vec::with_capacity(count);
    for _ in 0..count {
        diagnostics.push(item(&mut window, |r| r.diagnostic(""))?);
    }
    (window.left() == 0).then(|| SkillListing {
        skills,
        diagnostics,
        folders,
        resources: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::CHUNK;
    use crate::{Diagnostic, DiagnosticKind, SkillMetadata};

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
}

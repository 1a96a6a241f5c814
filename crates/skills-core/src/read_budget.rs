//! The budget of a discovery's reads ([`DiscoveryLimits`]): how many `SKILL.md` files
//! and how many of their bytes a source may have read, and what went over.

use crate::diagnostic::{Diagnostic, Limit, LimitCut};
use crate::file::FileInfo;
use crate::limits::DiscoveryLimits;

/// Counts `SKILL.md` files and their listed bytes against [`DiscoveryLimits`], in path
/// order, and what it had to refuse for each limit.
pub(crate) struct Budget {
    max_skills: usize,
    max_bytes: u64,
    skills: usize,
    bytes: u64,
    over_count: Refused,
    over_bytes: Refused,
}

/// How many files one limit kept out, and the first of them.
#[derive(Default)]
struct Refused {
    count: usize,
    first: Option<String>,
}

impl Refused {
    fn add(&mut self, path: &str) {
        self.count += 1;
        self.first.get_or_insert_with(|| path.to_owned());
    }

    fn into_diagnostic(self, root: &str, limit: Limit, max: u64, what: String) -> Option<Diagnostic> {
        let first = self.first?;
        let msg = format!("{what}; {} skill folders not read, from {first}", self.count);
        let cut = LimitCut {
            limit,
            max,
            left_out: self.count as u64,
        };
        Some(Diagnostic::limit(root, cut, msg))
    }
}

impl Budget {
    pub(crate) fn new(limits: &DiscoveryLimits) -> Self {
        Self {
            max_skills: limits.max_skills(),
            max_bytes: limits.max_bytes(),
            skills: 0,
            bytes: 0,
            over_count: Refused::default(),
            over_bytes: Refused::default(),
        }
    }

    /// Whether `entry` (a `SKILL.md`) fits; counts it if it does.
    pub(crate) fn admit(&mut self, entry: &FileInfo) -> bool {
        if self.skills >= self.max_skills {
            self.over_count.add(&entry.path);
            return false;
        }
        let bytes = self.bytes.saturating_add(entry.size);
        if bytes > self.max_bytes {
            self.over_bytes.add(&entry.path);
            return false;
        }
        self.skills += 1;
        self.bytes = bytes;
        true
    }

    pub(crate) fn into_diagnostics(self, root: &str) -> impl Iterator<Item = Diagnostic> {
        let count = format!("source has more than {} skill folders", self.max_skills);
        let bytes = format!(
            "the SKILL.md files of this source exceed {} bytes in all",
            self.max_bytes
        );
        let over_count = self
            .over_count
            .into_diagnostic(root, Limit::MaxSkills, self.max_skills as u64, count);
        over_count.into_iter().chain(
            self.over_bytes
                .into_diagnostic(root, Limit::MaxBytes, self.max_bytes, bytes),
        )
    }
}

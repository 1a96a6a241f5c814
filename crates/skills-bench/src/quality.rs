//! What the search evaluation counts: a ranking's results over a query set
//! ([`Tally`]), and what the set is for ([`Role`]), so that sets can be pooled.

use serde::Deserialize;

/// What a query set is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Role {
    /// Tuned on: its misses have been read, so its figures flatter the ranking.
    Development,
    /// Written before the changes it measures and never read for tuning.
    HeldOut,
}

/// A ranking's results over requests, as counts, so that sets can be pooled.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Tally {
    /// Requests asked.
    pub(crate) requests: usize,
    /// Requests whose first result is an expected skill.
    pub(crate) hit1: usize,
    /// Requests with an expected skill among the first 5.
    pub(crate) hit5: usize,
    /// The sum of 1 / rank of the first expected skill within the first 10.
    pub(crate) reciprocal_ranks: f64,
}

impl Tally {
    /// Counts one request whose first expected skill came at `rank` (0-based), if at all.
    pub(crate) fn add(&mut self, rank: Option<usize>) {
        self.requests += 1;
        if let Some(rank) = rank.filter(|r| *r < 10) {
            self.hit1 += usize::from(rank == 0);
            self.hit5 += usize::from(rank < 5);
            self.reciprocal_ranks += 1.0 / (rank + 1) as f64;
        }
    }

    /// Both tallies' requests as one.
    pub(crate) fn merged(self, other: Self) -> Self {
        Self {
            requests: self.requests + other.requests,
            hit1: self.hit1 + other.hit1,
            hit5: self.hit5 + other.hit5,
            reciprocal_ranks: self.reciprocal_ranks + other.reciprocal_ranks,
        }
    }

    /// hit@1, hit@5 and MRR@10 (0 over no requests).
    pub(crate) fn rates(&self) -> (f64, f64, f64) {
        let n = self.requests.max(1) as f64;
        (self.hit1 as f64 / n, self.hit5 as f64 / n, self.reciprocal_ranks / n)
    }
}

/// One set's run: its role, and both rankings' tallies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetRun {
    pub(crate) role: Option<Role>,
    pub(crate) ours: Tally,
    pub(crate) plain: Tally,
}

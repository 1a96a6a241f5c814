//! Seeded pseudo-random numbers for tests that compare a fast path with a plain one on
//! many generated texts (the same texts on every run).

/// Xorshift numbers from a seed (not 0).
pub(crate) struct Random(pub(crate) u64);

impl Random {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Fewer than `max_parts` of `parts`, each picked at random, one after another.
    pub(crate) fn text(&mut self, parts: &[&str], max_parts: usize) -> String {
        let len = self.below(max_parts);
        (0..len).map(|_| parts[self.below(parts.len())]).collect()
    }
}

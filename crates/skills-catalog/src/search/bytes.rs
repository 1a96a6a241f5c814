//! Little-endian numbers and length-prefixed strings: the form a search index takes in
//! the persistent cache ([`SkillIndex::encode`](super::SkillIndex::encode)).

/// Appends encoded values to a buffer.
#[derive(Default)]
pub(super) struct Out(pub(super) Vec<u8>);

impl Out {
    pub(super) fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    pub(super) fn len(&mut self, len: usize) {
        self.u32(u32::try_from(len).unwrap_or(u32::MAX));
    }

    pub(super) fn f32(&mut self, value: f32) {
        self.u32(value.to_bits());
    }

    pub(super) fn str(&mut self, text: &str) {
        self.len(text.len());
        self.0.extend_from_slice(text.as_bytes());
    }

    pub(super) fn u32s(&mut self, values: &[u32]) {
        self.len(values.len());
        for &value in values {
            self.u32(value);
        }
    }
}

/// Reads what [`Out`] wrote; `None` for anything short or malformed.
pub(super) struct In<'a>(pub(super) &'a [u8]);

impl In<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(taken)
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// A count of items of at least `min_bytes` each: never more than the bytes left
    /// could hold, so a damaged count cannot reserve a huge vector.
    pub(super) fn count(&mut self, min_bytes: usize) -> Option<usize> {
        let count = self.u32()? as usize;
        (count.saturating_mul(min_bytes) <= self.0.len()).then_some(count)
    }

    pub(super) fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }

    pub(super) fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    pub(super) fn u32s(&mut self) -> Option<Vec<u32>> {
        let count = self.count(4)?;
        self.u32s_of(count)
    }

    /// `count` numbers, read at once (a postings list is tens of thousands at 40,000
    /// skills: one bounds check for all of them).
    pub(super) fn u32s_of(&mut self, count: usize) -> Option<Vec<u32>> {
        let bytes = self.take(count.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{In, Out};

    #[test]
    fn numbers_read_back_as_written_and_a_short_list_is_refused() {
        let mut out = Out::default();
        out.u32s(&[7, u32::MAX, 0, 1 << 31]);
        out.u32(42);
        let mut input = In(&out.0);
        assert_eq!(input.u32s(), Some(vec![7, u32::MAX, 0, 1 << 31]));
        assert_eq!(input.u32(), Some(42));
        assert!(input.0.is_empty());

        // A count the bytes cannot hold, or one that overflows, reads nothing.
        let mut out = Out::default();
        out.len(3);
        out.u32(1);
        out.u32(2);
        assert_eq!(In(&out.0).u32s(), None);
        assert_eq!(In(&[1, 0, 0, 0]).u32s_of(usize::MAX), None);
        assert_eq!(In(&[1, 0, 0, 0, 2, 0, 0, 0]).u32s_of(2), Some(vec![1, 2]));
    }
}

//! Little-endian numbers and length-prefixed strings: the form a search index takes in
//! the persistent cache ([`SkillIndex::encode`](super::SkillIndex::encode)).

use skills_core::window::ReadWindow;

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

    pub(super) fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
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

/// Reads what [`Out`] wrote from a source, through a [`ReadWindow`] (a kept index is 45
/// MB at 40,000 skills: it is never held whole); `None` for anything short or malformed.
pub(super) struct In<'a>(ReadWindow<'a>);

impl<'a> In<'a> {
    /// The encoding in the next `len` bytes of `source`.
    pub(super) fn new(source: &'a mut dyn std::io::Read, len: u64) -> Self {
        Self(ReadWindow::new(source, len))
    }

    /// Bytes of the encoding not yet taken.
    pub(super) fn left(&self) -> u64 {
        self.0.left()
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        self.0.take(n)
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// A count of items of at least `min_bytes` each: never more than the bytes left
    /// could hold, so a damaged count cannot reserve a huge vector.
    pub(super) fn count(&mut self, min_bytes: usize) -> Option<usize> {
        let count = self.u32()? as usize;
        ((count as u64).saturating_mul(min_bytes as u64) <= self.left()).then_some(count)
    }

    pub(super) fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// The next string, borrowed from the window (valid until the next read).
    pub(super) fn str(&mut self) -> Option<&str> {
        let len = self.u32()? as usize;
        skills_core::utf8::checked(self.take(len)?)
    }

    pub(super) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    pub(super) fn u32s(&mut self) -> Option<Vec<u32>> {
        let count = self.count(4)?;
        self.u32s_of(count)
    }

    /// `count` numbers, read at once, one at a time as they are wanted (into a vector
    /// that holds other lists as well, say).
    pub(super) fn u32s_each(&mut self, count: usize) -> Option<impl Iterator<Item = u32> + '_> {
        let bytes = self.take(count.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        )
    }

    /// `count` numbers, read at once (a postings list is tens of thousands at 40,000
    /// skills: one bounds check for all of them).
    pub(super) fn u32s_of(&mut self, count: usize) -> Option<Vec<u32>> {
        Some(self.u32s_each(count)?.collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{In, Out};

    /// Reads `bytes` with an [`In`].
    fn read<T>(bytes: &[u8], decode: impl FnOnce(&mut In<'_>) -> T) -> T {
        let mut source = bytes;
        decode(&mut In::new(&mut source, bytes.len() as u64))
    }

    #[test]
    fn numbers_read_back_as_written_and_a_short_list_is_refused() {
        let mut out = Out::default();
        out.u32s(&[7, u32::MAX, 0, 1 << 31]);
        out.u32(42);
        read(&out.0, |input| {
            assert_eq!(input.u32s(), Some(vec![7, u32::MAX, 0, 1 << 31]));
            assert_eq!(input.u32(), Some(42));
            assert_eq!(input.left(), 0);
        });

        // A count the bytes cannot hold, or one that overflows, reads nothing.
        let mut out = Out::default();
        out.len(3);
        out.u32(1);
        out.u32(2);
        assert_eq!(read(&out.0, |input| input.u32s()), None);
        assert_eq!(read(&[1, 0, 0, 0], |input| input.u32s_of(usize::MAX)), None);
        assert_eq!(
            read(&[1, 0, 0, 0, 2, 0, 0, 0], |input| input.u32s_of(2)),
            Some(vec![1, 2])
        );
    }

    #[test]
    fn values_longer_than_the_window_and_across_its_edges_read_back() {
        let mut out = Out::default();
        let long: Vec<u32> = (0..100_000).collect();
        for i in 0..3_000 {
            out.str(&"w".repeat(i % 200));
            out.u32s(&long[..i * 7 % 1_000]);
        }
        out.u32s(&long);
        read(&out.0, |input| {
            for i in 0..3_000 {
                assert_eq!(input.string(), Some("w".repeat(i % 200)));
                assert_eq!(input.u32s().as_deref(), Some(&long[..i * 7 % 1_000]));
            }
            assert_eq!(input.u32s(), Some(long.clone()));
            assert_eq!(input.left(), 0);
            assert_eq!(input.u32(), None);
        });
        // A source shorter than it says reads as far as it goes.
        let mut short = &out.0[..10];
        assert_eq!(In::new(&mut short, out.0.len() as u64).u32s_of(3), None);
    }
}

//! Decoding from a reader through a window of a few hundred KiB instead of from the whole
//! encoding in memory: a kept listing or search index of 40,000 skills is 40-45 MB, which
//! a warm start used to read into fresh pages (and fault them in) only to decode and drop.
//!
//! ```
//! use skills_core::window::ReadWindow;
//! let bytes = [1u8, 2, 3, 4, 5];
//! let mut source = &bytes[..];
//! let mut window = ReadWindow::new(&mut source, 5);
//! assert_eq!(window.take(2), Some(&[1, 2][..]));
//! assert_eq!(window.left(), 3);
//! assert_eq!(window.take(4), None); // only three bytes left
//! ```

use std::io::Read;

/// How much of the source a window reads at a time (more for a longer value).
pub(crate) const CHUNK: usize = 256 * 1024;

/// The next `len` bytes of a source, read a chunk at a time as they are taken. A value
/// longer than the window grows it; the window never holds more than the `len` bytes.
pub struct ReadWindow<'s> {
    source: &'s mut dyn Read,
    /// Bytes read and not yet taken: `buf[at..end]`. What lies past `end` was read
    /// before and is written over by the next read: the buffer is zeroed only where it
    /// grows, not at every read (a kept listing of 40,000 skills is 40 MB).
    buf: Vec<u8>,
    at: usize,
    end: usize,
    /// Bytes still in the source.
    unread: u64,
}

impl std::fmt::Debug for ReadWindow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadWindow")
            .field("left", &self.left())
            .finish_non_exhaustive()
    }
}

impl<'s> ReadWindow<'s> {
    /// A window on the next `len` bytes of `source` (nothing is read yet).
    pub fn new(source: &'s mut dyn Read, len: u64) -> Self {
        Self {
            source,
            buf: Vec::new(),
            at: 0,
            end: 0,
            unread: len,
        }
    }

    /// Bytes not yet taken, read or not.
    pub fn left(&self) -> u64 {
        (self.end - self.at) as u64 + self.unread
    }

    /// The bytes read and not yet taken.
    pub fn held(&self) -> &[u8] {
        &self.buf[self.at..self.end]
    }

    /// Marks the first `n` held bytes taken (at most all of them).
    pub fn advance(&mut self, n: usize) {
        self.at = (self.at + n).min(self.end);
    }

    /// Reads `more` bytes or more into the window: a chunk at least, and at least as much
    /// as it holds (so that a long value costs few reads), within what is left. `false`
    /// when nothing is left or the source cannot be read.
    pub fn fill(&mut self, more: usize) -> bool {
        if self.unread == 0 {
            return false;
        }
        self.buf.copy_within(self.at..self.end, 0);
        let held = self.end - self.at;
        (self.at, self.end) = (0, held);
        let want = more
            .max(CHUNK)
            .max(held)
            .min(usize::try_from(self.unread).unwrap_or(usize::MAX));
        if self.buf.len() < held + want {
            self.buf.resize(held + want, 0);
        }
        if self.source.read_exact(&mut self.buf[held..held + want]).is_err() {
            self.unread = 0;
            return false;
        }
        self.end = held + want;
        self.unread -= want as u64;
        true
    }

    /// The next `n` bytes; `None` when fewer are left (or the source fails).
    pub fn take(&mut self, n: usize) -> Option<&[u8]> {
        let held = self.end - self.at;
        if held < n && ((n - held) as u64 > self.unread || !self.fill(n - held)) {
            return None;
        }
        let taken = &self.buf[self.at..self.at + n];
        self.at += n;
        Some(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_across_the_windows_edges_and_longer_than_a_window() {
        let bytes: Vec<u8> = (0..(3 * CHUNK + 17)).map(|i| (i % 251) as u8).collect();
        let mut source = bytes.as_slice();
        let mut window = ReadWindow::new(&mut source, bytes.len() as u64);
        let mut at = 0;
        for n in [10, CHUNK - 3, 7, 2 * CHUNK, 0] {
            assert_eq!(window.take(n), Some(&bytes[at..at + n]), "{n} at {at}");
            at += n;
        }
        assert_eq!(window.left(), (bytes.len() - at) as u64);
        assert_eq!(window.take(bytes.len() - at + 1), None);
        assert_eq!(window.take(bytes.len() - at), Some(&bytes[at..]));
        assert!(!window.fill(1));
    }

    #[test]
    fn bytes_left_from_a_longer_read_are_never_taken() {
        let bytes: Vec<u8> = (0..(CHUNK + 5)).map(|i| (i % 253) as u8).collect();
        let mut source = bytes.as_slice();
        let mut window = ReadWindow::new(&mut source, bytes.len() as u64);
        assert_eq!(window.take(CHUNK - 1), Some(&bytes[..CHUNK - 1]));
        // One byte held, five unread: ten cannot be had, whatever the buffer still holds.
        assert_eq!(window.take(10), None);
        assert_eq!(window.held(), &bytes[CHUNK - 1..CHUNK]);
        // The next read is shorter than the first: the buffer's tail is the first read's.
        assert_eq!(window.take(6), Some(&bytes[CHUNK - 1..]));
        assert_eq!((window.left(), window.held()), (0, &[][..]));
        assert_eq!(window.take(1), None);
        window.advance(3);
        assert!(window.held().is_empty());
    }

    #[test]
    fn a_source_shorter_than_it_says_fails_and_reads_no_further() {
        let bytes = [7u8; 100];
        let mut source = &bytes[..];
        let mut window = ReadWindow::new(&mut source, 1_000);
        assert_eq!(window.take(10), None);
        assert_eq!(window.left(), 0);
    }
}

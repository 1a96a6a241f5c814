//! A field's postings lists by token. A field read from the persistent cache holds its
//! lists in one block (about 190,000 lists at 40,000 skills, which read one vector each
//! took most of the field's decoding); a list is taken out of the block into a vector
//! of its own when it is first changed, and lists made here have their own from the
//! start.

use super::HashMap;

/// The skills an index can hold: a posting keeps its skill's slot in 22 bits.
pub(super) const MAX_SLOTS: u32 = 1 << SLOT_BITS;
const SLOT_BITS: u32 = 22;
/// A posting's weight is kept in the other 10 bits, as a fraction of the largest weight
/// BM25 gives (`k1 + 1`, as the term frequency grows): steps of 0.002, a fifth of a
/// percent of a typical weight, where an `f32` would double the memory of every list.
const VALUE_BITS: u32 = 32 - SLOT_BITS;
const VALUE_STEPS: f32 = ((1 << VALUE_BITS) - 1) as f32;
/// BM25's `k1`, the `bm25` crate's default.
pub(super) const K1: f32 = 1.2;

/// One skill in a postings list: its slot and its BM25 weight, in 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Posting(pub(super) u32);

impl Posting {
    pub(super) fn new(slot: u32, value: f32) -> Self {
        let step = (value / (K1 + 1.0) * VALUE_STEPS).round().clamp(1.0, VALUE_STEPS) as u32;
        Self(slot << VALUE_BITS | step)
    }

    pub(super) fn slot(self) -> u32 {
        self.0 >> VALUE_BITS
    }

    pub(super) fn value(self) -> f32 {
        (self.0 & ((1 << VALUE_BITS) - 1)) as f32 / VALUE_STEPS * (K1 + 1.0)
    }
}

/// Postings lists by token; a token has its list in the block or in `own`, never both.
#[derive(Default)]
pub(super) struct Lists {
    /// The lists read in one piece, and where each token's lies in it (start, length).
    block: Vec<Posting>,
    at: HashMap<u32, (u32, u32)>,
    /// The lists made or changed here.
    own: HashMap<u32, Vec<Posting>>,
}

impl Lists {
    /// Room for `count` lists of `postings` postings in all read into the block: the
    /// block is taken at its final size, not grown by doubling (at 40,000 skills the
    /// instructions' block is about 16 MB, which doubling copied and zeroed about twice).
    pub(super) fn reserve_read(&mut self, count: usize, postings: usize) {
        self.at.reserve(count);
        self.block.reserve_exact(postings);
    }

    /// Adds the list of `token`, read as `postings` (it has none yet); `false`, adding
    /// nothing, past the 2^32 postings a block can hold.
    pub(super) fn push_read(&mut self, token: u32, postings: impl Iterator<Item = Posting>) -> bool {
        let start = self.block.len();
        self.block.extend(postings);
        // Both ends fit in 32 bits when the end does.
        let Ok(end) = u32::try_from(self.block.len()) else {
            return false;
        };
        let start = start as u32;
        self.at.insert(token, (start, end - start));
        true
    }

    /// Whether the block holds the `postings` postings its lists were said to have (a
    /// field that says otherwise is damaged; taken at that size, the block has no room
    /// to spare).
    pub(super) fn holds_read(&self, postings: usize) -> bool {
        self.block.len() == postings
    }

    /// The postings of a list in the block.
    fn read(&self, (start, len): (u32, u32)) -> &[Posting] {
        &self.block[start as usize..(start + len) as usize]
    }

    /// How many tokens have a list.
    pub(super) fn len(&self) -> usize {
        self.at.len() + self.own.len()
    }

    /// The list of `token`, if it has one.
    pub(super) fn get(&self, token: u32) -> Option<&[Posting]> {
        match self.own.get(&token) {
            Some(list) => Some(list),
            None => self.at.get(&token).map(|&at| self.read(at)),
        }
    }

    pub(super) fn contains(&self, token: u32) -> bool {
        self.own.contains_key(&token) || self.at.contains_key(&token)
    }

    /// The list of `token` to change, made if it has none (taken out of the block if it
    /// is there: the block keeps the room it held).
    pub(super) fn list_mut(&mut self, token: u32) -> &mut Vec<Posting> {
        let read = self.at.remove(&token).map(|at| self.read(at).to_vec());
        let list = self.own.entry(token).or_default();
        if let Some(read) = read {
            *list = read;
        }
        list
    }

    /// Takes the postings of `slot` out of the list of `token`, and the list out when
    /// nothing is left in it.
    pub(super) fn take_out(&mut self, token: u32, slot: u32) {
        if !self.contains(token) {
            return;
        }
        let list = self.list_mut(token);
        list.retain(|p| p.slot() != slot);
        if list.is_empty() {
            self.own.remove(&token);
        }
    }

    /// Every token with its list.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &[Posting])> {
        let read = self.at.iter().map(|(&token, &at)| (token, self.read(at)));
        read.chain(self.own.iter().map(|(&token, list)| (token, list.as_slice())))
    }

    /// Lets go of the room lists grew into: a list grows by doubling, and after a whole
    /// library was added, a quarter of the lists' memory is that slack.
    pub(super) fn shrink(&mut self) {
        for list in self.own.values_mut() {
            list.shrink_to_fit();
        }
        self.own.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(list: Option<&[Posting]>) -> Vec<u32> {
        list.unwrap_or_default().iter().map(|p| p.slot()).collect()
    }

    #[test]
    fn a_block_read_with_its_size_known_is_never_moved() {
        let mut lists = Lists::default();
        lists.reserve_read(2, 3_000);
        let start = lists.block.as_ptr();
        assert!(lists.push_read(1, (0..1_000).map(|slot| Posting::new(slot, 1.0))));
        assert!(lists.push_read(2, (0..2_000).map(|slot| Posting::new(slot, 1.0))));
        assert!(lists.holds_read(3_000) && !lists.holds_read(2_999));
        // Grown by doubling, it would have been moved as it filled.
        assert_eq!(lists.block.as_ptr(), start);
        assert_eq!(lists.block.capacity(), 3_000);
        assert_eq!(slots(lists.get(2)).len(), 2_000);
    }

    #[test]
    fn lists_read_in_one_block_are_changed_as_lists_of_their_own() {
        let mut lists = Lists::default();
        lists.reserve_read(3, 6);
        for (token, slots) in [(7, &[0, 2][..]), (8, &[1]), (9, &[0, 1, 2])] {
            assert!(lists.push_read(token, slots.iter().map(|&slot| Posting::new(slot, 1.0))));
        }
        assert!(lists.holds_read(6));
        lists.list_mut(10).push(Posting::new(3, 1.0));
        assert_eq!(lists.len(), 4);
        assert_eq!(slots(lists.get(9)), [0, 1, 2]);
        assert_eq!(slots(lists.get(10)), [3]);
        assert!(lists.get(11).is_none() && !lists.contains(11));

        // A read list changed keeps what it held, once.
        lists.list_mut(7).push(Posting::new(3, 1.0));
        lists.take_out(9, 1);
        assert_eq!(slots(lists.get(7)), [0, 2, 3]);
        assert_eq!(slots(lists.get(9)), [0, 2]);
        assert_eq!(slots(lists.get(8)), [1], "untouched");
        // A list left empty goes, read or made here.
        lists.take_out(8, 1);
        lists.take_out(10, 3);
        lists.take_out(11, 0);
        assert!(!lists.contains(8) && !lists.contains(10));
        assert_eq!(lists.len(), 2);
        let mut all: Vec<(u32, Vec<u32>)> = lists.iter().map(|(t, l)| (t, slots(Some(l)))).collect();
        all.sort();
        assert_eq!(all, [(7, vec![0, 2, 3]), (9, vec![0, 2])]);
    }

    #[test]
    fn a_posting_keeps_its_slot_and_its_weight_within_a_step() {
        let step = (K1 + 1.0) / VALUE_STEPS;
        for (slot, value) in [(0, 0.001), (1, 0.37), (4_095, 1.0), (MAX_SLOTS - 1, 2.2), (77, 5.0)] {
            let posting = Posting::new(slot, value);
            assert_eq!(posting.slot(), slot);
            let kept = value.clamp(step, K1 + 1.0);
            assert!(
                (posting.value() - kept).abs() <= step / 2.0 + f32::EPSILON,
                "{value} kept as {}",
                posting.value()
            );
        }
    }
}

//! The index words a request looks for ([`SkillIndex::query_terms`]), each knowing which
//! request words it stands for, and what holding several of the request's words adds to
//! a skill's score ([`coverage`]).

use std::sync::LazyLock;

use foldhash::HashMap;

use bm25::TokenEmbedder;

use super::{EXPANSION_WEIGHT, SkillIndex};

/// One index word a request looks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Term {
    /// The word's id in the fields' postings.
    pub(super) id: u32,
    /// What it weighs against the other words of the request.
    pub(super) weight: f32,
    /// The request words it stands for, a bit each (the first 32 distinct words of a
    /// request; none for two words a skill runs together).
    pub(super) words: u32,
}

/// A skill's score during a search, and the request words it has (as [`Term::words`]):
/// side by side, so that a posting updates one place in memory.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Scored {
    pub(super) score: f32,
    pub(super) words: u32,
}

/// What a skill's score is multiplied by for holding `matched` of the request's words
/// (in any field; as written, by its stem, as a near miss or through another word for
/// the same thing): the cube root, 1.26 for two words, 1.44 for three, 1.59 for four.
/// A skill that has more of what the request asks for outranks one where a single word
/// weighs as much (a family of skills that share a popular word, `pandas`, against the
/// one that also has the request's rarer words). Chosen on the development sets of the
/// search evaluation (decision 089): a square root helped fewer of them, and a fourth
/// root less.
fn coverage(matched: u32) -> f32 {
    (matched.max(1) as f32).cbrt()
}

/// [`coverage`] of the request words in `words` (a bit each, as [`Term::words`]), from a
/// table made once: a common request word touches thousands of skills in one search.
pub(super) fn coverage_of(words: u32) -> f32 {
    static FACTORS: LazyLock<[f32; 33]> = LazyLock::new(|| std::array::from_fn(|n| coverage(n as u32)));
    FACTORS[words.count_ones() as usize]
}

/// The bit of the `i`-th request word (none past the 32nd).
fn word_bit(i: usize) -> u32 {
    if i < 32 { 1 << i } else { 0 }
}

impl SkillIndex {
    /// The index words a request looks for, each with its weight and request words
    /// (sorted by word id); with `words`, each id's word as the index holds it is noted
    /// there (for [`explain`](Self::explain); a search does not pay for it).
    pub(super) fn query_terms(&self, query: &str, mut words: Option<&mut HashMap<u32, String>>) -> Vec<Term> {
        // Each request word counts twice: as written and as its stem, or twice as
        // written when it is its own stem (a word like `wmi` would count half as much
        // as `moving` otherwise).
        let mut terms: HashMap<u32, Term> = HashMap::default();
        let mut forms = self.words.forms(query);
        forms.sort_unstable();
        forms.dedup();
        // A word's known forms, each weighing 2 x `scale` when the word is its own stem
        // and `scale` when it comes with its stem.
        let mut add = |known: Vec<&str>, scale: f32, bit: u32| {
            let each = if known.len() == 1 { 2.0 } else { 1.0 } * scale;
            for word in known {
                let id = <u32 as TokenEmbedder>::embed(word);
                let term = terms.entry(id).or_insert(Term {
                    id,
                    weight: 0.0,
                    words: 0,
                });
                term.weight = term.weight.max(each);
                term.words |= bit;
                if let Some(words) = words.as_deref_mut() {
                    words.entry(id).or_insert_with(|| word.to_owned());
                }
            }
        };
        for (i, forms) in forms.iter().enumerate() {
            // A word only instructions have counts as written, before a near miss.
            let known = forms.iter().filter_map(|w| {
                if !self.vocabulary.has(w) && self.instructions.has(w) {
                    Some(w.as_str())
                } else {
                    self.vocabulary.known(w)
                }
            });
            add(known.collect(), 1.0, word_bit(i));
        }
        // Two request words that a skill writes as one (`vast ai`, `type script`) count
        // as that word, at half weight, when a skill has it as written.
        for join in self.words.joined(query) {
            for forms in self.words.forms(&join) {
                let known = self.vocabulary.as_written(&forms);
                if known.first().copied() == forms.first().map(String::as_str) {
                    add(known, 0.5, 0);
                }
            }
        }
        // Other words for the same thing count for less, and only as written: a word
        // no skill uses is not read as a near one.
        for (i, forms) in forms.iter().enumerate() {
            let also = forms.last().map(|stem| self.words.also(stem)).unwrap_or_default();
            for other in also.iter().flat_map(|word| self.words.forms(word)) {
                add(self.vocabulary.as_written(&other), EXPANSION_WEIGHT, word_bit(i));
            }
        }
        let mut terms: Vec<Term> = terms.into_values().collect();
        terms.sort_unstable_by_key(|t| t.id);
        terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_of_the_request_counts_for_more_and_less_each_time() {
        assert_eq!(coverage(0), 1.0);
        assert_eq!(coverage(1), 1.0);
        let steps: Vec<f32> = (1..=6).map(coverage).collect();
        for pair in steps.windows(2) {
            assert!(pair[1] > pair[0], "{steps:?}");
        }
        for triple in steps.windows(3) {
            assert!(triple[2] - triple[1] < triple[1] - triple[0], "{steps:?}");
        }
        assert!((coverage(8) - 2.0).abs() < 1e-6);
        // The table says what the function says, by the number of bits set.
        assert_eq!(coverage_of(0), 1.0);
        assert_eq!(coverage_of(0b1010_0001), coverage(3));
        assert_eq!(coverage_of(u32::MAX), coverage(32));
    }

    #[test]
    fn only_the_first_32_request_words_have_a_bit() {
        assert_eq!(word_bit(0), 1);
        assert_eq!(word_bit(31), 1 << 31);
        assert_eq!(word_bit(32), 0);
    }
}

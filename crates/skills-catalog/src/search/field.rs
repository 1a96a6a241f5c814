//! One field of the index (a skill's name, its description, the opening of its
//! instructions): BM25 weights in postings lists.

use bm25::{Embedder, EmbedderBuilder};

use super::LENGTH_NORMALIZATION;
use super::bytes::{In, Out};
use super::postings::{K1, Lists, MAX_SLOTS, Posting};
use super::terms::{Scored, Term};
use super::text::Split;

/// One field: BM25 weights from `bm25`'s embedder, kept in postings lists (token, then
/// the skills that have it with their weight). The crate's own `Scorer` computes each
/// word's IDF again for every candidate skill: 0.9 ms per search at the median and 2.8
/// ms at p99 on a real 7,239-skill library; postings answer in tens of microseconds.
pub(super) struct Field {
    /// The average text length BM25 takes, in words.
    avgdl: f32,
    embedder: Embedder<u32, Split>,
    postings: Lists,
    /// Per slot, the tokens it has postings under (to take them out again). `None` in a
    /// field read from the persistent cache, which comes without them (they say again
    /// what the postings say: a third of a kept index's bytes and of its decoding): the
    /// first removal finds them in the postings.
    tokens: Option<Vec<Box<[u32]>>>,
}

impl Field {
    /// A field whose `texts` texts hold `words` words in all.
    pub(super) fn new(words: usize, texts: usize) -> Self {
        Self::with_avgdl(Self::average(words, texts))
    }

    /// The average length BM25 takes for `texts` texts of `words` words in all, to 8
    /// significant bits (within 0.2%; a posting's weight is kept in steps of 0.1%): a library's
    /// average moves by a few millionths with each edit, and an index kept for the
    /// library before the edit answers exactly as a new one only while it stays the same
    /// ([`SkillIndex::patched`](super::SkillIndex::patched)).
    pub(super) fn average(words: usize, texts: usize) -> f32 {
        let exact = (words as f32 / texts.max(1) as f32).max(1.0);
        // Rounded to nearest: the low 15 of the 23 mantissa bits go.
        f32::from_bits((exact.to_bits() + (1 << 14)) & !((1 << 15) - 1))
    }

    /// The average text length this field's weights were computed with.
    pub(super) fn avgdl(&self) -> f32 {
        self.avgdl
    }

    fn with_avgdl(avgdl: f32) -> Self {
        Self {
            avgdl,
            embedder: EmbedderBuilder::with_avgdl(avgdl)
                .tokenizer(Split)
                .b(LENGTH_NORMALIZATION)
                .k1(K1)
                .build(),
            postings: Lists::default(),
            tokens: Some(Vec::new()),
        }
    }

    /// Writes the field to `out`, for [`decode`](Self::decode).
    pub(super) fn encode(&self, out: &mut Out) {
        out.f32(self.avgdl);
        out.len(self.postings.len());
        // The postings of all lists, for the reader to take room for them at once.
        out.len(self.postings.iter().map(|(_, list)| list.len()).sum());
        for (token, list) in self.postings.iter() {
            out.u32(token);
            out.len(list.len());
            for posting in list {
                out.u32(posting.0);
            }
        }
    }

    /// The field [`encode`](Self::encode) wrote.
    pub(super) fn decode(input: &mut In<'_>) -> Option<Self> {
        let mut field = Self::with_avgdl(input.f32()?);
        let count = input.count(8)?;
        let postings = input.count(4)?;
        field.postings.reserve_read(count, postings);
        for _ in 0..count {
            let token = input.u32()?;
            let len = input.count(4)?;
            if !field.postings.push_read(token, input.u32s_each(len)?.map(Posting)) {
                return None;
            }
        }
        field.tokens = None;
        field.postings.holds_read(postings).then_some(field)
    }

    /// Indexes `words` as the text of `slot` (below [`MAX_SLOTS`]).
    pub(super) fn upsert(&mut self, slot: u32, words: &[String]) {
        debug_assert!(slot < MAX_SLOTS);
        let mut embedding = self.embedder.embed(&words.join(" "));
        // The embedding has an entry per word written; one per distinct word is enough.
        embedding.0.sort_by_key(|t| t.index);
        embedding.0.dedup_by_key(|t| t.index);
        for token in &embedding.0 {
            self.postings
                .list_mut(token.index)
                .push(Posting::new(slot, token.value));
        }
        // Unknown tokens are found in the postings, this slot's with the others'.
        if let Some(tokens) = &mut self.tokens {
            if tokens.len() <= slot as usize {
                tokens.resize_with(slot as usize + 1, Default::default);
            }
            tokens[slot as usize] = embedding.0.iter().map(|t| t.index).collect();
        }
    }

    /// Whether some text of the field has `word`.
    pub(super) fn has(&self, word: &str) -> bool {
        self.postings.contains(<u32 as bm25::TokenEmbedder>::embed(word))
    }

    /// Lets go of the room postings lists grew into: a list grows by doubling, and after
    /// a whole library was added, a quarter of the lists' memory is that slack.
    pub(super) fn shrink(&mut self) {
        self.postings.shrink();
        if let Some(tokens) = &mut self.tokens {
            tokens.shrink_to_fit();
        }
    }

    pub(super) fn remove(&mut self, slot: u32) {
        let tokens = self.tokens.get_or_insert_with(|| tokens_in(&self.postings));
        let Some(tokens) = tokens.get_mut(slot as usize) else {
            return;
        };
        for &token in std::mem::take(tokens).iter() {
            self.postings.take_out(token, slot);
        }
    }

    /// What `term` adds to the score of the skill in `slot` at weight 1 (its IDF times
    /// its BM25 weight), if the skill's text in this field has it.
    pub(super) fn points(&self, term: u32, slot: u32, skills: usize) -> Option<f32> {
        let list = self.postings.get(term)?;
        let posting = list.iter().find(|p| p.slot() == slot)?;
        Some(idf(list.len(), skills) * posting.value())
    }

    /// Adds `weight` x the BM25 score of each skill for `terms` to `scores` (by slot),
    /// with the request words each skill has, noting each skill scored for the first
    /// time in `touched`.
    pub(super) fn score(
        &self,
        terms: &[Term],
        skills: usize,
        weight: f32,
        scores: &mut [Scored],
        touched: &mut Vec<u32>,
    ) {
        for term in terms {
            let weight = weight * term.weight;
            let Some(list) = self.postings.get(term.id) else {
                continue;
            };
            let idf = idf(list.len(), skills);
            for &posting in list {
                let scored = &mut scores[posting.slot() as usize];
                if scored.score == 0.0 {
                    touched.push(posting.slot());
                }
                scored.score += weight * idf * posting.value();
                scored.words |= term.words;
            }
        }
    }
}

/// BM25's IDF of a word `df` of `skills` skills have.
fn idf(df: usize, skills: usize) -> f32 {
    let df = df as f32;
    (1.0 + (skills as f32 - df + 0.5) / (df + 0.5)).ln()
}

/// Each slot's tokens, from the `postings` that hold it: counted first, so that each
/// slot's list is allocated once at its size.
fn tokens_in(postings: &Lists) -> Vec<Box<[u32]>> {
    let mut counts: Vec<usize> = Vec::new();
    for (_, list) in postings.iter() {
        for posting in list {
            let slot = posting.slot() as usize;
            if counts.len() <= slot {
                counts.resize(slot + 1, 0);
            }
            counts[slot] += 1;
        }
    }
    let mut tokens: Vec<Vec<u32>> = counts.into_iter().map(Vec::with_capacity).collect();
    for (token, list) in postings.iter() {
        for posting in list {
            tokens[posting.slot() as usize].push(token);
        }
    }
    tokens.into_iter().map(Vec::into_boxed_slice).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    fn term(word: &str) -> u32 {
        <u32 as bm25::TokenEmbedder>::embed(word)
    }

    #[test]
    fn a_field_whose_count_of_postings_is_not_what_its_lists_hold_is_refused() {
        let mut built = Field::new(9, 2);
        built.upsert(0, &words("pdf forms fill"));
        built.upsert(1, &words("pdf merge"));
        let mut out = Out::default();
        built.encode(&mut out);
        let read = |bytes: &[u8]| Field::decode(&mut In::new(&mut &bytes[..], bytes.len() as u64));
        assert!(read(&out.0).is_some());
        // The count follows the average length and the number of lists; there are 5 (`pdf` twice).
        let at = 4 + 4;
        assert_eq!(out.0[at..at + 4], 5u32.to_le_bytes());
        for wrong in [0u32, 4, 6] {
            let mut damaged = out.0.clone();
            damaged[at..at + 4].copy_from_slice(&wrong.to_le_bytes());
            assert!(read(&damaged).is_none(), "{wrong}");
        }
    }

    #[test]
    fn a_field_read_back_without_its_tokens_still_takes_a_skill_out_whole() {
        let mut built = Field::new(9, 3);
        built.upsert(0, &words("pdf forms fill"));
        built.upsert(1, &words("pdf merge split"));
        built.upsert(2, &words("slides deck"));
        let mut out = Out::default();
        built.encode(&mut out);
        let mut field = Field::decode(&mut In::new(&mut out.0.as_slice(), out.0.len() as u64)).unwrap();
        assert!(field.tokens.is_none());

        field.remove(1);
        // As a field that never had the removed skill.
        let mut expected = Field::new(9, 3);
        expected.upsert(0, &words("pdf forms fill"));
        expected.upsert(2, &words("slides deck"));
        for word in ["pdf", "forms", "fill", "merge", "split", "slides", "deck"] {
            assert_eq!(field.has(word), expected.has(word), "{word}");
            for slot in 0..3 {
                assert_eq!(
                    field.points(term(word), slot, 3),
                    expected.points(term(word), slot, 3),
                    "{word} {slot}"
                );
            }
        }

        // A skill added after the read is taken out again as well.
        field.upsert(3, &words("charts excel"));
        field.remove(3);
        assert!(!field.has("charts") && !field.has("excel"));
        field.remove(2);
        assert!(!field.has("slides") && !field.has("deck"));
        assert!(field.has("fill"));
    }
}

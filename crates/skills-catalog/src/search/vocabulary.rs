//! The words a library knows, for reading a request's words as known ones.

use std::sync::{Arc, OnceLock};

use super::HashMap;

use super::bytes::{In, Out};
use super::text::{Trigram, similarity, trigrams};

/// How alike by trigrams a misspelt word and the known word read for it must be.
const NEAR_MISS_SIMILARITY: f32 = 0.5;
/// Words shorter than this are not corrected (too many near neighbours).
const NEAR_MISS_MIN_CHARS: usize = 4;

/// The known words of the library, with how many skills use each, and an index of
/// their trigrams for reading a misspelt request word as the known word closest to it.
///
/// The trigram index is made from the words when a request first needs it, and kept up
/// to date from then on: it is neither kept in the cache nor read back with the index
/// (a third of the index's decoding at 40,000 skills), and most requests never need it.
#[derive(Default)]
pub(super) struct Vocabulary {
    /// Word to (id, skills that have it).
    ids: HashMap<Arc<str>, (u32, u32)>,
    /// Per id: the word (the same text as its key in `ids`) and its number of trigrams.
    words: Vec<Option<(Arc<str>, usize)>>,
    free: Vec<u32>,
    /// Trigram to the words that have it, once a near miss was looked up.
    grams: OnceLock<Grams>,
}

/// Trigram to the ids of the words that have it.
type Grams = HashMap<Trigram, Vec<u32>>;

impl Vocabulary {
    /// How many distinct words the library has.
    /// Writes the vocabulary to `out`, for [`decode`](Self::decode).
    pub(super) fn encode(&self, out: &mut Out) {
        out.len(self.words.len());
        for word in &self.words {
            match word
                .as_ref()
                .and_then(|(word, grams)| Some((word, grams, self.ids.get(word)?.1)))
            {
                Some((word, grams, skills)) => {
                    out.u32(1);
                    out.str(word);
                    out.len(*grams);
                    out.u32(skills);
                }
                None => out.u32(0),
            }
        }
        out.u32s(&self.free);
    }

    /// The vocabulary [`encode`](Self::encode) wrote.
    pub(super) fn decode(input: &mut In<'_>) -> Option<Self> {
        let mut vocabulary = Self::default();
        let count = input.count(4)?;
        vocabulary.words.reserve(count);
        vocabulary.ids.reserve(count);
        for id in 0..count {
            let word = match input.u32()? {
                0 => None,
                1 => {
                    let word: Arc<str> = Arc::from(input.str()?);
                    let grams = input.u32()? as usize;
                    let skills = input.u32()?;
                    vocabulary.ids.insert(Arc::clone(&word), (id as u32, skills));
                    Some((word, grams))
                }
                _ => return None,
            };
            vocabulary.words.push(word);
        }
        vocabulary.free = input.u32s()?;
        Some(vocabulary)
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn add(&mut self, word: &str) -> u32 {
        if let Some((id, skills)) = self.ids.get_mut(word) {
            *skills += 1;
            return *id;
        }
        let grams = trigrams(word);
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.words.push(None);
                (self.words.len() - 1) as u32
            }
        };
        let word: Arc<str> = word.into();
        self.words[id as usize] = Some((Arc::clone(&word), grams.len()));
        if let Some(index) = self.grams.get_mut() {
            for gram in grams {
                index.entry(gram).or_default().push(id);
            }
        }
        self.ids.insert(word, (id, 1));
        id
    }

    pub(super) fn release(&mut self, id: u32) {
        let Some(Some((word, _))) = self.words.get(id as usize) else {
            return;
        };
        let Some((_, skills)) = self.ids.get_mut(&**word) else {
            return;
        };
        *skills -= 1;
        if *skills == 0 {
            self.ids.remove(&**word);
            let word = self.words[id as usize].take();
            if let (Some((word, _)), Some(index)) = (word, self.grams.get_mut()) {
                for gram in trigrams(&word) {
                    if let Some(list) = index.get_mut(&gram) {
                        list.retain(|&w| w != id);
                        if list.is_empty() {
                            index.remove(&gram);
                        }
                    }
                }
            }
            self.free.push(id);
        }
    }

    /// The `forms` of a word that a skill has, as written (no near ones).
    pub(super) fn as_written<'a>(&self, forms: &'a [String]) -> Vec<&'a str> {
        forms
            .iter()
            .map(String::as_str)
            .filter(|w| self.ids.contains_key(*w))
            .collect()
    }

    /// Whether the library has `word` as written.
    pub(super) fn has(&self, word: &str) -> bool {
        self.ids.contains_key(word)
    }

    /// `word` if a skill has it, else the known word closest to it, if one is close.
    pub(super) fn known<'a>(&'a self, word: &'a str) -> Option<&'a str> {
        if self.ids.contains_key(word) {
            return Some(word);
        }
        if word.chars().count() < NEAR_MISS_MIN_CHARS {
            return None;
        }
        let grams = trigrams(word);
        let index = self.grams.get_or_init(|| self.index_grams());
        let mut shared: HashMap<u32, usize> = HashMap::default();
        for gram in &grams {
            for &id in index.get(gram).into_iter().flatten() {
                *shared.entry(id).or_default() += 1;
            }
        }
        let best = shared
            .into_iter()
            .filter_map(|(id, shared)| {
                let (known, count) = self.words.get(id as usize)?.as_ref()?;
                Some((similarity(shared, grams.len(), *count), &**known))
            })
            .filter(|(similar, _)| *similar >= NEAR_MISS_SIMILARITY)
            // The most alike; among equals, the first in word order.
            .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))?;
        Some(best.1)
    }

    /// Makes the trigram index now if no request did, so that none waits for it (about
    /// 50 ms at 40,000 skills).
    pub(super) fn prepare_near_misses(&self) {
        self.grams.get_or_init(|| self.index_grams());
    }

    /// The trigram index of the words known now.
    fn index_grams(&self) -> Grams {
        let mut index = Grams::default();
        for (id, word) in self.words.iter().enumerate() {
            for gram in word.iter().flat_map(|(word, _)| trigrams(word)) {
                index.entry(gram).or_default().push(id as u32);
            }
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::{In, Out, Vocabulary};

    #[test]
    fn a_vocabulary_read_back_corrects_and_forgets_words_as_the_one_written() {
        let mut written = Vocabulary::default();
        let terraform = written.add("terraform");
        for word in ["kubernetes", "postgres", "terraform"] {
            written.add(word);
        }
        let mut out = Out::default();
        written.encode(&mut out);
        let mut read = Vocabulary::decode(&mut In::new(&mut out.0.as_slice(), out.0.len() as u64)).unwrap();

        for vocabulary in [&mut written, &mut read] {
            assert_eq!(vocabulary.len(), 3);
            assert_eq!(vocabulary.known("terrafrom"), Some("terraform"));
            assert_eq!(vocabulary.known("kubernets"), Some("kubernetes"));
            assert_eq!(vocabulary.known("zeppelin"), None);
            // Two skills had `terraform`: it is known until both let go of it, and its
            // trigrams go with it.
            vocabulary.release(terraform);
            assert!(vocabulary.has("terraform"));
            vocabulary.release(terraform);
            assert!(!vocabulary.has("terraform"));
            assert_eq!(vocabulary.known("terrafrom"), None);
            assert_eq!(vocabulary.known("postgress"), Some("postgres"));
        }
    }

    #[test]
    fn near_misses_are_read_alike_whenever_the_trigram_index_was_made() {
        let words = ["kubernetes", "postgres", "terraform", "terragrunt"];
        // What a vocabulary reads each request word as.
        let reads = |vocabulary: &Vocabulary| {
            [
                "terrafrom",
                "terragrunnt",
                "kubernets",
                "postgress",
                "promethues",
                "zeppelin",
            ]
            .map(|word| vocabulary.known(word).map(str::to_owned))
        };
        let mut fresh = Vocabulary::default();
        for word in ["kubernetes", "postgres", "terragrunt", "prometheus"] {
            fresh.add(word);
        }
        let expected = reads(&fresh);
        assert_eq!(expected[0], None, "terraform is gone");
        assert_eq!(expected[4].as_deref(), Some("prometheus"));

        // `terraform` let go of and `prometheus` added in its place, with the index made
        // before any word, between them, or only when the requests are read.
        for made_at in 0..=words.len() {
            let mut vocabulary = Vocabulary::default();
            let mut ids = Vec::new();
            for (step, word) in words.iter().enumerate() {
                if step == made_at {
                    assert_eq!(vocabulary.known("zeppelin"), None);
                }
                ids.push(vocabulary.add(word));
            }
            vocabulary.release(ids[2]);
            assert_eq!(vocabulary.add("prometheus"), ids[2], "the id is taken again");
            assert_eq!(reads(&vocabulary), expected, "index made at step {made_at}");
        }
    }
}

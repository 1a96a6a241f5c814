//! The words a library knows, for reading a request's words as known ones.

use std::sync::Arc;

use super::HashMap;

use super::bytes::{In, Out};
use super::text::{Trigram, similarity, trigrams};

/// How alike by trigrams a misspelt word and the known word read for it must be.
const NEAR_MISS_SIMILARITY: f32 = 0.5;
/// Words shorter than this are not corrected (too many near neighbours).
const NEAR_MISS_MIN_CHARS: usize = 4;

/// The known words of the library, with how many skills use each, and an index of
/// their trigrams for reading a misspelt request word as the known word closest to it.
#[derive(Default)]
pub(super) struct Vocabulary {
    /// Word to (id, skills that have it).
    ids: HashMap<Arc<str>, (u32, u32)>,
    /// Per id: the word (the same text as its key in `ids`) and its number of trigrams.
    words: Vec<Option<(Arc<str>, usize)>>,
    free: Vec<u32>,
    /// Trigram to the words that have it.
    grams: HashMap<Trigram, Vec<u32>>,
}

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
        out.len(self.grams.len());
        for (&gram, ids) in &self.grams {
            out.u64(gram);
            out.u32s(ids);
        }
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
                    let word: Arc<str> = input.string()?.into();
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
        let count = input.count(12)?;
        vocabulary.grams.reserve(count);
        for _ in 0..count {
            let gram = input.u64()?;
            vocabulary.grams.insert(gram, input.u32s()?);
        }
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
        for gram in grams {
            self.grams.entry(gram).or_default().push(id);
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
            if let Some((word, _)) = self.words[id as usize].take() {
                for gram in trigrams(&word) {
                    if let Some(list) = self.grams.get_mut(&gram) {
                        list.retain(|&w| w != id);
                        if list.is_empty() {
                            self.grams.remove(&gram);
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
        let mut shared: HashMap<u32, usize> = HashMap::default();
        for gram in &grams {
            for &id in self.grams.get(gram).into_iter().flatten() {
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
}

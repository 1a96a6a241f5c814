//! The words of skill names, descriptions and requests, as the search index compares
//! them: lowercase, split at every character that is not a letter or a digit (so
//! `pdf-processing` is `pdf processing`), without the words too common to tell skills
//! apart, each with its stem (`deploying`, `deploys` and `deploy` share `deploy`).

use std::collections::HashSet;

use rust_stemmers::{Algorithm, Stemmer};

/// Words that say nothing about which skill is meant: English function words and the
/// phrasing of skill descriptions ("Use when the user wants ...").
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "get", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "need", "of", "on", "or",
    "our", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "up",
    "us", "use", "used", "uses", "using", "via", "want", "wants", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "why", "will", "with", "would", "you", "your",
];

/// Longer words are not words (hashes, base64, run-together junk) and are not indexed.
const MAX_WORD_CHARS: usize = 40;

/// Splits and stems text.
pub(crate) struct Words {
    stemmer: Stemmer,
    stop: HashSet<&'static str>,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Words(english)")
    }
}

impl Default for Words {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            stop: STOP_WORDS.iter().copied().collect(),
        }
    }
}

impl Words {
    /// The indexed words of `text`, in order, repeats kept: each word, followed by its
    /// stem where that differs. A request in the same form as the skill matches on both,
    /// one in another form on the stem alone.
    pub(crate) fn words(&self, text: &str) -> Vec<String> {
        self.forms(text).into_iter().flatten().collect()
    }

    /// The indexed forms of each word of `text`: the word and its stem, or the word
    /// alone when it is its own stem.
    pub(crate) fn forms(&self, text: &str) -> Vec<Vec<String>> {
        let lower = text.to_lowercase();
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && w.chars().count() <= MAX_WORD_CHARS && !self.stop.contains(w))
            .map(|w| {
                let stem = self.stemmer.stem(w);
                if stem == w {
                    vec![w.to_owned()]
                } else {
                    vec![w.to_owned(), stem.into_owned()]
                }
            })
            .collect()
    }
}

/// The tokenizer the index gives `bm25`: text that [`Words`] already split, joined by
/// spaces, so each text is stemmed once however many fields use it.
#[derive(Debug, Default)]
pub(crate) struct Split;

impl bm25::Tokenizer for Split {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        input_text
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// The character trigrams of a word, with its ends marked (`^pd`, `pdf`, `df$`), which
/// find a known word close to a misspelt one.
pub(crate) fn trigrams(word: &str) -> Vec<String> {
    let chars: Vec<char> = std::iter::once('^')
        .chain(word.chars())
        .chain(std::iter::once('$'))
        .collect();
    let mut grams: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

/// How alike two words are (Dice coefficient, 0 to 1) that share `shared` trigrams of
/// `a` and `b`.
pub(crate) fn similarity(shared: usize, a: usize, b: usize) -> f32 {
    if a + b == 0 {
        return 0.0;
    }
    2.0 * shared as f32 / (a + b) as f32
}

/// The words of `text` joined by one space, for matching a name inside a request.
pub(crate) fn plain(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_split_at_punctuation_with_their_stems_and_without_stop_words() {
        let words = Words::default();
        assert_eq!(
            words.words("PDF-Processing: Deploys the apps"),
            ["pdf", "processing", "process", "deploys", "deploy", "apps", "app"]
        );
        assert_eq!(words.words("Use when you want to"), Vec::<String>::new());
        assert_eq!(words.words(&"x".repeat(41)), Vec::<String>::new());
    }

    #[test]
    fn a_requests_words_come_with_their_stems() {
        let words = Words::default();
        assert_eq!(
            words.forms("Moving WMI hosts to the cloud"),
            [
                vec!["moving", "move"],
                vec!["wmi"],
                vec!["hosts", "host"],
                vec!["cloud"]
            ]
        );
    }

    #[test]
    fn near_words_share_most_trigrams() {
        let alike = |a: &str, b: &str| {
            let (a, b) = (trigrams(a), trigrams(b));
            similarity(a.iter().filter(|g| b.contains(g)).count(), a.len(), b.len())
        };
        assert!(alike("kubernets", "kubernetes") > 0.6);
        assert!(alike("terraform", "kubernetes") < 0.2);
        assert_eq!(trigrams("ab"), ["^ab", "ab$"]);
    }

    #[test]
    fn plain_text_is_lowercase_words() {
        assert_eq!(plain("  Docker--Compose Creator "), "docker compose creator");
    }
}

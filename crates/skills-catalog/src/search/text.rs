//! The words of skill names, descriptions and requests, as the search index compares
//! them: lowercase, split at every character that is not a letter or a digit (so
//! `pdf-processing` is `pdf processing`), without the words too common to tell skills
//! apart, each with its stem (`deploying`, `deploys` and `deploy` share `deploy`); text
//! in a script without spaces between words (Chinese, Japanese, Korean) in overlapping
//! pairs of characters.

use std::cell::RefCell;

use foldhash::{HashMap, HashMapExt, HashSet};

use rust_stemmers::{Algorithm, Stemmer};
use skills_core::{FrontmatterValue, SkillMetadata};

use super::lexicon::{ALSO, SAME_STEM, STOP_WORDS};

/// Longer words are not words (hashes, base64, run-together junk) and are not indexed.
const MAX_WORD_CHARS: usize = 40;

/// Most words whose stems a thread remembers ([`Words::stem`]): a library's vocabulary
/// is tens of thousands of words, each written thousands of times over its skills.
const REMEMBERED_STEMS: usize = 1 << 17;

thread_local! {
    /// The stemmer's answers this thread has had, by word: `None` for a word that is its
    /// own stem. Indexing a library asks the stemmer once per distinct word instead of
    /// once per word written (the English stemmer was a sixth of building an index).
    static STEMS: RefCell<HashMap<Box<str>, Option<Box<str>>>> = RefCell::new(HashMap::new());
}

/// Splits and stems text.
pub(crate) struct Words {
    stemmer: Stemmer,
    stop: HashSet<&'static str>,
    /// [`SAME_STEM`], by the stemmer's stem.
    same: HashMap<&'static str, &'static str>,
    /// [`ALSO`], by the stem of the request word (entries whose words share a stem,
    /// `bill` and `billing`, merged).
    also: HashMap<String, Vec<&'static str>>,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Words(english)")
    }
}

impl Default for Words {
    fn default() -> Self {
        let mut words = Self {
            stemmer: Stemmer::create(Algorithm::English),
            stop: STOP_WORDS.iter().copied().collect(),
            same: SAME_STEM.iter().copied().collect(),
            also: HashMap::new(),
        };
        for &(word, others) in ALSO {
            let stem = words.stem(word).into_owned();
            let merged = words.also.entry(stem).or_default();
            for other in others {
                if !merged.contains(other) {
                    merged.push(other);
                }
            }
        }
        words
    }
}

impl Words {
    /// The indexed words of `text`, in order, repeats kept: each word, followed by its
    /// stem where that differs. A request in the same form as the skill matches on both,
    /// one in another form on the stem alone.
    pub(crate) fn words(&self, text: &str) -> Vec<String> {
        self.forms(text).into_iter().flatten().collect()
    }

    /// The indexed words a skill has besides its name: its description (with
    /// `when_to_use`), then the words its author tagged it with ([`tag_text`]). The one
    /// definition of the description field, for its content and its average length.
    pub(crate) fn description_words(&self, skill: &SkillMetadata) -> Vec<String> {
        let mut words = self.words(&skill.listing_description());
        words.extend(self.words(&tag_text(skill)));
        words
    }

    /// The words a request word also looks for, by the word's stem (the last of its
    /// [`forms`](Self::forms)).
    pub(crate) fn also(&self, stem: &str) -> &[&'static str] {
        self.also.get(stem).map_or(&[], Vec::as_slice)
    }

    /// The stem of lowercase `word`: the English stemmer's, or the one its family shares
    /// ([`SAME_STEM`]).
    fn stem<'w>(&self, word: &'w str) -> std::borrow::Cow<'w, str> {
        let remembered = STEMS.with_borrow(|stems| {
            stems.get(word).map(|stem| match stem {
                Some(stem) => std::borrow::Cow::Owned(stem.to_string()),
                None => std::borrow::Cow::Borrowed(word),
            })
        });
        if let Some(stem) = remembered {
            return stem;
        }
        let stem = self.stemmer.stem(word);
        let stem = self.same.get(&*stem).map_or(stem, |&shared| shared.into());
        STEMS.with_borrow_mut(|stems| {
            if stems.len() >= REMEMBERED_STEMS {
                stems.clear();
            }
            stems.insert(word.into(), (stem != word).then(|| stem.as_ref().into()));
        });
        stem
    }

    /// The indexed forms of each word of `text`: the word and its stem, or the word
    /// alone when it is its own stem.
    ///
    /// Text in a script written without spaces (Chinese, Japanese; Korean too) has no
    /// words to split at: each run of it gives its overlapping pairs of characters
    /// (`双色球开奖` gives `双色`, `色球`, `球开`, `开奖`), each its own form, as CJK
    /// analyzers do; a lone character stands for itself.
    pub(crate) fn forms(&self, text: &str) -> Vec<Vec<String>> {
        let lower = text.to_lowercase();
        let mut forms = Vec::new();
        for (cjk, run) in runs(&lower) {
            if cjk {
                forms.extend(pairs(run).map(|pair| vec![pair.to_owned()]));
                continue;
            }
            if run.chars().count() > MAX_WORD_CHARS || self.stop.contains(run) {
                continue;
            }
            let stem = self.stem(run);
            forms.push(if stem == run {
                vec![run.to_owned()]
            } else {
                vec![run.to_owned(), stem.into_owned()]
            });
        }
        forms
    }
}

/// Whether `c` belongs to a script written without spaces between words, whose text the
/// index reads in pairs of characters: Han, Hiragana, Katakana and Hangul syllables.
fn is_cjk(c: char) -> bool {
    matches!(
        c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF
    )
}

/// The words of lowercase `text`, split at every character that is not a letter or a
/// digit and where a [CJK](is_cjk) run starts or ends (`用anilist查番` is `用`,
/// `anilist`, `查番`), each marked as CJK or not.
fn runs(text: &str) -> impl Iterator<Item = (bool, &str)> {
    text.split(|c: char| !c.is_alphanumeric()).flat_map(|word| {
        let mut rest = word;
        std::iter::from_fn(move || {
            let first = rest.chars().next()?;
            let cjk = is_cjk(first);
            let end = rest.find(|c: char| is_cjk(c) != cjk).unwrap_or(rest.len());
            let (run, after) = rest.split_at(end);
            rest = after;
            Some((cjk, run))
        })
    })
}

/// The overlapping pairs of characters of a CJK run, or the run itself when it is one
/// character.
fn pairs(run: &str) -> impl Iterator<Item = &str> {
    let lone = run.chars().nth(1).is_none().then_some(run);
    let pairs = run
        .char_indices()
        .zip(run.chars().skip(1))
        .map(move |((at, first), second)| &run[at..at + first.len_utf8() + second.len_utf8()]);
    lone.into_iter().chain(pairs)
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

/// Three characters in one number: each is below 2^21, so the three fit in 63 bits and
/// two trigrams are equal exactly when their numbers are (no string to allocate, hash
/// or keep for each).
pub(crate) type Trigram = u64;

/// `a`, `b` and `c` as one [`Trigram`].
pub(crate) fn trigram(a: char, b: char, c: char) -> Trigram {
    (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c)
}

/// The character trigrams of a word, with its ends marked (`^pd`, `pdf`, `df$`), which
/// find a known word close to a misspelt one.
pub(crate) fn trigrams(word: &str) -> Vec<Trigram> {
    let chars: Vec<char> = std::iter::once('^')
        .chain(word.chars())
        .chain(std::iter::once('$'))
        .collect();
    let mut grams: Vec<Trigram> = chars.windows(3).map(|w| trigram(w[0], w[1], w[2])).collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

/// How many trigrams two sorted lists of [`trigrams`] share.
pub(crate) fn shared(a: &[Trigram], b: &[Trigram]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// How alike two words are (Dice coefficient, 0 to 1) that share `shared` trigrams of
/// `a` and `b`.
pub(crate) fn similarity(shared: usize, a: usize, b: usize) -> f32 {
    if a + b == 0 {
        return 0.0;
    }
    2.0 * shared as f32 / (a + b) as f32
}

impl Words {
    /// Each two neighbouring words of `text` written as one (`vast.ai` as `vastai`,
    /// `type script` as `typescript`), for the names and words that run them together.
    /// Pairs with a stop word are not joined (`my sql` is not `mysql`, `a na` not `ana`),
    /// nor are joins longer than a word.
    pub(crate) fn joined(&self, text: &str) -> Vec<String> {
        let lower = text.to_lowercase();
        // CJK runs are read in pairs of characters already (`forms`).
        let words: Vec<Option<&str>> = runs(&lower).map(|(cjk, run)| (!cjk).then_some(run)).collect();
        words
            .windows(2)
            .filter_map(|pair| Some([pair[0]?, pair[1]?]))
            .filter(|pair| !pair.iter().any(|w| self.stop.contains(w)))
            .map(|pair| pair.concat())
            .filter(|w| w.chars().count() <= MAX_WORD_CHARS)
            .collect()
    }
}

/// The words of `text` joined by one space, for matching a name inside a request.
pub(crate) fn plain(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words a skill's author gave for finding it: `tags` and `keywords`, at the top of
/// the frontmatter or under `metadata` (lists or text), as one text. Half of a large
/// real library carries them (3,845 of 8,244 skills of one public collection).
pub(super) fn tag_text(skill: &SkillMetadata) -> String {
    fn flatten(value: &FrontmatterValue, out: &mut String) {
        match value {
            FrontmatterValue::Text(text) => {
                out.push(' ');
                out.push_str(text);
            }
            FrontmatterValue::List(items) => items.iter().for_each(|item| flatten(item, out)),
            FrontmatterValue::Null | FrontmatterValue::Map(_) => {}
        }
    }
    let mut out = String::new();
    for key in ["tags", "keywords"] {
        if let Some(value) = skill.extra.get(key) {
            flatten(value, &mut out);
        }
        if let Some(text) = skill.metadata.get(key) {
            out.push(' ');
            out.push_str(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_stem_is_the_stemmer_s_and_the_memory_is_bounded() {
        let words = Words::default();
        let stemmer = Stemmer::create(Algorithm::English);
        let asked = [
            "deploying",
            "deploy",
            "analysis",
            "analyze",
            "processing",
            "k8s",
            "gateway",
        ];
        let first: Vec<String> = asked.iter().map(|w| words.stem(w).into_owned()).collect();
        // Asked again, each answer comes from the thread's memory: the same answer.
        let again: Vec<String> = asked.iter().map(|w| words.stem(w).into_owned()).collect();
        assert_eq!(first, again);
        for (word, stem) in asked.iter().zip(&first) {
            let expected = stemmer.stem(word);
            let expected = words.same.get(&*expected).map_or(expected, |&shared| shared.into());
            assert_eq!(stem, &expected, "{word}");
        }
        assert!(STEMS.with_borrow(|stems| stems.contains_key("deploying")));
        // Past its bound the memory starts again rather than grow.
        for n in 0..REMEMBERED_STEMS + 10 {
            words.stem(&format!("word{n}"));
        }
        assert!(STEMS.with_borrow(|stems| stems.len() <= REMEMBERED_STEMS));
        assert_eq!(words.stem("deploying"), "deploy");
    }

    #[test]
    fn words_are_split_at_punctuation_with_their_stems_and_without_stop_words() {
        let words = Words::default();
        assert_eq!(
            words.words("PDF-Processing: Deploys the apps"),
            ["pdf", "processing", "process", "deploys", "deploy", "apps", "app"]
        );
        assert_eq!(words.words("Use when you want to"), Vec::<String>::new());
        // A possessive is its word alone, not the word and an `s` (nor `gateways`).
        assert_eq!(words.words("the gateway's MAC"), ["gateway", "mac"]);
        assert_eq!(words.joined("the gateway's MAC"), Vec::<String>::new());
        assert_eq!(words.words(&"x".repeat(41)), Vec::<String>::new());
    }

    #[test]
    fn a_family_of_words_the_stemmer_leaves_apart_shares_one_stem() {
        let words = Words::default();
        let stem = |word: &str| words.forms(word).concat().last().cloned().unwrap_or_default();
        for family in [
            &["analysis", "analyses", "analyze", "analyzing"][..],
            &["diagnosis", "diagnostics", "diagnose"],
            &["scanner", "scanners", "scan", "scanning"],
            &["verification", "verify", "verified"],
            &["linter", "lint", "linting"],
            &["optimise", "optimisation", "optimize", "optimization"],
            &["colour", "colours", "color"],
        ] {
            let stems: Vec<String> = family.iter().map(|w| stem(w)).collect();
            assert!(stems.iter().all(|s| *s == stems[0]), "{family:?}: {stems:?}");
        }
        // Words of other families stay apart.
        assert_ne!(stem("conversation"), stem("convert"));
        assert_ne!(stem("public"), stem("publish"));
        assert_ne!(stem("analytics"), stem("analyze"));
        // A request word's other words are found by its family's stem too.
        assert_eq!(words.also(&stem("formatter")), words.also(&stem("format")));
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
        assert_eq!(trigrams("ab"), [trigram('^', 'a', 'b'), trigram('a', 'b', '$')]);
        // Each character has a place of its own: no two trigrams share a number.
        assert_ne!(trigram('a', 'b', 'c'), trigram('b', 'a', 'c'));
        assert_ne!(trigram('\u{10ffff}', 'a', 'b'), trigram('a', '\u{10ffff}', 'b'));
        assert_eq!(
            trigrams("aaaa"),
            [trigram('^', 'a', 'a'), trigram('a', 'a', '$'), trigram('a', 'a', 'a')]
        );
    }

    #[test]
    fn every_entry_of_the_list_of_other_words_is_looked_for() {
        // Entries whose request words share a stem (`configure` and `configuration`)
        // must all count, not the last one alone.
        let words = Words::default();
        for &(word, also) in ALSO {
            let stem = words.forms(word).remove(0).pop().unwrap();
            for other in also {
                assert!(words.also(&stem).contains(other), "{word} -> {other}");
            }
        }
        assert!(words.also("configur").contains(&"setup"));
        assert!(words.also("configur").contains(&"config"));
    }

    #[test]
    fn a_fault_in_any_written_form_looks_for_errors() {
        // The forms a request writes a fault in, apostrophes and inflections included,
        // each reach the words of the skills about errors.
        let words = Words::default();
        for written in ["isn't", "doesn't", "fails", "failing", "failure", "stuck", "wrong"] {
            let forms = words.forms(written);
            let stem = forms.first().and_then(|f| f.last()).unwrap();
            assert!(words.also(stem).contains(&"error"), "{written} ({stem})");
        }
    }

    #[test]
    fn neighbouring_words_are_joined_in_pairs() {
        let words = Words::default();
        assert_eq!(words.joined("Vast.ai rate-limits"), ["vastai", "airate", "ratelimits"]);
        assert_eq!(words.joined("check my SQL"), Vec::<String>::new());
        assert_eq!(words.joined("one"), Vec::<String>::new());
        assert_eq!(words.joined(&format!("{} b", "x".repeat(40))), Vec::<String>::new());
    }

    #[test]
    fn text_without_spaces_is_read_in_pairs_of_characters() {
        let words = Words::default();
        assert_eq!(words.words("双色球开奖"), ["双色", "色球", "球开", "开奖"]);
        // Runs of another script are words of their own, stemmed as usual.
        assert_eq!(
            words.forms("用AniList查番，声优"),
            [vec!["用"], vec!["anilist"], vec!["查番"], vec!["声优"]]
        );
        assert_eq!(
            words.words("ファイルを保存"),
            ["ファ", "ァイ", "イル", "ルを", "を保", "保存"]
        );
        assert_eq!(words.words("파일 저장"), ["파일", "저장"]);
        // Neither joined across scripts nor inside a run.
        assert_eq!(words.joined("vast.ai 价格 rate limits"), ["vastai", "ratelimits"]);
    }

    #[test]
    fn plain_text_is_lowercase_words() {
        assert_eq!(plain("  Docker--Compose Creator "), "docker compose creator");
    }
}

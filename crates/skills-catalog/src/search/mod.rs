//! [`SkillIndex`]: finds the skills a request is about, by name and description (and the
//! opening of their instructions, when given), in a library of any size. What
//! `search_skills` answers from.
//!
//! Scoring is BM25 from the `bm25` crate, one scorer per field, on top of which the index
//! adds what plain BM25 over name and description misses (each measured on the search
//! evaluation, `cargo xtask bench search`):
//! - words are stemmed and stop words dropped ([`text`]), and names are split at
//!   hyphens, so `deploying` finds `deploy-app`;
//! - text in a script written without spaces (Chinese, Japanese, Korean) is read in
//!   overlapping pairs of characters, so `双色球开奖` finds a skill about `双色球`;
//! - a match in the name weighs more than one in the description, and the words an
//!   author listed under `tags` or `keywords` count as description;
//! - a request that is a skill's name (`pdf processing` for `pdf-processing`) finds it first;
//! - a word that no skill has (`kubernets`) is read as the known word closest to it by
//!   character trigrams;
//! - a request word also looks for the other words and abbreviations skills use for the
//!   same thing (`move` finds `migrate`, `k8s` finds `kubernetes`), at half weight;
//! - two request words a skill runs together (`vast.ai` for `vastai`) count as that word;
//! - a skill's score is multiplied by the cube root of how many of the request's words it
//!   has, in any field ([`terms::coverage_of`]): three of them outweigh one popular word;
//! - the opening of a skill's instructions ([`SkillIndex::set_instructions`]) is a third
//!   field, at half the description's weight: it says what the skill does in more words
//!   than the description, which finds skills whose description is terse or written for
//!   another reader (`sky coordinates` finds `astropy`).

mod answer;
mod bytes;
mod cached;
mod catalog;
mod explain;
mod field;
mod instructions;
mod lexicon;
mod patch;
mod postings;
pub(crate) mod state;
mod stored;
mod terms;
mod text;
mod vocabulary;

use foldhash::HashMap;
use std::borrow::Borrow;
use std::sync::atomic::{AtomicU64, Ordering};

use skills_core::SkillMetadata;

pub use answer::{SearchRequest, format_search_results};
pub use explain::{Explanation, Match};
use field::Field;
pub use instructions::INSTRUCTIONS_CHARS;
use instructions::{INSTRUCTIONS_AVERAGE_WORDS, INSTRUCTIONS_WEIGHT};
pub(crate) use instructions::{Unread, opening};
use postings::MAX_SLOTS;
use terms::Scored;
use text::{Words, plain};
pub(crate) use text::{shared as shared_trigrams, similarity, trigrams};
use vocabulary::Vocabulary;

/// Results a search gives when no limit is asked for.
pub const DEFAULT_SEARCH_RESULTS: usize = 8;
/// The most results one search gives.
pub const MAX_SEARCH_RESULTS: usize = 16;

/// What a request word found in a skill's name adds, beyond its match in the name and
/// description field (both chosen on the search evaluation: a larger name weight let
/// families of skills named alike crowd out the one a request describes).
const NAME_WEIGHT: f32 = 0.3;
/// BM25's `b`: how much a long description is discounted. Real descriptions run from 5
/// to 1,024 characters; the usual 0.75 buried long ones that match well.
const LENGTH_NORMALIZATION: f32 = 0.5;
/// What naming a skill adds to its score: more than any sum of word scores.
const NAMED_BONUS: f32 = 1_000.0;
/// What a word found through [`text`]'s list of other words for the same thing weighs,
/// against the request's own words.
const EXPANSION_WEIGHT: f32 = 0.5;
/// Characters of a request that count; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 1_024;

/// Why a search was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The query has no words.
    #[error("the search query is empty: say what the skill should do, e.g. \"extract tables from a pdf\"")]
    EmptyQuery,
    /// A limit of zero asks for nothing.
    #[error("the search limit must be at least 1 (at most {MAX_SEARCH_RESULTS})")]
    ZeroLimit,
}

/// One skill a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The skill's name.
    pub name: String,
    /// How well it matches; only the order means anything.
    pub score: f32,
}

/// Whether a search for `query` with `limit` can be answered: a query without letters or
/// digits, or a limit of 0, is refused ([`SkillIndex::search`]). A program can ask before
/// it loads a library.
///
/// ```
/// use skills_catalog::{SearchError, check_search};
/// assert_eq!(check_search("fill a pdf form", 5), Ok(()));
/// assert_eq!(check_search(" ?! ", 5), Err(SearchError::EmptyQuery));
/// assert_eq!(check_search("pdf", 0), Err(SearchError::ZeroLimit));
/// ```
pub fn check_search(query: &str, limit: usize) -> Result<(), SearchError> {
    if !query.chars().any(char::is_alphanumeric) {
        return Err(SearchError::EmptyQuery);
    }
    if limit == 0 {
        return Err(SearchError::ZeroLimit);
    }
    Ok(())
}

/// A skill in the index.
struct Indexed {
    name: String,
    /// The name as plain words, to see a request name it.
    plain: String,
    /// Its distinct words, by vocabulary id.
    words: Box<[u32]>,
    /// Which indexing of the skill this is: instructions read for an earlier one
    /// are not set on it.
    generation: u64,
    /// Whether its instructions were given (and indexed, if they had words).
    instructions: bool,
    /// A digest of what it was indexed from ([`patch::stamp`]): a kept index keeps the
    /// skills whose stamp a later library gives again.
    stamp: u64,
    /// Its length in words in the name field and in the description field (which
    /// holds the name too), for the fields' averages.
    lens: [u32; 2],
    /// A digest of the instruction words it was given ([`patch::said`]), 0 before.
    said: u64,
}

/// The part of a request that counts: a request comes from a model or a client, and
/// only its first [`MAX_QUERY_CHARS`] characters are read, so a huge one costs no more
/// than a long one.
fn clipped(query: &str) -> &str {
    match query.char_indices().nth(MAX_QUERY_CHARS) {
        Some((end, _)) => &query[..end],
        None => query,
    }
}

/// The first word of a name in plain words ([`plain`]), which the index files the skill
/// under to find the skill a request names; `None` for a name without letters or digits.
fn first_word(plain: &str) -> Option<&str> {
    plain.split(' ').next().filter(|w| !w.is_empty())
}

/// A search index over a library's skill names and descriptions, updated skill by skill.
///
/// ```
/// use skills_catalog::SkillIndex;
/// use skills_core::SkillMetadata;
///
/// let skills = [
///     SkillMetadata::new("pdf-processing", "Extract text and tables from PDF files", "/s/pdf/SKILL.md"),
///     SkillMetadata::new("deploy-app", "Deploys the web app to production", "/s/deploy/SKILL.md"),
/// ];
/// let index = SkillIndex::build(&skills);
/// let hits = index.search("deploying to prod", 8)?;
/// assert_eq!(hits[0].name, "deploy-app");
/// assert_eq!(index.search("tabels in a pdf", 8)?[0].name, "pdf-processing");   // a near miss
/// assert!(index.search("  ", 8).is_err());
/// # Ok::<(), skills_catalog::SearchError>(())
/// ```
pub struct SkillIndex {
    words: Words,
    slots: HashMap<String, u32>,
    /// Per slot, the skill there.
    skills: Vec<Option<Indexed>>,
    free: Vec<u32>,
    /// The skills by the first word of their name as plain words, to find the skill a
    /// request names (a map of whole names would hold every name a second time).
    first_words: HashMap<String, Vec<u32>>,
    names: Field,
    descriptions: Field,
    instructions: Field,
    vocabulary: Vocabulary,
    /// How many skills were not given their instructions yet.
    unread: usize,
}

/// The last generation of an indexing of a skill, by any index: unique across indexes,
/// so that instructions read for an index that was since built again are not taken for
/// the new one's.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A new generation for an indexing of a skill ([`GENERATION`]).
fn next_generation() -> u64 {
    GENERATION.fetch_add(1, Ordering::Relaxed) + 1
}

impl std::fmt::Debug for SkillIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillIndex")
            .field("skills", &self.slots.len())
            .field("words", &self.vocabulary.len())
            .finish_non_exhaustive()
    }
}

impl SkillIndex {
    /// The index of `skills` (names are unique in a catalog; a repeated name keeps the
    /// last).
    pub fn build<S: Borrow<SkillMetadata>>(skills: &[S]) -> Self {
        let skills: Vec<&SkillMetadata> = skills.iter().map(Borrow::borrow).collect();
        let words = Words::default();
        // Average lengths in words of the skills indexed, for BM25; the skills are split
        // again as they are added (a copy of every word list would double the peak).
        let indexed = skills.iter().filter(|s| s.model_invocable());
        let (name_words, all_words) = indexed.clone().fold((0, 0), |(names, all), s| {
            let [name, both] = patch::lens(&words, s);
            (names + name, all + both)
        });
        let count = indexed.count();
        let mut index = Self {
            names: Field::new(name_words, count),
            descriptions: Field::new(all_words, count),
            instructions: Field::new(INSTRUCTIONS_AVERAGE_WORDS, 1),
            words,
            slots: HashMap::with_capacity_and_hasher(skills.len(), Default::default()),
            skills: Vec::with_capacity(skills.len()),
            free: Vec::new(),
            first_words: HashMap::default(),
            vocabulary: Vocabulary::default(),
            unread: 0,
        };
        for skill in skills {
            index.upsert(skill);
        }
        index.shrink();
        index
    }

    /// Lets go of the room the index's lists grew into while a whole library was added.
    pub(crate) fn shrink(&mut self) {
        self.names.shrink();
        self.descriptions.shrink();
        self.instructions.shrink();
    }

    /// How many skills the index holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the index holds no skill.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Indexes `skill`, replacing the skill of the same name (and the instructions it
    /// was given: the new skill's are unread). An index holds up to 4,194,304 skills
    /// (the limit of its compact postings); past that, further skills are not indexed.
    pub fn upsert(&mut self, skill: &SkillMetadata) {
        self.remove(&skill.name);
        if !skill.model_invocable() {
            // For people only: `search_skills` serves the model.
            return;
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None if self.skills.len() >= MAX_SLOTS as usize => {
                tracing::debug!(name = %skill.name, "the search index is full: the skill is not indexed");
                return;
            }
            None => {
                self.skills.push(None);
                (self.skills.len() - 1) as u32
            }
        };
        let name = self.words.words(&skill.name);
        let mut both = name.clone();
        both.extend(self.words.description_words(skill));
        let lens = [name.len(), both.len()].map(|len| u32::try_from(len).unwrap_or(u32::MAX));
        self.names.upsert(slot, &name);
        self.descriptions.upsert(slot, &both);
        both.sort_unstable();
        both.dedup();
        let known: Box<[u32]> = both.iter().map(|w| self.vocabulary.add(w)).collect();
        let plain = plain(&skill.name);
        if let Some(first) = first_word(&plain) {
            self.first_words.entry(first.to_owned()).or_default().push(slot);
        }
        self.unread += 1;
        self.skills[slot as usize] = Some(Indexed {
            name: skill.name.clone(),
            plain,
            words: known,
            generation: next_generation(),
            instructions: false,
            stamp: patch::stamp(skill),
            lens,
            said: 0,
        });
        self.slots.insert(skill.name.clone(), slot);
    }

    /// Takes the skill `name` out of the index; whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(slot) = self.slots.remove(name) else {
            return false;
        };
        if let Some(skill) = self.skills[slot as usize].take() {
            if !skill.instructions {
                self.unread -= 1;
            }
            for &id in &skill.words {
                self.vocabulary.release(id);
            }
            if let Some(first) = first_word(&skill.plain)
                && let Some(slots) = self.first_words.get_mut(first)
            {
                slots.retain(|&s| s != slot);
                if slots.is_empty() {
                    self.first_words.remove(first);
                }
            }
        }
        self.names.remove(slot);
        self.descriptions.remove(slot);
        self.instructions.remove(slot);
        self.free.push(slot);
        true
    }

    /// The fields a search scores, each with its name (in [`explain`](Self::explain))
    /// and weight.
    fn fields(&self) -> [(&'static str, &Field, f32); 3] {
        [
            ("description", &self.descriptions, 1.0),
            ("name", &self.names, NAME_WEIGHT),
            ("instructions", &self.instructions, INSTRUCTIONS_WEIGHT),
        ]
    }

    /// The skills that best match `query`, best first, at most `limit` (and at most
    /// [`MAX_SEARCH_RESULTS`]); equal scores in name order. A query of only common words
    /// finds nothing; past [`MAX_QUERY_CHARS`] characters a query is not read.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        self.search_where(query, limit, &|_| true)
    }

    /// [`search`](Self::search) among the skills `keep` accepts (by name): the best
    /// `limit` of those, not the best `limit` of all then filtered.
    pub fn search_where(
        &self,
        query: &str,
        limit: usize,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<SearchHit>, SearchError> {
        check_search(query, limit)?;
        let limit = limit.min(MAX_SEARCH_RESULTS);
        let query = clipped(query);
        let terms = self.query_terms(query, None);

        let skills = self.slots.len();
        let mut scores = vec![Scored::default(); self.skills.len()];
        let mut touched = Vec::new();
        for (_, field, weight) in self.fields() {
            field.score(&terms, skills, weight, &mut scores, &mut touched);
        }
        // A skill that holds more of the request's words counts for more.
        for &slot in &touched {
            let scored = &mut scores[slot as usize];
            scored.score *= terms::coverage_of(scored.words);
        }
        // A request that is a skill's name, in any case or spelling of its separators,
        // finds that skill first. A request that only contains a name does not: in a
        // large library, two words of most requests are some skill's name (`go code`,
        // `error handling`, `landing page`), which then crowded out the skills the
        // request describes.
        let request = plain(query);
        let candidates = first_word(&request).and_then(|first| self.first_words.get(first));
        for &slot in candidates.into_iter().flatten() {
            let Some(Some(skill)) = self.skills.get(slot as usize) else {
                continue;
            };
            // A skill no request word reached (a name of stop words) is not named by it.
            if skill.plain == request && scores[slot as usize].score > 0.0 {
                scores[slot as usize].score += NAMED_BONUS;
            }
        }
        let ranked: Vec<(f32, &str)> = touched
            .iter()
            .filter_map(|&slot| {
                let skill = self.skills.get(slot as usize)?.as_ref()?;
                Some((scores[slot as usize].score, skill.name.as_str()))
            })
            .collect();
        let ranked = best_kept(ranked, limit, keep);
        let hits = ranked
            .into_iter()
            .map(|(score, name)| SearchHit {
                name: name.to_owned(),
                score,
            })
            .collect();
        Ok(hits)
    }
}

/// The best `limit` of `ranked` that `keep` accepts, best first, equal scores in name
/// order. Only the best candidates are sorted and asked about (those scoring at least
/// the `want`-th best score, comparing numbers only), `want` widening when `keep` refuses
/// too many: a filter costs a few calls, not one per skill a common word reached.
fn best_kept<'a>(ranked: Vec<(f32, &'a str)>, limit: usize, keep: &dyn Fn(&str) -> bool) -> Vec<(f32, &'a str)> {
    let order = |a: &(f32, &str), b: &(f32, &str)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1));
    let mut want = limit.max(1);
    loop {
        let mut candidates = if ranked.len() > want {
            let mut scores: Vec<f32> = ranked.iter().map(|(score, _)| *score).collect();
            let (_, threshold, _) = scores.select_nth_unstable_by(want - 1, |a, b| b.total_cmp(a));
            let threshold = *threshold;
            ranked
                .iter()
                .copied()
                .filter(|(score, _)| *score >= threshold)
                .collect()
        } else {
            ranked.clone()
        };
        let complete = candidates.len() == ranked.len();
        candidates.sort_by(order);
        let kept: Vec<(f32, &str)> = candidates
            .into_iter()
            .filter(|(_, name)| keep(name))
            .take(limit)
            .collect();
        if kept.len() == limit || complete {
            return kept;
        }
        want = want.saturating_mul(4);
    }
}

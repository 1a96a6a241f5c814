//! Why a search ranked a skill where it did: each request word found in each field of
//! the skill, and the points it added (`skills search --explain`).

use super::terms::coverage_of;
use super::{NAMED_BONUS, SearchError, SkillIndex, clipped, first_word, plain};

/// One search result with what made its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The skill.
    pub name: String,
    /// Its score (the sum of the parts).
    pub score: f32,
    /// What made the score: `named` first when the request is the skill's name, then
    /// what each matched word added, most first, then `coverage`.
    pub matches: Vec<Match>,
}

/// One word of a request found in one field of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// `name`, `description` (the name's words and the description, tags and keywords),
    /// `instructions` (their opening), `coverage` (what holding several of the request's
    /// words adds: `word` says how many) or `named` (the request is the skill's name).
    pub field: &'static str,
    /// The word as the index holds it (lowercased; a stem where the request word was
    /// stemmed); the name itself for `named`.
    pub word: String,
    /// What it added to the score (a word found through another word for the same
    /// thing adds at half weight).
    pub points: f32,
}

impl SkillIndex {
    /// [`search`](Self::search), each result with the words that matched in each field
    /// and what each added.
    ///
    /// ```
    /// use skills_catalog::SkillIndex;
    /// use skills_core::SkillMetadata;
    ///
    /// let index = SkillIndex::build(&[SkillMetadata::new("pdf-forms", "Fill in PDF forms", "/p/SKILL.md")]);
    /// let explained = index.explain("fill a pdf form", 8)?;
    /// assert_eq!(explained[0].name, "pdf-forms");
    /// assert!(explained[0].matches.iter().any(|m| m.field == "name" && m.word == "pdf"));
    /// # Ok::<(), skills_catalog::SearchError>(())
    /// ```
    pub fn explain(&self, query: &str, limit: usize) -> Result<Vec<Explanation>, SearchError> {
        self.explain_where(query, limit, &|_| true)
    }

    /// [`explain`](Self::explain) among the skills `keep` accepts (by name).
    pub fn explain_where(
        &self,
        query: &str,
        limit: usize,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<Explanation>, SearchError> {
        let hits = self.search_where(query, limit, keep)?;
        let query = clipped(query);
        let mut words = foldhash::HashMap::default();
        let terms = self.query_terms(query, Some(&mut words));
        let skills = self.slots.len();
        let request = plain(query);
        let explained = hits
            .into_iter()
            .map(|hit| {
                let mut matches = Vec::new();
                if let Some(&slot) = self.slots.get(&hit.name) {
                    let mut found = 0u32;
                    for (field, index, weight) in self.fields() {
                        for term in &terms {
                            let Some(points) = index.points(term.id, slot, skills) else {
                                continue;
                            };
                            found |= term.words;
                            matches.push(Match {
                                field,
                                word: words.get(&term.id).cloned().unwrap_or_default(),
                                points: weight * term.weight * points,
                            });
                        }
                    }
                    matches.sort_by(|a, b| b.points.total_cmp(&a.points));
                    if found.count_ones() > 1 {
                        let counted: f32 = matches.iter().map(|m| m.points).sum();
                        matches.push(Match {
                            field: "coverage",
                            word: format!("{} words", found.count_ones()),
                            points: counted * (coverage_of(found) - 1.0),
                        });
                    }
                    let named = self.skills[slot as usize]
                        .as_ref()
                        .is_some_and(|s| first_word(&s.plain).is_some() && s.plain == request);
                    if named && hit.score >= NAMED_BONUS {
                        let part = Match {
                            field: "named",
                            word: hit.name.clone(),
                            points: NAMED_BONUS,
                        };
                        matches.insert(0, part);
                    }
                }
                Explanation {
                    name: hit.name,
                    score: hit.score,
                    matches,
                }
            })
            .collect();
        Ok(explained)
    }
}

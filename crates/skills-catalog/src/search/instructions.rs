//! The third field of the index: the opening of each skill's instructions, given to the
//! index skill by skill after it is built ([`SkillIndex::set_instructions`]).

use std::collections::HashSet;

use super::{Indexed, SkillIndex};

/// Characters of a skill's instructions (its `SKILL.md` after the frontmatter) the index
/// reads. Chosen on the search evaluation: 500 to 1,500 characters did about as well, the
/// whole text worse (its later sections are steps and code).
pub const INSTRUCTIONS_CHARS: usize = 1_000;
/// Distinct indexed words kept from those characters (a word and its stem count as
/// two): bounds the memory per skill, whatever the text's script (a Chinese text's
/// character pairs are nearly all distinct).
const INSTRUCTIONS_WORDS: usize = 64;
/// The instructions' length in indexed words that BM25 takes as average. Fixed, not
/// measured: the instructions arrive skill by skill, after the index is built, and a
/// skill's score must not depend on the order they arrived in.
pub(super) const INSTRUCTIONS_AVERAGE_WORDS: usize = 128;
/// What a match in the instructions weighs, against one in the description.
pub(super) const INSTRUCTIONS_WEIGHT: f32 = 0.5;

/// A skill whose instructions the index has not been given yet
/// ([`SkillIndex::unread_instructions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    /// The skill's name.
    pub(crate) name: String,
    /// The indexing they are for ([`SkillIndex::set_instruction_words`]).
    pub(crate) generation: u64,
}

/// The part of a skill's instructions the index reads: the first [`INSTRUCTIONS_CHARS`]
/// characters of `text` after its frontmatter.
pub(crate) fn opening(text: &str) -> &str {
    let body = skills_core::parse::split_frontmatter(text).map_or(text, |(_, body)| body);
    match body.char_indices().nth(INSTRUCTIONS_CHARS) {
        Some((end, _)) => &body[..end],
        None => body,
    }
}

impl Indexed {
    /// Marks the skill's instructions unread under a new generation (its words stay until
    /// new ones are given); whether they were read.
    pub(super) fn forget_instructions(&mut self) -> bool {
        self.generation = super::next_generation();
        std::mem::replace(&mut self.instructions, false)
    }
}

impl SkillIndex {
    /// Indexes the opening of the instructions of the skill `name`: `text`, its
    /// `SKILL.md` after the frontmatter (or the whole file: a frontmatter at its start
    /// is skipped), of which the first [`INSTRUCTIONS_CHARS`] characters are read.
    /// Replaces what the skill was given before; whether the index holds the skill.
    ///
    /// ```
    /// use skills_catalog::SkillIndex;
    /// use skills_core::SkillMetadata;
    ///
    /// let mut index = SkillIndex::build(&[
    ///     SkillMetadata::new("astropy", "Astronomy toolkit", "/s/astropy/SKILL.md"),
    ///     SkillMetadata::new("units", "Convert between units of measure", "/s/units/SKILL.md"),
    /// ]);
    /// assert_eq!(index.search("convert sky coordinates", 8)?[0].name, "units");
    /// index.set_instructions("astropy", "---\nname: astropy\n---\nConvert sky coordinates between frames.");
    /// assert_eq!(index.search("convert sky coordinates", 8)?[0].name, "astropy");
    /// # Ok::<(), skills_catalog::SearchError>(())
    /// ```
    pub fn set_instructions(&mut self, name: &str, text: &str) -> bool {
        let Some((_, skill)) = self.indexed(name) else {
            return false;
        };
        let generation = skill.generation;
        let words = self.instruction_words(text);
        self.set_instruction_words(name, generation, &words)
    }

    /// The slot and the entry of the skill `name`, if indexed.
    pub(super) fn indexed(&mut self, name: &str) -> Option<(u32, &mut Indexed)> {
        let slot = *self.slots.get(name)?;
        Some((slot, self.skills.get_mut(slot as usize)?.as_mut()?))
    }

    /// The indexed words of the opening of `text`, a skill's instructions (see
    /// [`set_instructions`](Self::set_instructions)): at most [`INSTRUCTIONS_WORDS`]
    /// distinct ones, in order, repeats kept.
    pub(crate) fn instruction_words(&self, text: &str) -> Vec<String> {
        let mut words = self.words.words(opening(text));
        let mut kept = HashSet::new();
        words.retain(|w| kept.contains(w) || (kept.len() < INSTRUCTIONS_WORDS && kept.insert(w.clone())));
        words
    }

    /// Indexes `words` ([`instruction_words`](Self::instruction_words)) as the
    /// instructions of the skill `name`, only if it is still the indexing `generation`
    /// (instructions read while a reload replaced the skill are dropped: the new
    /// skill's are read again); whether they were indexed.
    pub(crate) fn set_instruction_words(&mut self, name: &str, generation: u64, words: &[String]) -> bool {
        let Some((slot, skill)) = self.indexed(name).filter(|(_, skill)| skill.generation == generation) else {
            return false;
        };
        skill.said = super::patch::said_words(words);
        if !std::mem::replace(&mut skill.instructions, true) {
            self.unread -= 1;
        }
        self.instructions.remove(slot);
        self.instructions.upsert(slot, words);
        true
    }

    /// Marks the instructions of the skill `name` unread (its `SKILL.md` changed): its
    /// words stay until new ones are given, under a new generation, so that words read
    /// before the change are not taken for it. Whether the index holds the skill.
    pub(crate) fn forget_instructions(&mut self, name: &str) -> bool {
        let Some((_, skill)) = self.indexed(name) else {
            return false;
        };
        if skill.forget_instructions() {
            self.unread += 1;
        }
        true
    }

    /// The indexing generation of the skill `name` if the index holds it without its
    /// instructions.
    pub(crate) fn unread_generation(&self, name: &str) -> Option<u64> {
        let skill = self.skills.get(*self.slots.get(name)? as usize)?.as_ref()?;
        (!skill.instructions).then_some(skill.generation)
    }

    /// Whether every skill in the index was given its instructions.
    pub(crate) fn all_instructions_read(&self) -> bool {
        self.unread == 0
    }

    /// The skills whose instructions were not given yet, at most `limit`, in slot order.
    pub(crate) fn unread_instructions(&self, limit: usize) -> Vec<Unread> {
        self.skills
            .iter()
            .flatten()
            .filter(|skill| !skill.instructions)
            .take(limit)
            .map(|skill| Unread {
                name: skill.name.clone(),
                generation: skill.generation,
            })
            .collect()
    }
}

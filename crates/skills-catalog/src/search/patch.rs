//! A kept index brought to the library a start found ([`SkillIndex::patched`]): after an
//! edit, a start indexes the few skills that changed instead of the whole library again
//! (4 s at 40,000 skills), and answers exactly as an index built from scratch would.

use std::borrow::Borrow;

use skills_core::SkillMetadata;
use xxhash_rust::xxh3::Xxh3;

use super::SkillIndex;
use super::field::Field;
use super::text::{Words, tag_text};

/// A digest of what indexing `skill` reads ([`SkillIndex::upsert`]): its name, the
/// description with `when_to_use`, and its tags and keywords. Equal stamps, equal
/// entries.
pub(super) fn stamp(skill: &SkillMetadata) -> u64 {
    let mut digest = Xxh3::new();
    for part in [skill.name.as_str(), &skill.listing_description(), &tag_text(skill)] {
        digest.update(&(part.len() as u64).to_le_bytes());
        digest.update(part.as_bytes());
    }
    digest.digest()
}

/// A digest of a skill's instruction words, in order, as the persistent cache keeps
/// them: one per line (words hold no line breaks).
pub(super) fn said(lines: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(lines.as_bytes())
}

/// [`said`] of `words` joined by line breaks, without joining them.
pub(super) fn said_words(words: &[String]) -> u64 {
    let mut digest = Xxh3::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            digest.update(b"\n");
        }
        digest.update(word.as_bytes());
    }
    digest.digest()
}

/// A skill's length in indexed words in the name field and in the description field
/// (which holds the name's words too), as [`SkillIndex::upsert`] indexes them.
pub(super) fn lens(words: &Words, skill: &SkillMetadata) -> [usize; 2] {
    let name = words.words(&skill.name).len();
    [name, name + words.description_words(skill).len()]
}

impl SkillIndex {
    /// This index, built for an earlier library (one the persistent cache kept), brought
    /// to `skills`: each skill it holds under the same stamp (name, description, tags)
    /// stays as it is, its instructions marked unread (the file may have changed: they
    /// are given again, from the cache's words, at no cost when they are the same:
    /// [`give_cached_instructions`](Self::give_cached_instructions)); the others are
    /// indexed again or taken out. `None` when the result would not answer exactly as
    /// [`build`](Self::build) of `skills` does (the fields' average lengths, which weigh
    /// every skill's words, moved), or when most skills changed (building is as quick).
    pub(crate) fn patched<S: Borrow<SkillMetadata>>(mut self, skills: &[S]) -> Option<Self> {
        let mut kept = vec![false; self.skills.len()];
        let mut changed = Vec::new();
        let mut totals = [0usize; 2];
        let mut count = 0;
        for skill in skills.iter().map(Borrow::borrow).filter(|s| s.model_invocable()) {
            count += 1;
            let slot = self.slots.get(&skill.name).map(|&slot| slot as usize);
            let held = slot
                .and_then(|slot| self.skills.get(slot)?.as_ref())
                .filter(|held| held.stamp == stamp(skill));
            let found = match (slot, held) {
                (Some(slot), Some(held)) if !kept[slot] => {
                    kept[slot] = true;
                    held.lens.map(|len| len as usize)
                }
                _ => {
                    changed.push(skill);
                    lens(&self.words, skill)
                }
            };
            totals[0] += found[0];
            totals[1] += found[1];
        }
        let same = |field: &Field, words| Field::average(words, count).to_bits() == field.avgdl().to_bits();
        if changed.len() * 2 > count || !same(&self.names, totals[0]) || !same(&self.descriptions, totals[1]) {
            return None;
        }
        let gone: Vec<String> = self
            .slots
            .iter()
            .filter(|&(_, &slot)| !kept[slot as usize])
            .map(|(name, _)| name.clone())
            .collect();
        for name in &gone {
            self.remove(name);
        }
        // The instructions a kept skill holds were read from its file as it was: they
        // count until it is given them again, from the cache or from the file.
        for skill in self.skills.iter_mut().flatten() {
            if skill.forget_instructions() {
                self.unread += 1;
            }
        }
        for skill in changed {
            self.upsert(skill);
        }
        Some(self)
    }

    /// Gives the skill `name` the instruction words the persistent cache keeps for its
    /// file (`cached`, one per line), if it is still the indexing `generation`: when the
    /// skill holds these very words already (a kept skill of a patched index), they are
    /// only marked given. Whether the index took them.
    pub(crate) fn give_cached_instructions(&mut self, name: &str, generation: u64, cached: &str) -> bool {
        let Some((_, skill)) = self.indexed(name).filter(|(_, skill)| skill.generation == generation) else {
            return false;
        };
        if skill.said != 0 && skill.said == said(cached) {
            if !std::mem::replace(&mut skill.instructions, true) {
                self.unread -= 1;
            }
            return true;
        }
        let words: Vec<String> = cached.lines().map(str::to_owned).collect();
        self.set_instruction_words(name, generation, &words)
    }
}

#[cfg(test)]
mod tests {
    use skills_core::SkillMetadata;

    use super::SkillIndex;

    const TOPICS: [&str; 8] = [
        "zeppelins",
        "glaciers",
        "lanterns",
        "harbours",
        "orchards",
        "tunnels",
        "comets",
        "meadows",
    ];

    /// A library of skills whose descriptions and instructions run from short to long.
    fn library() -> Vec<(SkillMetadata, String)> {
        (0..40)
            .map(|i| {
                let topics: Vec<&str> = (0..1 + i % 5).map(|k| TOPICS[(i + k) % TOPICS.len()]).collect();
                let description = format!("Plans work about {}", topics.join(" and "));
                let body = format!("Steps for {} in order, checked twice.", TOPICS[(i * 3) % TOPICS.len()]);
                let name = format!("skill-{i}");
                (
                    SkillMetadata::new(&name, &description, format!("/s/{name}/SKILL.md")),
                    body,
                )
            })
            .collect()
    }

    /// The index of `skills`, each given its instructions.
    fn built(skills: &[(SkillMetadata, String)]) -> SkillIndex {
        let metadata: Vec<&SkillMetadata> = skills.iter().map(|(s, _)| s).collect();
        let mut index = SkillIndex::build(&metadata);
        for (skill, body) in skills {
            index.set_instructions(&skill.name, body);
        }
        index
    }

    /// What every word of the topics, alone and in pairs, finds: names and exact scores.
    fn answers(index: &SkillIndex) -> Vec<Vec<(String, u32)>> {
        let mut queries: Vec<String> = TOPICS.iter().map(|t| (*t).to_owned()).collect();
        queries.extend(TOPICS.windows(2).map(|w| w.join(" ")));
        queries.extend(["plans work", "steps in order", "skill 7", "airships", "checked"].map(str::to_owned));
        queries
            .iter()
            .map(|q| {
                let hits = index.search(q, 16).unwrap();
                hits.into_iter().map(|h| (h.name, h.score.to_bits())).collect()
            })
            .collect()
    }

    /// `kept` encoded and decoded, as the persistent cache keeps it.
    fn kept(index: &SkillIndex) -> SkillIndex {
        let bytes = index.encode();
        SkillIndex::decode(&mut bytes.as_slice(), bytes.len() as u64).unwrap()
    }

    #[test]
    fn a_patched_index_answers_exactly_as_one_built_from_scratch() {
        let old = library();
        let mut new = old.clone();
        // A description reworded at the same length, a body edited, a skill gone and
        // one added in its place with texts of the same lengths.
        new[3].0.description = new[3].0.description.replace("zeppelins", "airships");
        new[5].1 = "Steps for airships in order, checked twice.".to_owned();
        let gone = new.remove(9);
        let added = SkillMetadata::new(
            "skill-x",
            gone.0.description.replace("tunnels", "airships"),
            "/s/x/SKILL.md",
        );
        new.push((added, gone.1));

        let metadata: Vec<&SkillMetadata> = new.iter().map(|(s, _)| s).collect();
        let mut patched = kept(&built(&old))
            .patched(&metadata)
            .expect("the averages did not move");
        // The instructions as a start gives them: the words kept for each file as it is.
        for unread in patched.unread_instructions(usize::MAX) {
            let body = &new.iter().find(|(s, _)| s.name == unread.name).unwrap().1;
            let words = patched.instruction_words(body).join("\n");
            assert!(patched.give_cached_instructions(&unread.name, unread.generation, &words));
        }
        assert!(patched.all_instructions_read());
        let fresh = built(&new);
        assert_eq!(answers(&patched), answers(&fresh));
        assert_eq!(patched.len(), fresh.len());
        assert!(
            patched
                .search("airships", 16)
                .unwrap()
                .iter()
                .any(|h| h.name == "skill-5")
        );
        assert!(
            !patched
                .search("plans tunnels", 16)
                .unwrap()
                .iter()
                .any(|h| h.name == "skill-9")
        );
    }

    #[test]
    fn the_digest_of_words_is_the_digest_of_their_lines() {
        for words in [&[][..], &["pdf"], &["fill", "pdf", "form", "forms"]] {
            let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            assert_eq!(super::said_words(&words), super::said(&words.join("\n")), "{words:?}");
        }
    }

    #[test]
    fn an_index_whose_averages_would_move_or_whose_library_is_mostly_new_is_built_again() {
        let old = library();
        let index = kept(&built(&old));
        let mut longer = old.clone();
        longer[0].0.description.push_str(" and comets");
        let metadata: Vec<&SkillMetadata> = longer.iter().map(|(s, _)| s).collect();
        assert!(kept(&index).patched(&metadata).is_none(), "a longer description");
        let renamed: Vec<SkillMetadata> = old
            .iter()
            .map(|(s, _)| SkillMetadata::new(format!("{}-v2", s.name), &s.description, &s.path))
            .collect();
        assert!(index.patched(&renamed).is_none(), "every skill is new");
    }
}

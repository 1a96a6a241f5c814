//! A [`SkillIndex`] in bytes, for the persistent cache: a warm start takes the index of
//! the library as the last process left it instead of building it again (most of a first
//! search's wait on a large library: tens of microseconds per skill).

use super::HashMap;

use super::bytes::{In, Out};
use super::field::Field;
use super::vocabulary::Vocabulary;
use super::{Indexed, SkillIndex, next_generation};
use crate::search::text::Words;

impl SkillIndex {
    /// The index in bytes, for [`decode`](Self::decode).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Out::default();
        out.len(self.skills.len());
        for skill in &self.skills {
            match skill {
                Some(skill) => {
                    out.u32(1 + u32::from(skill.instructions));
                    out.str(&skill.name);
                    out.str(&skill.plain);
                    out.u32s(&skill.words);
                    out.u64(skill.stamp);
                    out.u32(skill.lens[0]);
                    out.u32(skill.lens[1]);
                    out.u64(skill.said);
                }
                None => out.u32(0),
            }
        }
        out.u32s(&self.free);
        out.len(self.first_words.len());
        for (word, slots) in &self.first_words {
            out.str(word);
            out.u32s(slots);
        }
        for field in [&self.names, &self.descriptions, &self.instructions] {
            field.encode(&mut out);
        }
        self.vocabulary.encode(&mut out);
        out.0
    }

    /// The index [`encode`](Self::encode) wrote in the next `len` bytes of `source`, read
    /// through a window, each skill with a new generation; `None` unless they hold such
    /// an index, whole.
    pub(crate) fn decode(source: &mut dyn std::io::Read, len: u64) -> Option<Self> {
        let mut input = In::new(source, len);
        let count = input.count(4)?;
        let mut skills = Vec::with_capacity(count);
        let mut slots = HashMap::with_capacity_and_hasher(count, Default::default());
        let mut unread = 0;
        for slot in 0..count {
            let skill = match input.u32()? {
                0 => None,
                state @ (1 | 2) => {
                    let name = input.string()?;
                    let plain = input.string()?;
                    let words = input.u32s()?.into_boxed_slice();
                    let stamp = input.u64()?;
                    let lens = [input.u32()?, input.u32()?];
                    let said = input.u64()?;
                    let instructions = state == 2;
                    unread += usize::from(!instructions);
                    slots.insert(name.clone(), slot as u32);
                    Some(Indexed {
                        name,
                        plain,
                        words,
                        generation: next_generation(),
                        instructions,
                        stamp,
                        lens,
                        said,
                    })
                }
                _ => return None,
            };
            skills.push(skill);
        }
        let free = input.u32s()?;
        let count = input.count(8)?;
        let mut first_words = HashMap::with_capacity_and_hasher(count, Default::default());
        for _ in 0..count {
            let word = input.string()?;
            first_words.insert(word, input.u32s()?);
        }
        let names = Field::decode(&mut input)?;
        let descriptions = Field::decode(&mut input)?;
        let instructions = Field::decode(&mut input)?;
        let vocabulary = Vocabulary::decode(&mut input)?;
        (input.left() == 0).then(|| Self {
            words: Words::default(),
            slots,
            skills,
            free,
            first_words,
            names,
            descriptions,
            instructions,
            vocabulary,
            unread,
        })
    }
}

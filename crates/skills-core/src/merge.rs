//! Last-wins merge of several sources.

use std::borrow::Borrow;

use crate::name_index::NameIndex;

use crate::skill::SkillMetadata;

/// A skill after merging sources, with the copies it hides. `S` is how the skill is
/// held: itself, or shared (`Arc<SkillMetadata>`) by whoever keeps several versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedSkill<S = SkillMetadata> {
    /// The winning skill.
    pub skill: S,
    /// Index of the source it comes from.
    pub source: usize,
    /// Copies from earlier sources that this one hides, earliest first.
    pub shadowed: Vec<ShadowedSkill>,
}

/// A copy of a skill hidden by a later source's skill of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShadowedSkill {
    /// Index of the source it comes from.
    pub source: usize,
    /// Its `SKILL.md` path.
    pub path: String,
}

/// Merges sources given in priority order: for one name, the skill of the latest source
/// wins ("last wins"). A skill keeps the position where its name first appeared, as a
/// Python dict update would, so the order of a single source is kept.
///
/// ```
/// use skills_core::{merge_last_wins, SkillMetadata};
/// # fn skill(name: &str, path: &str) -> SkillMetadata {
/// #     SkillMetadata::new(name, "d", path)
/// # }
/// let base = vec![skill("web", "/base/web/SKILL.md"), skill("pdf", "/base/pdf/SKILL.md")];
/// let project = vec![skill("web", "/project/web/SKILL.md")];
/// let merged = merge_last_wins([base, project]);
/// assert_eq!(merged[0].skill.path, "/project/web/SKILL.md");
/// assert_eq!(merged[0].shadowed[0].path, "/base/web/SKILL.md");
/// assert_eq!(merged[1].source, 0);
/// ```
pub fn merge_last_wins<S: Borrow<SkillMetadata>>(sources: impl IntoIterator<Item = Vec<S>>) -> Vec<MergedSkill<S>> {
    merge_last_wins_indexed(sources).0
}

/// [`merge_last_wins`], with the index by name of the merged skills (their positions in
/// the list) that the merge builds anyway, for a caller that finds them by name too: a
/// second index of 40,000 names took 16 ms of a warm start.
///
/// ```
/// use skills_core::{merge_last_wins_indexed, SkillMetadata};
/// let base = vec![SkillMetadata::new("web", "d", "/base/web/SKILL.md")];
/// let project = vec![SkillMetadata::new("pdf", "d", "/project/pdf/SKILL.md")];
/// let (merged, index) = merge_last_wins_indexed([base, project]);
/// assert_eq!(index.get("pdf", |i| merged[i].skill.name.as_str()), Some(1));
/// ```
pub fn merge_last_wins_indexed<S: Borrow<SkillMetadata>>(
    sources: impl IntoIterator<Item = Vec<S>>,
) -> (Vec<MergedSkill<S>>, NameIndex) {
    let sources: Vec<Vec<S>> = sources.into_iter().collect();
    // Exact: a library of 100,000 skills would otherwise hold up to twice their size.
    let total = sources.iter().map(Vec::len).sum();
    let mut merged: Vec<MergedSkill<S>> = Vec::with_capacity(total);
    let mut index = NameIndex::with_capacity(total);
    for (source, skills) in sources.into_iter().enumerate() {
        for skill in skills {
            match index.get(&skill.borrow().name, |i| merged[i].skill.borrow().name.as_str()) {
                Some(i) => {
                    let slot = &mut merged[i];
                    let hidden = std::mem::replace(&mut slot.skill, skill);
                    slot.shadowed.push(ShadowedSkill {
                        source: slot.source,
                        path: hidden.borrow().path.clone(),
                    });
                    slot.source = source;
                }
                None => {
                    merged.push(MergedSkill {
                        skill,
                        source,
                        shadowed: Vec::new(),
                    });
                    index.insert(merged.len() - 1, |i| merged[i].skill.borrow().name.as_str());
                }
            }
        }
    }
    (merged, index)
}

//! A skill's compact entry: its name and the first clause of its description, on one
//! line, cut near [`COMPACT_CHARS`].

use skills_core::SkillMetadata;

use crate::escape::{MAX_PROMPT_FIELD_CHARS, escape_untrusted};

/// Characters a compact entry keeps of a description, about.
pub const COMPACT_CHARS: usize = 80;

/// A skill as one escaped line, `- **name**: first clause` of its description cut near
/// [`COMPACT_CHARS`]: a budgeted list's compact form, and the MCP server's instructions.
pub fn short_entry(skill: &SkillMetadata) -> String {
    let name = escape_untrusted(&skill.name, MAX_PROMPT_FIELD_CHARS);
    let clause = escape_untrusted(&first_clause(&skill.description), MAX_PROMPT_FIELD_CHARS);
    // Joined at once, not `format!`: a list's entry costs are this for every skill.
    ["- **", &name, "**: ", &clause].concat()
}

/// The description's words joined by single spaces up to its first `.`, `;`, `:`, `!`
/// or `?` (not its first character), cut at the last word boundary within
/// [`COMPACT_CHARS`] characters (and said to be cut) when longer. Reads no further into
/// the description than that takes: a list's entry costs are this for every skill.
fn first_clause(description: &str) -> String {
    // Room for the longest clause kept whole and the word that goes past it, at once.
    let mut clause = String::with_capacity(description.len().min(2 * COMPACT_CHARS));
    let mut chars = 0;
    for word in description.split_whitespace() {
        // A stop ends the clause, except as its very first character.
        let from = if clause.is_empty() {
            word.chars().next().map_or(0, char::len_utf8)
        } else {
            clause.push(' ');
            chars += 1;
            0
        };
        let stop = word[from..].find(['.', ';', ':', '!', '?']).map(|at| from + at);
        let part = &word[..stop.unwrap_or(word.len())];
        clause.push_str(part);
        chars += part.chars().count();
        // Longer than a compact entry keeps: the rest cannot change the cut.
        if stop.is_some() || chars > COMPACT_CHARS {
            break;
        }
    }
    if chars <= COMPACT_CHARS {
        return clause;
    }
    let cut: String = clause.chars().take(COMPACT_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Random;

    /// The first clause as the whole description normalized first gives it.
    fn whole_then_cut(description: &str) -> String {
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        let end = description
            .char_indices()
            .find(|&(i, c)| i > 0 && matches!(c, '.' | ';' | ':' | '!' | '?'))
            .map_or(description.len(), |(i, _)| i);
        let clause = &description[..end];
        if clause.chars().count() <= COMPACT_CHARS {
            return clause.to_owned();
        }
        let cut: String = clause.chars().take(COMPACT_CHARS).collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        format!("{cut}...")
    }

    #[test]
    fn the_first_clause_is_what_the_whole_description_normalized_gives() {
        let mut cases: Vec<String> = [
            "",
            "   ",
            ".",
            ". Starts with a stop",
            "Fills PDF forms. Then more.",
            "no stop at all in this one",
            "Deploys: to staging; then prod",
            "  spaced \t out \n words . and a stop",
            "word .stop after a space",
            "Ünïcödé wörds — and 漢字 text。 then: more",
            "An emoji 🚀 launch! yes",
        ]
        .map(str::to_owned)
        .to_vec();
        // Around the cut: a stop, a space or a word boundary at each place near it.
        for at in COMPACT_CHARS - 3..COMPACT_CHARS + 4 {
            for tail in [".", " .", " x", "x.", ": y", "  z", "é.", "漢"] {
                cases.push(format!("{}{tail} and the rest of it.", "a".repeat(at)));
                cases.push(format!("{}{tail} more", "ab ".repeat(at / 3) + &"c".repeat(at % 3)));
            }
        }
        // Seeded pseudo-random texts of words, spaces and stops.
        let pieces = [
            "alpha",
            "β",
            "漢字",
            " ",
            "  ",
            "\n",
            ".",
            ":",
            "!",
            "x.y",
            "-",
            "toolongwordtoolongword",
        ];
        let mut random = Random(2026_1128);
        cases.extend((0..3_000).map(|_| random.text(&pieces, 60)));
        for case in &cases {
            assert_eq!(first_clause(case), whole_then_cut(case), "{case:?}");
        }
    }
}

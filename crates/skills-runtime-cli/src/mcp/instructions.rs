//! The server's `instructions`, written to be cut anywhere: clients keep only their
//! opening (Claude Code the first 4,096 characters, 2,048 before its version 2.1.296).
//! First one short paragraph (what the server offers, how many skills, which tool finds
//! and which loads them), then one line per skill, most relevant first (the ranking of
//! the budgeted prompt: pinned, most used, later source), as many as the budget holds,
//! then how many were left out. A cut never leaves half an entry that could read as
//! another skill: every entry is one line.

use skills_runtime::{CatalogSnapshot, PromptSection, short_entry};

/// The instructions for `snapshot`, at most `budget` characters; `tools_only` skills
/// have names no `skill://` URI can hold (they are reached through the tools).
pub(super) fn render(snapshot: &CatalogSnapshot, section: &PromptSection, tools_only: usize, budget: usize) -> String {
    let ranked = section.ranked(snapshot);
    let mut out = opening(ranked.len(), tools_only);
    let mut used = out.chars().count();
    if used > budget {
        return out.chars().take(budget).collect();
    }
    let rest = |left: usize| format!("\n- ({left} more: search_skills finds them)");
    let mut shown = 0;
    for skill in &ranked {
        let line = short_entry(skill);
        let left_after = ranked.len() - shown - 1;
        // Room for this line, and for the closing count if skills would be left out.
        let closing = if left_after > 0 {
            rest(left_after).chars().count()
        } else {
            0
        };
        let cost = 1 + line.chars().count();
        if used + cost + closing > budget {
            break;
        }
        out.push('\n');
        out.push_str(&line);
        used += cost;
        shown += 1;
    }
    if shown < ranked.len() {
        let closing = rest(ranked.len() - shown);
        if used + closing.chars().count() <= budget {
            out.push_str(&closing);
        }
    }
    out
}

/// The paragraph every client keeps: a few hundred characters.
fn opening(count: usize, tools_only: usize) -> String {
    if count == 0 {
        return "This server serves Agent Skills, and its library has no skill the model may use yet; \
                search_skills(query) and list_skills will show skills as they are added."
            .to_owned();
    }
    let skills = if count == 1 {
        "1 skill"
    } else {
        &format!("{count} skills")
    };
    let tools_only = match tools_only {
        0 => String::new(),
        1 => " (1 of them only through these tools: its name is not a valid skill name)".to_owned(),
        n => format!(" ({n} of them only through these tools: their names are not valid skill names)"),
    };
    format!(
        "This server serves {skills}{tools_only}: folders of instructions (SKILL.md) with scripts, references \
         and assets. search_skills(query) finds any of them by what it does; load_skill(name) loads one's \
         instructions, to read before following it; read_skill_resource(name, path) reads one of its files; \
         list_skills lists them. Skills a person runs by hand are prompts (slash commands). Skill files are \
         data from the library's authors: this server never runs them. Skills, most relevant first:"
    )
}

#[cfg(test)]
mod tests {
    use super::opening;

    #[test]
    fn the_opening_paragraph_fits_the_oldest_cut_with_room_for_skills() {
        for (count, tools_only) in [(0, 0), (1, 0), (60, 0), (40_304, 2_826)] {
            let text = opening(count, tools_only);
            assert!(
                text.chars().count() < 700,
                "{count}: {} characters",
                text.chars().count()
            );
        }
        assert!(opening(3_000, 0).contains("3000 skills") && opening(3_000, 0).contains("search_skills"));
        assert!(opening(5, 2).contains("2 of them only through these tools"));
    }
}

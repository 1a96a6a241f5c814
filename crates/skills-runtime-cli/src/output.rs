//! Text output helpers.

use skills_runtime::{Diagnostic, DiagnosticKind, Limit, Severity};
use std::io::Write;

/// Cuts `text` to at most `max` characters on one line, marking a cut with `...`.
pub fn shorten(text: &str, max: usize) -> String {
    // Only the words that can show are joined: a table of thousands of skills shortens
    // each description, most of them far longer than a column. The cut is made in the
    // one string built, at the byte where its last kept character ends.
    let mut one_line = String::with_capacity(text.len().min(max.saturating_mul(4).saturating_add(4)));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > max {
            break;
        }
        if chars > 0 {
            one_line.push(' ');
            chars += 1;
        }
        one_line.push_str(word);
        chars += word.chars().count();
    }
    if chars <= max {
        return one_line;
    }
    let end = one_line
        .char_indices()
        .nth(max.saturating_sub(3))
        .map_or(one_line.len(), |(at, _)| at);
    one_line.truncate(end);
    one_line.truncate(one_line.trim_end().len());
    one_line.push_str("...");
    one_line
}

/// Characters of `text` as a terminal column counts them (one per `char`).
fn width(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// Writes rows as left-aligned columns separated by two spaces, making each row twice
/// (once to size the columns, once to write it) instead of holding them all: a table of
/// 100,000 skills costs the memory of one row. A cell is anything that reads as text, so
/// a row can borrow what it shows.
pub fn write_table<I, C>(out: &mut impl Write, header: &[&str], rows: impl Fn() -> I) -> std::io::Result<()>
where
    I: Iterator<Item = Vec<C>>,
    C: AsRef<str>,
{
    const SPACES: &str = "                                                                ";
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in rows() {
        for (w, cell) in widths.iter_mut().zip(&row) {
            *w = (*w).max(width(cell.as_ref()));
        }
    }
    let mut line = String::new();
    let mut write_row = |cells: &mut dyn Iterator<Item = &str>, count: usize| {
        line.clear();
        for (i, (cell, column)) in cells.zip(&widths).enumerate() {
            line.push_str(cell);
            if i + 1 < count {
                let mut pad = column.saturating_sub(width(cell)) + 2;
                while pad > 0 {
                    let step = pad.min(SPACES.len());
                    line.push_str(&SPACES[..step]);
                    pad -= step;
                }
            }
        }
        writeln!(out, "{}", line.trim_end())
    };
    write_row(&mut header.iter().copied(), header.len())?;
    for row in rows() {
        write_row(&mut row.iter().map(AsRef::as_ref), row.len())?;
    }
    Ok(())
}

/// Warnings of one kind printed before the rest are counted in one line: a real library
/// can carry tens of thousands of `name-mismatch` warnings, and every command printing
/// them all would bury what matters (`skills validate` lists every one).
const WARNINGS_PER_KIND: usize = 20;

/// Prints diagnostics to stderr, prefixed by their severity: every skip and error, and
/// [`WARNINGS_PER_KIND`] warnings of each kind with a count of the rest. A limit's cut is
/// left out: the command said it already, in the command line's words ([`cut_line`]).
pub fn print_diagnostics(diagnostics: &[Diagnostic]) {
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    // Warnings seen, by kind.
    let mut warnings: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for d in diagnostics.iter().filter(|d| d.cut.is_none()) {
        let prefix = match d.severity() {
            Severity::Warning => "warning",
            Severity::Skip => "skipped",
            Severity::Error => "error",
        };
        if d.severity() == Severity::Warning {
            let count = warnings.entry(d.kind.as_str()).or_default();
            *count += 1;
            if *count > WARNINGS_PER_KIND {
                continue;
            }
        }
        // A closed stderr is no reason to stop the command.
        let _ = if d.kind == DiagnosticKind::DeeperSkills {
            writeln!(
                err,
                "{prefix}: {d} (--depth N, or depth = N on the source in skills.toml)"
            )
        } else {
            writeln!(err, "{prefix}: {d}")
        };
    }
    for (kind, count) in warnings.into_iter().filter(|&(_, n)| n > WARNINGS_PER_KIND) {
        let more = count - WARNINGS_PER_KIND;
        let _ = writeln!(
            err,
            "warning: {more} more {kind} warnings not shown (`skills validate` lists every one)"
        );
    }
    let _ = err.flush();
}

/// The line a limit's cut gets on stderr, in the words of the command line; `None` for
/// other diagnostics.
pub fn cut_line(diagnostic: &Diagnostic) -> Option<String> {
    let cut = diagnostic.cut?;
    let what = match cut.limit {
        Limit::MaxSkills => format!(
            "{} has more than {} skill folders; {} were not read",
            diagnostic.path, cut.max, cut.left_out
        ),
        Limit::MaxDirEntries => format!(
            "{} has more than {} entries; {} were left out",
            diagnostic.path, cut.max, cut.left_out
        ),
        Limit::MaxBytes => format!(
            "the SKILL.md files of {} exceed {} bytes; {} skill folders were not read",
            diagnostic.path, cut.max, cut.left_out
        ),
    };
    let limit = cut.limit.as_str();
    Some(format!(
        "error: skills left out: {what}. Raise the limit with --{limit} N or `{limit} = N` under [limits] in \
         skills.toml, or pass --allow-partial to accept what fits"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_keeps_short_text_and_cuts_long_text() {
        assert_eq!(shorten("a  b\nc", 10), "a b c");
        assert_eq!(shorten("abcdefghijkl", 8), "abcde...");
        assert_eq!(shorten(&"\u{e9}".repeat(20), 5), "\u{e9}\u{e9}...");
        // Against the plain definition (all words joined, then cut), at every length
        // around the words' edges.
        let plain = |text: &str, max: usize| {
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if one_line.chars().count() <= max {
                return one_line;
            }
            let kept: String = one_line.chars().take(max.saturating_sub(3)).collect();
            format!("{}...", kept.trim_end())
        };
        for text in [
            "ab cd",
            "ab cd e",
            "  lead  and\ttrail  ",
            "\u{e9}t\u{e9} \u{e0} la plage",
            "one",
            "",
        ] {
            for max in 0..24 {
                assert_eq!(shorten(text, max), plain(text, max), "{text:?} at {max}");
            }
        }
    }

    #[test]
    fn table_aligns_columns() {
        let rows: [Vec<String>; 2] = [
            vec!["a".into(), "long".into(), "x".into()],
            vec!["bbb".into(), "s".into(), "y".into()],
        ];
        let mut out = Vec::new();
        write_table(&mut out, &["N", "D", "S"], || rows.iter().cloned()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "N    D     S\na    long  x\nbbb  s     y\n"
        );
        // A column wider than one run of padding, and cells that borrow.
        let wide = "w".repeat(100);
        let rows = [vec!["a", wide.as_str(), "x"], vec!["\u{e9}t\u{e9}", "s", "y"]];
        let mut out = Vec::new();
        write_table(&mut out, &["N", "D", "S"], || rows.iter().cloned()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("N    D{}S", " ".repeat(101)));
        assert_eq!(lines[1], format!("a    {wide}  x"));
        assert_eq!(lines[2], format!("\u{e9}t\u{e9}  s{}y", " ".repeat(101)));
    }
}

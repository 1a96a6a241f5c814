//! Text output helpers.

use agent_skills::{Diagnostic, Severity};

/// Cuts `text` to at most `max` characters on one line, marking a cut with `...`.
pub fn shorten(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let kept: String = one_line.chars().take(max.saturating_sub(3)).collect();
    format!("{}...", kept.trim_end())
}

/// Renders rows as left-aligned columns separated by two spaces.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Prints diagnostics to stderr, prefixed by their severity.
pub fn print_diagnostics(diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        let prefix = match d.severity() {
            Severity::Warning => "warning",
            Severity::Skip => "skipped",
            Severity::Error => "error",
        };
        if d.kind == agent_skills::DiagnosticKind::DeeperSkills {
            eprintln!("{prefix}: {d} (--depth N, or depth = N on the source in skills.toml)");
        } else {
            eprintln!("{prefix}: {d}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_keeps_short_text_and_cuts_long_text() {
        assert_eq!(shorten("a  b\nc", 10), "a b c");
        assert_eq!(shorten("abcdefghijkl", 8), "abcde...");
        assert_eq!(shorten(&"\u{e9}".repeat(20), 5), "\u{e9}\u{e9}...");
    }

    #[test]
    fn table_aligns_columns() {
        let rows = vec![
            vec!["a".into(), "long".into(), "x".into()],
            vec!["bbb".into(), "s".into(), "y".into()],
        ];
        assert_eq!(
            table(&["N", "D", "S"], &rows),
            "N    D     S\na    long  x\nbbb  s     y\n"
        );
    }
}

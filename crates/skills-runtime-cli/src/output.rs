//! Text output helpers.

use skills_runtime::{Diagnostic, DiagnosticKind, Limit, Severity};
use std::io::Write;

/// Cuts `text` to at most `max` columns of a terminal on one line, marking a cut with
/// `...`.
pub fn shorten(text: &str, max: usize) -> String {
    // Runs of whitespace read as one space, and only what can show is read: a table of
    // thousands of skills shortens each description, most far longer than a column, some
    // one long run of text without a space (splitting those at whitespace read them
    // whole: a twelfth of a warm `skills list` of AgentWorkers). Lengths are a
    // terminal's columns: a Chinese or Japanese character takes two.
    let mut one_line = String::with_capacity(text.len().min(max.saturating_mul(4).saturating_add(8)));
    let mut columns = 0;
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() {
            gap = columns > 0;
            continue;
        }
        if gap {
            one_line.push(' ');
            columns += 1;
            gap = false;
        }
        one_line.push(c);
        columns += char_width(c);
        if columns > max {
            break;
        }
    }
    if columns <= max {
        return one_line;
    }
    let room = max.saturating_sub(3);
    let mut used = 0;
    let end = one_line
        .char_indices()
        .find(|&(_, c)| {
            used += char_width(c);
            used > room
        })
        .map_or(one_line.len(), |(at, _)| at);
    one_line.truncate(end);
    one_line.truncate(one_line.trim_end().len());
    one_line.push_str("...");
    one_line
}

/// The columns `c` takes on a terminal (one for a control character, which is shown as
/// an escape).
fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(1)
}

/// The columns `text` takes on a terminal.
fn width(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        unicode_width::UnicodeWidthStr::width(text)
    }
}

/// Rows or items formatted by each thread of [`write_in_batches`] at a time.
pub const BATCH: usize = 256;

/// Writes `batches` pieces of text to `out` in order, `format(b, text)` appending batch
/// `b` to an empty `text`, on two threads: one helper formats every other batch for the
/// whole output while this thread formats the rest and writes (a thread started for each
/// pair of batches was 26 thread starts for 13,209 skills). Each thread keeps its buffers
/// from batch to batch: fresh ones cost a page fault for every 4 KiB of text. It stops at
/// the first error, of either thread or of the write.
pub fn write_in_batches<E>(
    out: &mut impl Write,
    batches: usize,
    format: impl Fn(usize, &mut Vec<u8>) -> Result<(), E> + Sync,
) -> anyhow::Result<()>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let format = |batch: usize, text: &mut Vec<u8>| {
        text.clear();
        format(batch, text)
    };
    let mut mine = Vec::new();
    if batches < 2 {
        // No helper for a single batch.
        for batch in 0..batches {
            format(batch, &mut mine)?;
            out.write_all(&mine)?;
        }
        return Ok(());
    }
    // The helper formats the odd batches into buffers this thread hands back once
    // written; it stops at its first error, or when this thread stops taking.
    let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<Result<Vec<u8>, E>>(1);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let format = &format;
    std::thread::scope(|scope| {
        let helper = scope.spawn(move || {
            for batch in (1..batches).step_by(2) {
                let mut text = spare_rx.try_recv().unwrap_or_default();
                let formatted = format(batch, &mut text).map(|()| text);
                let failed = formatted.is_err();
                if done_tx.send(formatted).is_err() || failed {
                    return;
                }
            }
        });
        let mut write = || -> anyhow::Result<()> {
            for batch in (0..batches).step_by(2) {
                format(batch, &mut mine)?;
                out.write_all(&mine)?;
                if batch + 1 < batches {
                    let Ok(odd) = done_rx.recv() else {
                        anyhow::bail!("a thread formatting the output failed");
                    };
                    let odd = odd?;
                    out.write_all(&odd)?;
                    let _ = spare_tx.send(odd);
                }
            }
            Ok(())
        };
        let written = write();
        // Unblocks a helper still formatting ahead after a failed write.
        drop(done_rx);
        match helper.join() {
            Ok(()) => written,
            Err(_) => Err(anyhow::anyhow!("a thread formatting the output failed")),
        }
    })
}

/// Writes `n` rows, `row(i)` making row `i`, as left-aligned columns separated by two
/// spaces under `header`. Each row is made twice (once to size the columns, once to
/// write it) instead of all being held: a table of 100,000 skills costs the memory of a
/// few batches of rows. The rows are written on two threads ([`write_in_batches`]). A
/// cell is anything that reads as text, so a row can borrow what it shows.
pub fn write_table<C>(
    out: &mut impl Write,
    header: &[&str],
    n: usize,
    row: impl Fn(usize) -> Vec<C> + Sync,
) -> anyhow::Result<()>
where
    C: AsRef<str>,
{
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for i in 0..n {
        for (w, cell) in widths.iter_mut().zip(&row(i)) {
            *w = (*w).max(width(&crate::terminal::visible(cell.as_ref())));
        }
    }
    let mut first = Vec::new();
    write_line(header, &widths, &mut first);
    out.write_all(&first)?;
    write_in_batches(out, n.div_ceil(BATCH), |batch, text| -> std::io::Result<()> {
        for i in batch * BATCH..((batch + 1) * BATCH).min(n) {
            write_line(&row(i), &widths, text);
        }
        Ok(())
    })
}

/// One line of [`write_table`]: each cell padded to its column's width and two spaces,
/// the line ending where its text does (after the last cell that is more than
/// whitespace, without that cell's own trailing whitespace).
fn write_line<C: AsRef<str>>(cells: &[C], widths: &[usize], text: &mut Vec<u8>) {
    let cells = &cells[..cells.len().min(widths.len())];
    if let Some(last) = cells.iter().rposition(|cell| !cell.as_ref().trim_end().is_empty()) {
        for (cell, column) in cells[..last].iter().zip(widths) {
            let cell = crate::terminal::visible(cell.as_ref());
            text.extend_from_slice(cell.as_bytes());
            text.resize(text.len() + column.saturating_sub(width(&cell)) + 2, b' ');
        }
        let cell = crate::terminal::visible(cells[last].as_ref().trim_end());
        text.extend_from_slice(cell.as_bytes());
    }
    text.push(b'\n');
}

/// [`print_diagnostics`] for a command about one skill or one request (`load`,
/// `search`): every error, and what is said of the skill folders in `about`, in full;
/// what is said of the rest of the library in one line that counts it (on a real
/// library, hundreds of lines that would bury the answer; `skills validate` lists them).
pub fn print_diagnostics_about(diagnostics: &[Diagnostic], about: &[&str]) {
    print_diagnostics_where(diagnostics, |d| {
        d.severity() == Severity::Error || about.iter().any(|dir| skills_runtime::path::is_within(&d.path, dir))
    });
}

/// Whether `d` says something a user installing the skills `asked` (by name) of a source
/// needs: an error, a hint about the source as a whole, or what is said of a folder of
/// one of those names (a skill asked for and skipped).
pub fn about_asked(d: &Diagnostic, asked: &[String]) -> bool {
    use skills_runtime::path;
    let folder = path::file_name(path::parent(&d.path));
    d.severity() == Severity::Error
        || matches!(
            d.kind,
            DiagnosticKind::DeeperSkills | DiagnosticKind::SourceIsASkill | DiagnosticKind::HiddenSkills
        )
        || asked.iter().any(|name| folder == name)
}

/// Prints the diagnostics `shown` accepts ([`print_diagnostics`]), and the rest as one
/// line that counts them.
pub fn print_diagnostics_where<'a>(
    diagnostics: impl IntoIterator<Item = &'a Diagnostic>,
    shown: impl Fn(&Diagnostic) -> bool,
) {
    let (shown, rest): (Vec<&Diagnostic>, Vec<&Diagnostic>) = diagnostics
        .into_iter()
        .filter(|d| d.cut.is_none())
        .partition(|d| shown(d));
    print_diagnostics(shown);
    let skipped = rest.iter().filter(|d| d.severity() == Severity::Skip).count();
    let warnings = rest.len() - skipped;
    let counted = |n: usize, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        counted(skipped, "skipped skill", "skipped skills"),
        counted(warnings, "warning", "warnings"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !parts.is_empty() {
        let mut err = std::io::stderr().lock();
        // A closed stderr is no reason to stop the command.
        let _ = writeln!(
            err,
            "warning: {} in the library not shown (`skills validate` lists them)",
            parts.join(" and ")
        );
    }
}

/// Warnings, and skipped skills, of one kind printed before the rest are counted in one
/// line: a real library can carry tens of thousands of `name-mismatch` warnings and
/// thousands of files without frontmatter (AgentWorkers/skills: 2,299 skipped), and
/// every command printing them all would bury what matters (`skills validate` lists
/// every one).
const SHOWN_PER_KIND: usize = 20;

/// Prints diagnostics to stderr, prefixed by their severity: every error, and
/// [`SHOWN_PER_KIND`] warnings and skips of each kind with a count of the rest. A limit's
/// cut is left out: the command said it already, in the command line's words
/// ([`cut_line`]).
pub fn print_diagnostics<'a>(diagnostics: impl IntoIterator<Item = &'a Diagnostic>) {
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    write_diagnostics(&mut err, diagnostics);
    let _ = err.flush();
}

/// What [`print_diagnostics`] prints, written to `err`.
pub fn write_diagnostics<'a>(err: &mut impl Write, diagnostics: impl IntoIterator<Item = &'a Diagnostic>) {
    // Warnings and skips seen, by kind.
    let mut seen: std::collections::BTreeMap<&str, (DiagnosticKind, usize)> = std::collections::BTreeMap::new();
    for d in diagnostics.into_iter().filter(|d| d.cut.is_none()) {
        let prefix = match d.severity() {
            Severity::Warning => "warning",
            Severity::Skip => "skipped",
            Severity::Error => "error",
        };
        if d.severity() != Severity::Error {
            let (_, count) = seen.entry(d.kind.as_str()).or_insert((d.kind, 0));
            *count += 1;
            if *count > SHOWN_PER_KIND {
                continue;
            }
        }
        let hint = match d.kind {
            DiagnosticKind::DeeperSkills => " (--depth N, or depth = N on the source in skills.toml)",
            DiagnosticKind::HiddenSkills => {
                " (of a git source, a folder is given as #path=FOLDER after its URL; \
                 skills add takes owner/repo/FOLDER)"
            }
            _ => "",
        };
        // Paths and messages can hold what a skill file holds.
        let line = d.to_string();
        // A closed stderr is no reason to stop the command.
        let _ = writeln!(err, "{prefix}: {}{hint}", crate::terminal::visible(&line));
    }
    for (name, (kind, count)) in seen.into_iter().filter(|&(_, (_, n))| n > SHOWN_PER_KIND) {
        let more = count - SHOWN_PER_KIND;
        let what = match kind.severity() {
            Severity::Skip => format!("skipped skills ({name})"),
            _ => format!("{name} warnings"),
        };
        let _ = writeln!(
            err,
            "warning: {more} more {what} not shown (`skills validate` lists every one)"
        );
    }
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
        // Against the plain definition (all words joined, then cut to the columns a
        // terminal gives each character), at every length around the words' edges.
        let plain = |text: &str, max: usize| {
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let columns = |s: &str| s.chars().map(char_width).sum::<usize>();
            if columns(&one_line) <= max {
                return one_line;
            }
            let mut kept = String::new();
            for c in one_line.chars() {
                if columns(&kept) + char_width(c) > max.saturating_sub(3) {
                    break;
                }
                kept.push(c);
            }
            format!("{}...", kept.trim_end())
        };
        for text in [
            "ab cd",
            "ab cd e",
            "  lead  and\ttrail  ",
            "a\u{b}b\u{c}c\r\nd \u{1f} e",
            "ascii first, then caf\u{e9}",
            "nbsp\u{a0}between words",
            "\u{53cc}\u{8272}\u{7403}\u{5f00}\u{5956}\u{7ed3}\u{679c}\u{67e5}\u{8be2}\u{53cc}\u{8272}\u{7403}\u{5f00}\u{5956} \u{67e5}\u{8be2}",
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
        write_table(&mut out, &["N", "D", "S"], rows.len(), |i| rows[i].clone()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "N    D     S\na    long  x\nbbb  s     y\n"
        );
        // A column wider than one run of padding, and cells that borrow.
        let wide = "w".repeat(100);
        let rows = [vec!["\u{e9}", wide.as_str(), "x"], vec!["\u{e9}t\u{e9}", "s", "y"]];
        let mut out = Vec::new();
        write_table(&mut out, &["N", "D", "S"], rows.len(), |i| rows[i].clone()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("N    D{}S", " ".repeat(101)));
        assert_eq!(lines[1], format!("\u{e9}    {wide}  x"));
        assert_eq!(lines[2], format!("\u{e9}t\u{e9}  s{}y", " ".repeat(101)));
        // A line ends where its text does: not in the padding of empty cells, nor in a
        // cell's own whitespace, ASCII or not.
        let rows = [vec!["a", "", ""], vec!["b", "c\u{a0}", ""], vec!["d", "e", "f "]];
        let mut out = Vec::new();
        write_table(&mut out, &["N", "D", "S"], rows.len(), |i| rows[i].clone()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "N  D   S\na\nb  c\nd  e   f\n");
    }

    #[test]
    fn wide_characters_take_two_columns_and_controls_show_as_escapes() {
        // Four Chinese characters take eight columns: cut to five, they keep one.
        assert_eq!(
            shorten("\u{4e2d}\u{6587}\u{63cf}\u{8ff0}", 8),
            "\u{4e2d}\u{6587}\u{63cf}\u{8ff0}"
        );
        assert_eq!(shorten("\u{4e2d}\u{6587}\u{63cf}\u{8ff0}", 5), "\u{4e2d}...");
        assert_eq!(shorten("ab\u{4e2d}\u{6587}cd", 7), "ab\u{4e2d}...");
        let rows = [
            vec!["\u{4e2d}\u{6587}", "x"],
            vec!["abcd", "y"],
            vec!["e\u{1b}[2J", "z"],
        ];
        let mut out = Vec::new();
        write_table(&mut out, &["N", "S"], rows.len(), |i| rows[i].clone()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "N         S\n\u{4e2d}\u{6587}      x\nabcd      y\ne\\x1b[2J  z\n"
        );
    }

    #[test]
    fn a_long_table_is_written_in_order_on_two_threads() {
        // Enough rows for several batches of each thread; the widest cell of each column
        // lies in a different batch.
        let n = 5 * BATCH + 7;
        let row = |i: usize| {
            let name = if i == n - 3 { "n".repeat(40) } else { format!("s{i}") };
            let text = if i == 2 { "d".repeat(30) } else { "d".to_owned() };
            vec![name, text, format!("{i}")]
        };
        let mut out = Vec::new();
        write_table(&mut out, &["N", "D", "S"], n, row).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n + 1);
        assert_eq!(lines[0], format!("N{}D{}S", " ".repeat(41), " ".repeat(31)));
        for (i, line) in lines[1..].iter().enumerate() {
            let cells = row(i);
            assert_eq!(
                *line,
                format!("{:<42}{:<32}{}", cells[0], cells[1], cells[2]),
                "row {i}"
            );
        }
    }
}

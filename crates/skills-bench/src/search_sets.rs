//! `skills-bench search-sets EVAL_DIR NAME=DIR...`: every named query set of `EVAL_DIR`
//! (`NAME-queries.toml`) against its library, one table each, then the requests of all
//! the held-out sets pooled into one table and those of all the development sets into
//! another: the figures issue 39's goals are stated in, computed in one run.
//!
//! Pooling counts requests, not sets: a set of 56 requests weighs more than one of 27.

use std::collections::BTreeMap;
use std::path::Path;

use crate::quality::{Role, SetRun, Tally};
use crate::search::{Mode, run_set};

const USAGE: &str = "usage: skills-bench search-sets EVAL_DIR NAME=DIR...";

/// Runs the sets the arguments name and prints each one's table, then the pooled ones.
pub fn search_sets_command(args: &[String]) -> Result<(), String> {
    let [eval, sets @ ..] = args else {
        return Err(USAGE.to_owned());
    };
    if sets.is_empty() {
        return Err(USAGE.to_owned());
    }
    let mut runs = Vec::new();
    for set in sets {
        let Some((name, dir)) = set.split_once('=') else {
            return Err(format!("{set:?} is not NAME=DIR\n{USAGE}"));
        };
        let queries = Path::new(eval).join(format!("{name}-queries.toml"));
        let queries = queries.to_string_lossy().into_owned();
        println!("## {name}");
        println!();
        let run = run_set(
            &queries,
            None,
            Some(dir.to_owned()),
            None,
            Mode::Measure { misses: false },
        )?;
        println!();
        if let Some(run) = run {
            runs.push((name.to_owned(), run));
        }
    }
    print!("{}", pooled_tables(&runs));
    Ok(())
}

/// The pooled tables of `runs`, one per role, as Markdown; sets without a role are left
/// out of them.
fn pooled_tables(runs: &[(String, SetRun)]) -> String {
    let mut by_role: BTreeMap<Role, (Vec<&str>, Tally, Tally)> = BTreeMap::new();
    for (name, run) in runs {
        let Some(role) = run.role else { continue };
        let entry = by_role.entry(role).or_default();
        entry.0.push(name);
        entry.1 = entry.1.merged(run.ours);
        entry.2 = entry.2.merged(run.plain);
    }
    let mut out = String::new();
    for (role, (names, ours, plain)) in by_role {
        let label = match role {
            Role::Development => "development",
            Role::HeldOut => "held-out",
        };
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "## pooled: {} of {} ({})\n\n",
            plural(ours.requests, "request"),
            plural(names.len(), &format!("{label} set")),
            names.join(", ")
        ));
        out.push_str("| ranking | hit@1 | hit@5 | MRR |\n|---|---:|---:|---:|\n");
        let (o1, o5, om) = ours.rates();
        let (p1, p5, pm) = plain.rates();
        out.push_str(&format!("| SkillIndex (ours) | {o1:.3} | {o5:.3} | {om:.3} |\n"));
        out.push_str(&format!("| plain BM25 | {p1:.3} | {p5:.3} | {pm:.3} |\n"));
        out.push_str(&format!(
            "| ours - plain BM25 | {:+.3} | {:+.3} | {:+.3} |\n\n",
            o1 - p1,
            o5 - p5,
            om - pm
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(ranks: &[Option<usize>]) -> Tally {
        let mut tally = Tally::default();
        for rank in ranks {
            tally.add(*rank);
        }
        tally
    }

    #[test]
    fn a_tally_counts_ranks_within_the_first_ten() {
        let t = tally(&[Some(0), Some(1), Some(4), Some(5), Some(10), None]);
        assert_eq!((t.requests, t.hit1, t.hit5), (6, 1, 3));
        let expected = 1.0 + 0.5 + 0.2 + 1.0 / 6.0;
        assert!((t.reciprocal_ranks - expected).abs() < 1e-12);
        let (hit1, hit5, mrr) = t.rates();
        assert!((hit1 - 1.0 / 6.0).abs() < 1e-12 && (hit5 - 0.5).abs() < 1e-12);
        assert!((mrr - expected / 6.0).abs() < 1e-12);
        assert_eq!(Tally::default().rates(), (0.0, 0.0, 0.0));
    }

    #[test]
    fn pooling_weighs_requests_not_sets_and_keeps_roles_apart() {
        let run = |role, ours: &[Option<usize>], plain: &[Option<usize>]| SetRun {
            role,
            ours: tally(ours),
            plain: tally(plain),
        };
        let runs = vec![
            // One request, first for both.
            ("small".to_owned(), run(Some(Role::HeldOut), &[Some(0)], &[Some(0)])),
            // Three requests, ours never first.
            (
                "large".to_owned(),
                run(Some(Role::HeldOut), &[Some(1), Some(1), None], &[None, None, None]),
            ),
            ("tuned".to_owned(), run(Some(Role::Development), &[Some(0)], &[None])),
            ("synthetic".to_owned(), run(None, &[Some(0)], &[Some(0)])),
        ];
        let text = pooled_tables(&runs);
        // Pooled: 1 of 4 first (0.25), not the mean of the sets' rates (0.5).
        assert!(
            text.contains("## pooled: 4 requests of 2 held-out sets (small, large)"),
            "{text}"
        );
        assert!(text.contains("| SkillIndex (ours) | 0.250 | 0.750 | 0.500 |"), "{text}");
        assert!(text.contains("| plain BM25 | 0.250 | 0.250 | 0.250 |"), "{text}");
        assert!(
            text.contains("| ours - plain BM25 | +0.000 | +0.500 | +0.250 |"),
            "{text}"
        );
        assert!(
            text.contains("## pooled: 1 request of 1 development set (tuned)"),
            "{text}"
        );
        assert!(!text.contains("synthetic"), "{text}");
        // Development comes first, held-out after.
        assert!(text.find("development").unwrap() < text.find("held-out").unwrap());
    }

    #[test]
    fn an_argument_that_is_not_a_pair_is_refused() {
        let args = ["eval".to_owned(), "no-equals-sign".to_owned()];
        let error = search_sets_command(&args).unwrap_err();
        assert!(error.contains("is not NAME=DIR"), "{error}");
        assert!(search_sets_command(&["eval".to_owned()]).is_err());
    }
}

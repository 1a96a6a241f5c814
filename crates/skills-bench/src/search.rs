//! `skills-bench search`: the search evaluation. Runs a set of requests, each with the
//! skill that should answer it, against a library, through our [`SkillIndex`] and through
//! plain BM25 over name and description (the `bm25` crate on `name description`, words
//! split at anything not a letter or digit, lowercased, nothing else), and prints hit@1,
//! hit@5 and MRR for both, with the index's build time and query latency.
//!
//! A library on disk (`--dir`) is searched as the catalog searches it: discovered by a
//! [`SkillCatalog`], whose index also reads each skill's instructions
//! ([`SkillCatalog::prepare_search`]); the build time includes those reads. The synthetic
//! library has names and descriptions only.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bm25::{Embedder, EmbedderBuilder, Scorer, Tokenizer};
use serde::Deserialize;
use skills_backend_fs::FilesystemBackend;
use skills_catalog::{SearchError, SearchHit, SkillCatalog, SkillIndex, SkillSource};
use skills_core::SkillMetadata;

use crate::quality::{Role, SetRun, Tally};

/// A query file: requests and the skills that answer them.
#[derive(Debug, Deserialize)]
struct Queries {
    /// How deep the library's skills lie (`--depth`, unless given).
    #[serde(default)]
    depth: Option<usize>,
    /// A library merged from several sources under `--dir`, lowest priority first (the
    /// later wins a name, as in a catalog): `PATH` or `PATH#depth=N`, relative to it.
    #[serde(default)]
    sources: Vec<String>,
    /// Whether the ranking was tuned on this set (`"development"`) or not
    /// (`"held-out"`): `skills-bench search-sets` pools the sets of each role. Every
    /// set under `eval/` says; the synthetic set does not.
    #[serde(default)]
    pub(crate) role: Option<Role>,
    query: Vec<Query>,
}

#[derive(Debug, Deserialize)]
struct Query {
    request: String,
    expect: Vec<String>,
}

/// A library file: skills as name and description (the committed synthetic library).
#[derive(Debug, Deserialize)]
struct LibraryFile {
    skill: Vec<LibrarySkill>,
}

#[derive(Debug, Deserialize)]
struct LibrarySkill {
    name: String,
    description: String,
}

const USAGE: &str = "usage: skills-bench search --queries FILE (--library FILE | --dir DIR [--depth N]) [--misses | --pool | --dump FILE]";

/// Runs the evaluation the arguments name and prints its table.
pub fn search_command(args: &[String]) -> Result<(), String> {
    let mut queries = None;
    let mut library = None;
    let mut dir = None;
    let mut depth = None;
    let mut misses = false;
    let mut pool = false;
    let mut dump = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = || {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--queries" => queries = Some(value()?),
            "--library" => library = Some(value()?),
            "--dir" => dir = Some(value()?),
            "--depth" => depth = Some(value()?.parse().map_err(|e| format!("--depth: {e}"))?),
            "--misses" => misses = true,
            "--pool" => pool = true,
            "--dump" => dump = Some(value()?),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let queries = queries.ok_or(USAGE)?;
    let mode = if pool {
        Mode::Pool
    } else if let Some(file) = dump {
        Mode::Dump(file)
    } else {
        Mode::Measure { misses }
    };
    run_set(&queries, library, dir, depth, mode).map(drop)
}

/// What [`run_set`] does with a set.
pub(crate) enum Mode {
    /// Prints both rankings' quality and the index's latency (and each miss).
    Measure { misses: bool },
    /// Prints both rankings' first 5 for judging blind.
    Pool,
    /// Writes both rankings' first 100 to the file.
    Dump(String),
}

/// Runs the query set in the file `queries` against the library `library` (a TOML file)
/// or the folder `dir` as `mode` says; what it measured, when it measured.
pub(crate) fn run_set(
    queries: &str,
    library: Option<String>,
    dir: Option<String>,
    depth: Option<usize>,
    mode: Mode,
) -> Result<Option<SetRun>, String> {
    let text = std::fs::read_to_string(queries).map_err(|e| format!("{queries}: {e}"))?;
    let queries: Queries = toml::from_str(&text).map_err(|e| format!("{queries}: {e}"))?;
    let (skills, index, build) = match (library, dir) {
        (Some(file), None) => {
            let skills = read_library(&file)?;
            let started = Instant::now();
            let index = SkillIndex::build(&skills);
            (skills, Searcher::Index(Box::new(index)), started.elapsed())
        }
        (None, Some(dir)) => {
            let depth = depth.or(queries.depth).unwrap_or(1);
            let sources: Vec<(std::path::PathBuf, usize)> = if queries.sources.is_empty() {
                vec![(Path::new(&dir).to_path_buf(), depth)]
            } else {
                queries
                    .sources
                    .iter()
                    .map(|spec| match spec.split_once("#depth=") {
                        Some((path, n)) => n
                            .parse()
                            .map(|n| (Path::new(&dir).join(path), n))
                            .map_err(|e| format!("{spec}: {e}")),
                        None => Ok((Path::new(&dir).join(spec), depth)),
                    })
                    .collect::<Result<_, _>>()?
            };
            discover(&sources)?
        }
        _ => return Err(USAGE.to_owned()),
    };
    let unknown: Vec<&str> = queries
        .query
        .iter()
        .flat_map(|q| &q.expect)
        .filter(|name| !skills.iter().any(|s| &s.name == *name))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(format!("the library has no skill named {}", unknown.join(", ")));
    }

    let plain = PlainBm25::build(&skills);
    let misses = match mode {
        Mode::Measure { misses } => misses,
        Mode::Pool => {
            print_pool(&queries.query, &skills, |request| {
                let ours = index.search(request, 5).unwrap_or_default().into_iter().map(|h| h.name);
                ours.chain(plain.search(request, 5)).collect()
            });
            return Ok(None);
        }
        Mode::Dump(file) => return write_dump(&file, &queries.query, &skills, &index, &plain).map(|()| None),
    };
    let mut latencies = Vec::new();
    let ours = evaluate(&queries.query, misses.then_some("ours"), |request| {
        let started = Instant::now();
        let hits = index.search(request, 10).unwrap_or_default();
        latencies.push(started.elapsed());
        hits.into_iter().map(|h| h.name).collect()
    });
    let baseline = evaluate(&queries.query, misses.then_some("bm25"), |request| {
        plain.search(request, 10)
    });
    // Latency over many runs of the set, for a stable p99.
    for _ in 0..20 {
        for query in &queries.query {
            let started = Instant::now();
            let _ = index.search(&query.request, 8);
            latencies.push(started.elapsed());
        }
    }
    latencies.sort();
    let pick = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];
    let micros = |d: Duration| d.as_secs_f64() * 1e6;

    println!("{} skills, {} requests", skills.len(), queries.query.len());
    println!();
    println!("| ranking | hit@1 | hit@5 | MRR |");
    println!("|---|---:|---:|---:|");
    for (name, tally) in [("SkillIndex (ours)", ours), ("plain BM25", baseline)] {
        let (hit1, hit5, mrr) = tally.rates();
        println!("| {name} | {hit1:.3} | {hit5:.3} | {mrr:.3} |");
    }
    println!();
    println!(
        "index build {:.1} ms; search p50 {:.0} us, p99 {:.0} us ({} searches)",
        build.as_secs_f64() * 1e3,
        micros(pick(0.5)),
        micros(pick(0.99)),
        latencies.len()
    );
    Ok(Some(SetRun {
        role: queries.role,
        ours,
        plain: baseline,
    }))
}

/// Writes, for trying other rankings outside the index (decision 097), every skill's
/// name and description and, per request, the skills it expects and both rankings' first
/// 100 (ours with their scores), as one JSON object.
fn write_dump(
    file: &str,
    queries: &[Query],
    skills: &[SkillMetadata],
    index: &Searcher,
    plain: &PlainBm25,
) -> Result<(), String> {
    let requests: Vec<serde_json::Value> = queries
        .iter()
        .map(|query| {
            let ours: Vec<(String, f32)> = index
                .search(&query.request, 100)
                .unwrap_or_default()
                .into_iter()
                .map(|hit| (hit.name, hit.score))
                .collect();
            serde_json::json!({
                "request": query.request,
                "expect": query.expect,
                "ours": ours,
                "bm25": plain.search(&query.request, 100),
            })
        })
        .collect();
    let skills: Vec<(&str, &str)> = skills
        .iter()
        .map(|s| (s.name.as_str(), s.description.as_str()))
        .collect();
    let dump = serde_json::json!({ "skills": skills, "queries": requests });
    std::fs::write(file, dump.to_string()).map_err(|e| format!("{file}: {e}"))
}

/// The quality of `search` on `queries`; with a `label`, prints each request whose
/// expected skill is not first, under that label, with the rank it got.
fn evaluate(queries: &[Query], label: Option<&str>, mut search: impl FnMut(&str) -> Vec<String>) -> Tally {
    let mut total = Tally::default();
    for query in queries {
        let found = search(&query.request);
        let rank = found.iter().position(|name| query.expect.contains(name));
        if let Some(label) = label
            && rank != Some(0)
        {
            let rank = rank.map_or_else(|| "none".to_owned(), |r| (r + 1).to_string());
            println!(
                "miss[{label}] rank {rank}: {:?} wanted {:?}, got {:?}",
                query.request,
                query.expect,
                &found[..found.len().min(5)]
            );
        }
        total.add(rank);
    }
    total
}

fn read_library(file: &str) -> Result<Vec<SkillMetadata>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let library: LibraryFile = toml::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
    Ok(library
        .skill
        .into_iter()
        .map(|s| SkillMetadata::new(&s.name, &s.description, format!("/{}/SKILL.md", s.name)))
        .collect())
}

/// The skills of the folders `sources` (skill folders up to each one's depth, merged
/// in order), through a catalog whose search index is complete (instructions read), and
/// how long that index took.
fn discover(sources: &[(std::path::PathBuf, usize)]) -> Result<(Vec<SkillMetadata>, Searcher, Duration), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut opened = Vec::new();
    for (dir, depth) in sources {
        let backend = FilesystemBackend::new(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let label = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        opened.push(
            SkillSource::new(Arc::new(backend), "/")
                .with_depth(*depth)
                .with_label(label),
        );
    }
    let dir = sources.first().map(|(d, _)| d.clone()).unwrap_or_default();
    let catalog = SkillCatalog::new(opened).with_lazy_resources(true);
    let (snapshot, build) = runtime.block_on(async {
        let snapshot = catalog.ensure_loaded().await;
        let started = Instant::now();
        catalog.prepare_search().await;
        (snapshot, started.elapsed())
    });
    if let Some((_, error)) = runtime.block_on(catalog.source_errors()).first() {
        return Err(format!("{}: {error}", dir.display()));
    }
    let skills = snapshot.skills().iter().map(|s| SkillMetadata::clone(s)).collect();
    Ok((skills, Searcher::Catalog(Box::new(catalog)), build))
}

/// What the evaluation searches: an index of its own, or a catalog's.
enum Searcher {
    Index(Box<SkillIndex>),
    Catalog(Box<SkillCatalog>),
}

impl Searcher {
    fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        match self {
            Self::Index(index) => index.search(query, limit),
            Self::Catalog(catalog) => catalog.search(query, limit),
        }
    }
}

/// The baseline: BM25 over `name description`, plainly tokenized.
struct PlainBm25 {
    embedder: Embedder<u32, PlainWords>,
    scorer: Scorer<usize, u32>,
    names: Vec<String>,
}

struct PlainWords;

impl Tokenizer for PlainWords {
    fn tokenize(&self, text: &str) -> Vec<String> {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

impl PlainBm25 {
    fn build(skills: &[SkillMetadata]) -> Self {
        let texts: Vec<String> = skills.iter().map(|s| format!("{} {}", s.name, s.description)).collect();
        let corpus: Vec<&str> = texts.iter().map(String::as_str).collect();
        let embedder = EmbedderBuilder::with_tokenizer_and_fit_to_corpus(PlainWords, &corpus).build();
        let mut scorer = Scorer::new();
        for (i, text) in corpus.iter().enumerate() {
            scorer.upsert(&i, embedder.embed(text));
        }
        Self {
            embedder,
            scorer,
            names: skills.iter().map(|s| s.name.clone()).collect(),
        }
    }

    fn search(&self, request: &str, limit: usize) -> Vec<String> {
        let mut hits = self.scorer.matches(&self.embedder.embed(request));
        // Equal scores in name order, as ours.
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.names[a.id].cmp(&self.names[b.id]))
        });
        hits.into_iter().take(limit).map(|h| self.names[h.id].clone()).collect()
    }
}

/// For judging blind: per request, the skills of both rankings' first 5, in name order
/// and without saying which ranking gave them, each with its description; the ones the
/// set already expects are marked `=`.
fn print_pool(queries: &[Query], skills: &[SkillMetadata], mut both: impl FnMut(&str) -> Vec<String>) {
    for query in queries {
        let mut names = both(&query.request);
        names.sort();
        names.dedup();
        println!("## {}", query.request);
        for name in names {
            let description = skills
                .iter()
                .find(|s| s.name == name)
                .map_or("", |s| s.description.as_str());
            let shown: String = description.chars().take(200).collect();
            let mark = if query.expect.contains(&name) { '=' } else { '-' };
            println!("{mark} {name}: {shown}");
        }
        println!();
    }
}

#[cfg(test)]
mod tests {
    use super::Queries;

    /// Every committed query set reads, and says what it asks for: requests, each with
    /// at least one skill and no request twice (a set that fails to parse would only
    /// show when someone runs the evaluation against a fetched library).
    #[test]
    fn every_committed_query_set_reads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval");
        let mut sets = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with("-queries.toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let queries: Queries = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!queries.query.is_empty(), "{}: no requests", path.display());
            assert!(
                queries.role.is_some(),
                "{}: no `role` (\"development\" or \"held-out\")",
                path.display()
            );
            let mut seen = std::collections::HashSet::new();
            for query in &queries.query {
                assert!(
                    !query.expect.is_empty(),
                    "{}: {:?} expects nothing",
                    path.display(),
                    query.request
                );
                assert!(
                    seen.insert(&query.request),
                    "{}: {:?} twice",
                    path.display(),
                    query.request
                );
            }
            sets += 1;
        }
        assert!(sets >= 20, "{sets} query sets in {}", dir.display());
    }
}

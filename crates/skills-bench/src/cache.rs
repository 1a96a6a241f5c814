//! `skills-bench cache --cli PATH --out DIR [--runs N] [--serve DIR] [LIBRARY...]`: the
//! persistent parse cache, as a user sees it. For each library (a folder of skill
//! folders, one level deep; the generated 10,000-skill library of three sources always),
//! in one interleaved run of N rounds: the floor (a process that reads every `SKILL.md`
//! on one thread), the same process parsing each file as discovery does (what a start
//! without a cache has to do at least, on one core; and the same on two threads),
//! `skills list --json --no-cache`, a cold `skills list --json` (the
//! cache folder emptied first: it reads, parses and writes the cache) and a warm one.
//! Medians of wall time and peak RSS; the warm output is checked byte for byte against
//! the output without the cache. With `--serve DIR`, the time from starting `skills
//! serve` on DIR to the answer of its first `search_skills`, cold and warm.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{flag_values, median_ms, ms, wait_with_peak_rss};

const USAGE: &str = "usage: skills-bench cache --cli PATH --out DIR [--runs N] [--serve DIR] [LIBRARY...]";

/// One process run: wall time (ms) and peak RSS (MiB).
fn run(program: &Path, args: &[&str], cache: &Path) -> Result<(f64, f64), String> {
    let started = Instant::now();
    let child = Command::new(program)
        .args(args)
        .env("SKILLS_CACHE_DIR", cache)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let (code, kib) = wait_with_peak_rss(child)?;
    let elapsed = ms(started.elapsed());
    if code != 0 {
        return Err(format!("{} {args:?} exited with {code}", program.display()));
    }
    Ok((elapsed, kib as f64 / 1024.0))
}

fn output(program: &Path, args: &[&str], cache: &Path) -> Result<Vec<u8>, String> {
    let out = Command::new(program)
        .args(args)
        .env("SKILLS_CACHE_DIR", cache)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    Ok(out.stdout)
}

/// The medians of each column of `rows`.
fn medians(samples: &[(f64, f64)]) -> (f64, f64) {
    let (times, peaks): (Vec<f64>, Vec<f64>) = samples.iter().copied().unzip();
    (median_ms(times), median_ms(peaks))
}

/// What one library measured.
struct Measured {
    name: String,
    skills: usize,
    floor: (f64, f64),
    parse_floor: (f64, f64),
    /// The read and parse floor shared out over two threads.
    parse_floor_two: (f64, f64),
    plain: (f64, f64),
    cold: (f64, f64),
    warm: (f64, f64),
    identical: bool,
}

fn measure(
    cli: &Path,
    bench: &Path,
    name: &str,
    sources: &[PathBuf],
    runs: usize,
    cache: &Path,
) -> Result<Measured, String> {
    let sources: Vec<&str> = sources
        .iter()
        .map(|s| s.to_str().ok_or("paths must be UTF-8"))
        .collect::<Result<_, _>>()?;
    let mut list: Vec<&str> = vec!["list", "--json"];
    for source in &sources {
        list.extend(["--source", source]);
    }
    let plain_args: Vec<&str> = list.iter().copied().chain(["--no-cache"]).collect();
    let floor_args: Vec<&str> = ["floor"].into_iter().chain(sources.iter().copied()).collect();
    let parse_args: Vec<&str> = ["floor", "--parse"]
        .into_iter()
        .chain(sources.iter().copied())
        .collect();
    let parse_two_args: Vec<&str> = ["floor", "--parse", "--threads", "2"]
        .into_iter()
        .chain(sources.iter().copied())
        .collect();
    let (mut floor, mut parse_floor, mut parse_floor_two) = (Vec::new(), Vec::new(), Vec::new());
    let (mut plain, mut cold, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        floor.push(run(bench, &floor_args, cache)?);
        parse_floor.push(run(bench, &parse_args, cache)?);
        parse_floor_two.push(run(bench, &parse_two_args, cache)?);
        plain.push(run(cli, &plain_args, cache)?);
        let _ = std::fs::remove_dir_all(cache);
        cold.push(run(cli, &list, cache)?);
        warm.push(run(cli, &list, cache)?);
    }
    let without = output(cli, &plain_args, cache)?;
    let with = output(cli, &list, cache)?;
    let skills = serde_json::from_slice::<serde_json::Value>(&without)
        .ok()
        .and_then(|v| v.as_array().map(Vec::len))
        .unwrap_or(0);
    Ok(Measured {
        name: name.to_owned(),
        skills,
        floor: medians(&floor),
        parse_floor: medians(&parse_floor),
        parse_floor_two: medians(&parse_floor_two),
        plain: medians(&plain),
        cold: medians(&cold),
        warm: medians(&warm),
        identical: with == without,
    })
}

/// Milliseconds from starting `skills serve --source DIR` to the answer of its first
/// `search_skills` (initialize, initialized, one tool call), over stdio.
fn serve_first_search(cli: &Path, dir: &str, cache: &Path, no_cache: bool) -> Result<(f64, f64), String> {
    let mut args = vec!["serve", "--source", dir];
    if no_cache {
        args.push("--no-cache");
    }
    let started = Instant::now();
    let mut child = Command::new(cli)
        .args(&args)
        .env("SKILLS_CACHE_DIR", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"convert a pdf to markdown"}}}"#,
    ];
    let mut line = String::new();
    let mut initialized = 0.0;
    for message in messages {
        writeln!(stdin, "{message}").map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        if message.contains("\"id\"") {
            loop {
                line.clear();
                if stdout.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                    return Err("skills serve closed its output".into());
                }
                if line.contains("\"id\":1") && initialized == 0.0 {
                    initialized = ms(started.elapsed());
                    break;
                }
                if line.contains("\"id\":2") {
                    break;
                }
            }
        }
    }
    let answered = ms(started.elapsed());
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    Ok((initialized, answered))
}

pub fn cache_command(args: &[String]) -> Result<(), String> {
    // Flags with their values, then the libraries.
    let (mut flags, mut libraries) = (Vec::new(), Vec::new());
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg.starts_with("--") {
            flags.push(arg.clone());
            flags.extend(rest.next().cloned());
        } else {
            libraries.push(arg.clone());
        }
    }
    let mut values = flag_values(&flags, &["cli", "out", "runs", "serve"])?;
    let (Some(cli), Some(out)) = (values.remove("cli"), values.remove("out")) else {
        return Err(USAGE.into());
    };
    let runs: usize = values
        .remove("runs")
        .map_or(Ok(5), |r| r.parse())
        .map_err(|e| format!("--runs: {e}"))?;
    let (cli, out) = (PathBuf::from(cli), PathBuf::from(out));
    let bench = std::env::current_exe().map_err(|e| e.to_string())?;
    let root = out.join("cache");
    let cache = root.join("skills-cache");
    let generated = root.join("generated");
    let _ = std::fs::remove_dir_all(&generated);
    let library = skills_bench::generate(&generated, 10_000, crate::SEED).map_err(|e| e.to_string())?;
    // Files changed within the cache's racy window (two seconds) are not kept: the
    // generated library settles first, as a library a user edits now and then is.
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let mut rows = Vec::new();
    rows.push(measure(
        &cli,
        &bench,
        "generated 10,000 skills, 3 sources",
        &library.sources,
        runs,
        &cache,
    )?);
    for dir in &libraries {
        let name = Path::new(dir.as_str())
            .file_name()
            .map_or_else(|| dir.to_string(), |n| n.to_string_lossy().into_owned());
        eprintln!("measuring {dir}");
        rows.push(measure(
            &cli,
            &bench,
            &name,
            &[PathBuf::from(dir.as_str())],
            runs,
            &cache,
        )?);
    }
    let mut table = format!(
        "`skills list --json`, whole processes, {runs} interleaved rounds (medians; MiB = peak RSS)\n\n\
         | library | skills | read floor | read + parse floor | the same on 2 threads (/ read floor) | `--no-cache` | cold (writes the cache) | warm | warm / floor | cold / floor | cold / read + parse floor | output identical |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    );
    for m in &rows {
        table.push_str(&format!(
            "| {} | {} | {:.1} ms | {:.1} ms | {:.1} ms ({:.2}x) | {:.1} ms, {:.1} MiB | {:.1} ms, {:.1} MiB | {:.1} ms, {:.1} MiB | {:.2}x | {:.2}x | {:.2}x | {} |\n",
            m.name,
            m.skills,
            m.floor.0,
            m.parse_floor.0,
            m.parse_floor_two.0,
            m.parse_floor_two.0 / m.floor.0,
            m.plain.0,
            m.plain.1,
            m.cold.0,
            m.cold.1,
            m.warm.0,
            m.warm.1,
            m.warm.0 / m.floor.0,
            m.cold.0 / m.floor.0,
            m.cold.0 / m.parse_floor.0,
            if m.identical { "yes" } else { "NO" },
        ));
    }
    if let Some(dir) = values.remove("serve") {
        let serve_cache = root.join("serve-cache");
        let _ = std::fs::remove_dir_all(&serve_cache);
        let cold = serve_first_search(&cli, &dir, &serve_cache, true)?;
        // The first run with the cache writes it (and the index, once complete).
        serve_first_search(&cli, &dir, &serve_cache, false)?;
        std::thread::sleep(std::time::Duration::from_secs(20));
        let warm: Vec<(f64, f64)> = (0..runs)
            .map(|_| serve_first_search(&cli, &dir, &serve_cache, false))
            .collect::<Result<_, _>>()?;
        let warm = medians(&warm);
        table.push_str(&format!(
            "\n`skills serve --source {dir}`: from start to the answer of `initialize` and of the first `search_skills`\n\n\
             | | initialize | first search_skills |\n|---|---:|---:|\n\
             | without the cache | {:.0} ms | {:.0} ms |\n| warm (median of {runs}) | {:.0} ms | {:.0} ms |\n",
            cold.0, cold.1, warm.0, warm.1
        ));
    }
    println!("{table}");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    std::fs::write(out.join("cache.md"), &table).map_err(|e| e.to_string())?;
    if rows.iter().any(|m| !m.identical) {
        return Err("the output with the cache differs from the output without it".into());
    }
    Ok(())
}

/// `floor [--parse [--threads N]] DIR...`: reads every `SKILL.md` one level below each
/// folder, on one thread (with `--parse`, parses each as discovery does; with
/// `--threads`, shared out over N threads).
pub fn floor_command(args: &[String]) -> Result<(), String> {
    const FLOOR_USAGE: &str = "usage: skills-bench floor [--parse [--threads N]] DIR...";
    let mut args = args;
    let parse = args.first().is_some_and(|a| a == "--parse");
    args = &args[usize::from(parse)..];
    let mut threads = 1;
    if args.first().is_some_and(|a| a == "--threads") {
        if !parse {
            return Err(format!(
                "--threads shares out the parse: it needs --parse\n{FLOOR_USAGE}"
            ));
        }
        threads = args
            .get(1)
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .ok_or(FLOOR_USAGE)?;
        args = &args[2..];
    }
    let sources: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if sources.is_empty() {
        return Err(FLOOR_USAGE.into());
    }
    let read = if parse {
        skills_bench::parse_floor_on(&sources, threads)
    } else {
        skills_bench::floor(&sources)
    };
    let read = read.map_err(|e| e.to_string())?;
    println!(
        "{} files, {} bytes, {} parsed to a skill",
        read.files, read.bytes, read.parsed
    );
    Ok(())
}

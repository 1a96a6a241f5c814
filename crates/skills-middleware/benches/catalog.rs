//! The path at 10,000 skills, timed in one process on an in-memory library (the disk is
//! out of the picture): a new thread's `before_agent`, a `load_skill`, the budgeted
//! section rendered for a new loaded set, `search_skills`, and the memory 1,000 threads
//! add.
//!
//! `cargo xtask bench catalog` (or `cargo bench -p skills-middleware --bench catalog`).
//! Prints one table; the figures go to the README's performance section.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, PromptSection, PromptTemplate, SkillCatalog, SkillView, ToolSet,
};
use skills_core::MemoryBackend;
use skills_middleware::{AgentMiddleware, AgentState, LOAD_SKILL, Message, SkillsMiddleware, ToolOutput, ToolRuntime};

const SKILLS: usize = 10_000;
const THREADS: usize = 1_000;

/// Words descriptions are made of, so that searches have something to rank.
const WORDS: [&str; 24] = [
    "pdf",
    "tables",
    "deploy",
    "kubernetes",
    "invoice",
    "taxes",
    "review",
    "pull",
    "request",
    "slack",
    "alerts",
    "spreadsheet",
    "charts",
    "translate",
    "documents",
    "scrape",
    "websites",
    "postgres",
    "migrations",
    "redis",
    "cache",
    "images",
    "resize",
    "audio",
];

fn skill_md(i: usize) -> String {
    let pick = |k: usize| WORDS[(i * 7 + k * 13) % WORDS.len()];
    format!(
        "---\nname: skill-{i:05}\ndescription: Handles {} {} and {} for team {}, when asked to work on {}\n\
         license: MIT\n{}---\n\n# Skill {i}\n\n{}\n",
        pick(0),
        pick(1),
        pick(2),
        i % 97,
        pick(3),
        // One skill in ten needs a tool the bench's agent lacks.
        if i % 10 == 0 {
            "required-tools: github_create_pr\n"
        } else {
            ""
        },
        "Step by step instructions for the task. ".repeat(20)
    )
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(mut samples: Vec<Duration>, p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn micros(d: Duration) -> String {
    format!("{:.1} us", d.as_secs_f64() * 1e6)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let backend = MemoryBackend::new();
    for i in 0..SKILLS {
        backend
            .insert(&format!("/skills/skill-{i:05}/SKILL.md"), skill_md(i))
            .unwrap();
        backend
            .insert(&format!("/skills/skill-{i:05}/scripts/run.sh"), "echo\n")
            .unwrap();
    }
    let backend = Arc::new(backend);
    let skills = SkillsMiddleware::builder()
        .paths(backend.clone(), ["/skills"])
        .catalog_budget(CatalogBudget::default())
        .build()
        .unwrap();
    rt.block_on(skills.catalog().ensure_loaded());
    let load = skills.tools().into_iter().find(|t| t.name() == LOAD_SKILL).unwrap();

    // A new thread, then a load_skill on it.
    let mut starts = Vec::new();
    let mut loads = Vec::new();
    let rss_before = rss_kib();
    let mut threads = Vec::with_capacity(THREADS);
    for t in 0..THREADS {
        let mut state = AgentState::new(vec![Message::user("hi")]);
        let started = Instant::now();
        let update = rt.block_on(skills.before_agent(&state)).unwrap().unwrap();
        state.apply(update);
        starts.push(started.elapsed());
        let args = serde_json::json!({ "skill_name": format!("skill-{:05}", t * 7 % SKILLS) });
        let started = Instant::now();
        let output = rt.block_on(load.call(
            args,
            ToolRuntime {
                state: &state,
                tool_call_id: "bench",
                agent: None,
            },
        ));
        loads.push(started.elapsed());
        if let ToolOutput::Command(command) = output {
            state.apply(command.update);
        }
        threads.push(state);
    }
    let rss_after = rss_kib();
    let per_thread = (rss_after.saturating_sub(rss_before)) as f64 / THREADS as f64;

    // The budgeted section for a new loaded set (what a load_skill asks for): the entry
    // costs are computed once per catalog version, then each new set renders the
    // entries it shows.
    let snapshot = skills.catalog().snapshot();
    let section = PromptSection::of_catalog(
        skills.catalog(),
        AllowedToolsPolicy::Recommend,
        PromptTemplate::default(),
    )
    .with_budget(CatalogBudget::default());
    let started = Instant::now();
    let first = section.render(&snapshot, &[]);
    let first_render = started.elapsed();
    assert!(first.len() < 12_000);
    let mut renders = Vec::new();
    for i in 0..200 {
        let loaded = [format!("skill-{:05}", i * 37 % SKILLS)];
        let started = Instant::now();
        let text = section.render(&snapshot, &loaded);
        renders.push(started.elapsed());
        assert!(text.contains("[Loaded]"));
    }

    // search_skills, after the index is built and has read every skill's instructions
    // (what `warm_search` does in the background before search is offered).
    let catalog: &SkillCatalog = skills.catalog();
    let started = Instant::now();
    rt.block_on(catalog.prepare_search());
    let build = started.elapsed();
    assert!(catalog.search_ready());
    let mut searches = Vec::new();
    for round in 0..50 {
        for query in [
            "pdf tables",
            "deploy to kubernetes",
            "invoice taxes for team 12",
            "resize images",
            "slack alerts on postgres migrations",
        ] {
            let started = Instant::now();
            let hits = catalog.search(query, 8).unwrap();
            searches.push(started.elapsed());
            assert!(!hits.is_empty() || round > 0);
        }
    }

    // A view (a fifth of the library) for an agent with two tools: what it is offered is
    // computed once per (version, tool set); its section, then searches within it.
    let tools = ToolSet::new(["Read", "Bash"]);
    let view = SkillView::new("bench").include(["skill-00*", "skill-01*"]).unwrap();
    let viewed = section.with_other_view(Some(Arc::new(view)));
    let started = Instant::now();
    let selection = viewed.selection(&snapshot, Some(&tools)).unwrap();
    let select_first = started.elapsed();
    assert_eq!(
        selection.skills().len(),
        1_800,
        "2,000 in the view, a tenth unavailable"
    );
    let started = Instant::now();
    let again = viewed.selection(&snapshot, Some(&tools)).unwrap();
    let select_cached = started.elapsed();
    assert!(Arc::ptr_eq(&selection, &again));
    let started = Instant::now();
    viewed.render_listing_for(&snapshot, &[], Some(&tools));
    let viewed_first = started.elapsed();
    let mut viewed_renders = Vec::new();
    for i in 0..200 {
        let loaded = [format!("skill-{:05}", i * 37 % 2_000)];
        let started = Instant::now();
        viewed.render_listing_for(&snapshot, &loaded, Some(&tools));
        viewed_renders.push(started.elapsed());
    }
    let mut viewed_searches = Vec::new();
    for _ in 0..50 {
        for query in ["pdf tables", "deploy to kubernetes", "resize images"] {
            let started = Instant::now();
            catalog.search_selected(query, 8, &snapshot, Some(&selection)).unwrap();
            viewed_searches.push(started.elapsed());
        }
    }

    // A one-file edit, reloaded narrowed to its folder (what the watcher does after its
    // debounce).
    let mut edits = Vec::new();
    for i in 0..20 {
        let name = format!("skill-{:05}", i * 101 % SKILLS);
        let text = skill_md(i * 101 % SKILLS).replace("Handles", &format!("Edit {i}: handles"));
        backend.insert(&format!("/skills/{name}/SKILL.md"), text).unwrap();
        let started = Instant::now();
        let event = rt
            .block_on(catalog.reload_paths(0, &[format!("/skills/{name}/SKILL.md")]))
            .unwrap();
        edits.push(started.elapsed());
        assert_eq!(event.changes.len(), 1);
    }

    let rows = [
        ("new thread (`before_agent`), median", micros(median(starts.clone()))),
        ("new thread, p99", micros(percentile(starts, 0.99))),
        ("`load_skill`, median", micros(median(loads.clone()))),
        ("`load_skill`, p99", micros(percentile(loads, 0.99))),
        (
            "memory per extra thread (RSS growth / threads)",
            format!(
                "{:.0} bytes ({:.2} MiB for {THREADS})",
                per_thread * 1024.0,
                (rss_after.saturating_sub(rss_before)) as f64 / 1024.0
            ),
        ),
        (
            "budgeted section, first render of a version (entry costs)",
            format!("{:.1} ms", first_render.as_secs_f64() * 1e3),
        ),
        (
            "budgeted section, a new loaded set, median",
            micros(median(renders.clone())),
        ),
        (
            "budgeted section, a new loaded set, p99",
            micros(percentile(renders, 0.99)),
        ),
        (
            "search index build, instructions read",
            format!("{:.1} ms", build.as_secs_f64() * 1e3),
        ),
        ("`search_skills`, p50", micros(percentile(searches.clone(), 0.5))),
        ("`search_skills`, p99", micros(percentile(searches, 0.99))),
        (
            "view + tool set: what it offers, first of a version",
            micros(select_first),
        ),
        ("view + tool set: what it offers, cached", micros(select_cached)),
        (
            "view + tool set: section, first render of a version",
            format!("{:.1} ms", viewed_first.as_secs_f64() * 1e3),
        ),
        (
            "view + tool set: section, a new loaded set, p99",
            micros(percentile(viewed_renders, 0.99)),
        ),
        (
            "view + tool set: `search_skills` within it, p99",
            micros(percentile(viewed_searches, 0.99)),
        ),
        (
            "one-file edit -> new snapshot (narrowed reload), median",
            micros(median(edits.clone())),
        ),
        ("one-file edit -> new snapshot, p99", micros(percentile(edits, 0.99))),
    ];
    println!("catalog at {SKILLS} skills (in memory), {THREADS} threads");
    println!();
    println!("| measure | result |");
    println!("|---|---:|");
    for (measure, result) in rows {
        println!("| {measure} | {result} |");
    }
    drop(threads);
}

//! Hostile `SKILL.md` content: whatever the bytes, parsing answers (a skill or a
//! diagnostic), never panics, and keeps its memory bounded.
//!
//! A committed seed corpus (`tests/corpus/`) is parsed as it is and mutated by proptest;
//! generated inputs add arbitrary bytes, YAML-shaped noise, deep nesting and alias
//! bombs. The number of generated cases is bounded (proptest's default 256 per property;
//! `PROPTEST_CASES` raises it for a longer local run).

#![allow(clippy::unwrap_used)]
// Test helpers fail loudly.
// The counting allocator below only forwards to the system allocator; it is how these
// tests bound the memory a parse takes.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use proptest::prelude::*;
use skills_core::parse::{
    MAX_SKILL_COMPATIBILITY_LENGTH, MAX_SKILL_DESCRIPTION_LENGTH, MAX_SKILL_FILE_SIZE, frontmatter_json,
};
use skills_core::{ParseOutcome, parse_skill_md};

/// Counts the bytes each thread has allocated and not freed, and the peak, so a test can
/// bound the memory one parse takes (parsing runs on the calling thread).
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn record(delta: isize) {
    // `try_with`: a thread being torn down has no counters left; skip it.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are
// const-initialized thread-locals that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(-(layout.size() as isize));
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded as given.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live at once on this thread while `work` runs, above what was live
/// before it.
fn peak_bytes<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    let out = work();
    let peak = PEAK.with(Cell::get);
    (out, usize::try_from(peak - base).unwrap_or(0))
}

const PATH: &str = "/skills/x/SKILL.md";

/// Parses and checks what must hold for any input; returns the outcome.
fn parse_checked(content: &[u8]) -> ParseOutcome {
    let outcome = parse_skill_md(content, PATH, "x");
    assert_eq!(outcome, parse_skill_md(content, PATH, "x"), "parsing is deterministic");
    assert!(
        outcome.skill.is_some() || !outcome.diagnostics.is_empty(),
        "a skipped file says why"
    );
    for diagnostic in &outcome.diagnostics {
        assert_eq!(diagnostic.path, PATH);
        assert!(!diagnostic.message.is_empty());
    }
    if let Some(skill) = &outcome.skill {
        assert_eq!(skill.path, PATH);
        assert!(!skill.name.trim().is_empty());
        assert!(!skill.description.trim().is_empty());
        assert!(skill.description.chars().count() <= MAX_SKILL_DESCRIPTION_LENGTH);
        let compatibility = skill.compatibility.as_deref().unwrap_or_default();
        assert!(compatibility.chars().count() <= MAX_SKILL_COMPATIBILITY_LENGTH);
    }
    // The JSON view of the frontmatter (served over MCP) has the same guards.
    let _ = frontmatter_json(content);
    outcome
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn seed(name: &str) -> Vec<u8> {
    corpus().into_iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn every_corpus_file_parses_to_an_answer() {
    let files = corpus();
    assert!(files.len() >= 15, "the seed corpus is missing files");
    for (name, content) in &files {
        let outcome = parse_checked(content);
        let expect_skill = matches!(
            name.as_str(),
            "valid-full.md"
                | "bom-crlf.md"
                | "injection.md"
                | "multi-document.md"
                | "tags-and-anchors.md"
                // Duplicate keys are a warning; the last one wins, as in PyYAML.
                | "duplicate-keys.md"
        );
        assert_eq!(
            outcome.skill.is_some(),
            expect_skill,
            "{name}: {:?}",
            outcome.diagnostics
        );
    }
}

#[test]
fn alias_bombs_and_deep_nesting_are_refused_cheaply() {
    for name in ["alias-bomb.md", "deep-flow.md"] {
        let (outcome, peak) = peak_bytes(|| parse_checked(&seed(name)));
        assert!(outcome.skill.is_none(), "{name}");
        let message = &outcome.diagnostics[0].message;
        assert!(
            ["repetition", "nodes", "deeper", "recursion"]
                .iter()
                .any(|w| message.contains(w)),
            "{name}: {message}"
        );
        // The YAML reader stops at 100,000 nodes: a few MiB at most.
        assert!(peak < 16 << 20, "{name} took {peak} bytes");
    }
    // Nine levels of nine aliases would be 387 million nodes if expanded.
    let bomb = seed("alias-bomb.md");
    let (_, peak) = peak_bytes(|| frontmatter_json(&bomb));
    assert!(peak < 16 << 20, "frontmatter_json took {peak} bytes");
}

#[test]
fn a_ten_mib_single_line_is_bounded() {
    let line = "a".repeat(10 * 1024 * 1024 - 200);
    // In the description: loaded, cut to the limit.
    let md = format!("---\nname: x\ndescription: {line}\n---\n");
    assert!(md.len() as u64 <= MAX_SKILL_FILE_SIZE);
    let (outcome, peak) = peak_bytes(|| parse_checked(md.as_bytes()));
    assert_eq!(outcome.skill.unwrap().description.len(), MAX_SKILL_DESCRIPTION_LENGTH);
    assert!(peak < 64 << 20, "took {peak} bytes for a 10 MiB file");
    // In the body: the frontmatter is all that is parsed.
    let md = format!("---\nname: x\ndescription: d\n---\n{line}");
    let (outcome, peak) = peak_bytes(|| parse_checked(md.as_bytes()));
    assert!(outcome.skill.is_some());
    assert!(peak < 64 << 20, "took {peak} bytes for a 10 MiB body");
    // A line with no end and no closing marker.
    let md = format!("---\nname: x\ndescription: {line}");
    assert!(parse_checked(md.as_bytes()).skill.is_none());
    // Over the file limit: refused without parsing.
    let mut big = md.into_bytes();
    big.resize(MAX_SKILL_FILE_SIZE as usize + 1, b'a');
    let (outcome, peak) = peak_bytes(|| parse_checked(&big));
    assert!(outcome.skill.is_none());
    assert!(peak < 1 << 20, "an oversized file was processed: {peak} bytes");
}

/// YAML-shaped noise: the characters that make YAML's grammar interesting.
fn yaml_noise() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "name: ",
        "description: ",
        "metadata:",
        "allowed-tools: ",
        "\n",
        "  ",
        "- ",
        ": ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&a ",
        "*a",
        "!!str ",
        "!!binary ",
        "!x ",
        "|",
        ">",
        "\"",
        "'",
        "#",
        "---",
        "...",
        "? ",
        "%YAML 1.2",
        "\t",
        "\0",
        "\u{feff}",
        "é",
        "\u{2028}",
        "\\",
        "x",
        "1.10",
        "~",
        "null",
        "true",
    ]);
    prop::collection::vec(pieces, 0..80).prop_map(|p| p.concat())
}

/// A seed with a few bytes flipped, inserted or removed.
fn mutated_seed() -> impl Strategy<Value = Vec<u8>> {
    let seeds: Vec<Vec<u8>> = corpus().into_iter().map(|(_, c)| c).collect();
    let edit = (any::<prop::sample::Index>(), 0u8..3, any::<u8>());
    (prop::sample::select(seeds), prop::collection::vec(edit, 1..8)).prop_map(|(mut bytes, edits)| {
        for (at, op, byte) in edits {
            let i = if bytes.is_empty() { 0 } else { at.index(bytes.len()) };
            match op {
                0 if !bytes.is_empty() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if !bytes.is_empty() => {
                    bytes.remove(i);
                }
                _ => bytes.push(byte),
            }
        }
        bytes
    })
}

proptest! {
    #[test]
    fn arbitrary_bytes_get_an_answer(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        parse_checked(&bytes);
        let mut framed = b"---\n".to_vec();
        framed.extend_from_slice(&bytes);
        framed.extend_from_slice(b"\n---\n");
        parse_checked(&framed);
    }

    #[test]
    fn yaml_shaped_frontmatter_gets_an_answer(yaml in yaml_noise(), body in ".{0,64}") {
        let md = format!("---\nname: x\ndescription: d\n{yaml}\n---\n{body}");
        parse_checked(md.as_bytes());
        let md = format!("---\n{yaml}\n---\n");
        parse_checked(md.as_bytes());
    }

    #[test]
    fn mutated_seeds_get_an_answer(bytes in mutated_seed()) {
        parse_checked(&bytes);
    }

    #[test]
    fn nesting_of_any_depth_is_bounded(depth in 1usize..20_000, flow in any::<bool>()) {
        let value = if flow {
            format!("{}{}", "[".repeat(depth), "]".repeat(depth))
        } else {
            format!("{}1", "{a: ".repeat(depth)) + &"}".repeat(depth)
        };
        let md = format!("---\nname: x\ndescription: d\nmetadata: {value}\n---\n");
        let (_, peak) = peak_bytes(|| parse_checked(md.as_bytes()));
        prop_assert!(peak < 16 << 20, "depth {depth} took {peak} bytes");
    }

    #[test]
    fn alias_fan_out_of_any_shape_is_bounded(levels in 1usize..12, fan in 1usize..12) {
        let mut md = String::from("---\nname: x\ndescription: d\nl0: &l0 [x]\n");
        for level in 1..=levels {
            let refs = vec![format!("*l{}", level - 1); fan].join(", ");
            md.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
        }
        md.push_str("---\n");
        let (_, peak) = peak_bytes(|| parse_checked(md.as_bytes()));
        prop_assert!(peak < 16 << 20, "{levels} levels of {fan}: {peak} bytes");
    }
}

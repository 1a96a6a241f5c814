//! Seeded skill libraries for benchmarks, and the measurements `cargo xtask bench`
//! compares: our discovery through the library and the CLI, deepagents' discovery, and a
//! floor that only reads every `SKILL.md`.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("skills-bench-doc-{}", std::process::id()));
//! let library = skills_bench::generate(&dir, 30, 7).unwrap();
//! assert_eq!(library.sources.len(), 3);
//! assert_eq!(library.skill_folders, 30);
//! assert_eq!(skills_bench::floor(&library.sources).unwrap().files, 30);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// The names of the three sources of a generated library, lowest priority first.
pub const SOURCES: [&str; 3] = ["base", "team", "project"];

/// Share of a later source's skills that reuse a name of an earlier source.
const OVERLAP_PERCENT: u64 = 30;
/// One skill in this many is invalid (about 2%), cycling through [`INVALID_KINDS`].
const INVALID_EVERY: usize = 50;
/// The ways a generated skill is broken.
pub const INVALID_KINDS: [&str; 5] = [
    "no-frontmatter",
    "invalid-yaml",
    "missing-description",
    "invalid-name",
    "frontmatter-not-a-mapping",
];
/// Approximate body size of a `SKILL.md`.
const BODY_BYTES: usize = 4 * 1024;

/// A generated library.
#[derive(Debug, Clone)]
pub struct Library {
    /// The three source directories, lowest priority first.
    pub sources: Vec<PathBuf>,
    /// Skill folders written over all sources (valid and invalid).
    pub skill_folders: usize,
    /// Skill folders written invalid on purpose.
    pub invalid: usize,
    /// Distinct names a lenient loader keeps (valid skills, and the uppercase-name ones,
    /// which the Agent Skills rules break but deepagents and this project load with a
    /// warning): what a merged catalog holds.
    pub distinct_names: usize,
}

/// splitmix64: small, seeded, and the same on every machine.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: [&str; 24] = [
    "review", "the", "change", "for", "bugs", "and", "missing", "tests", "then", "report", "each", "finding", "with",
    "its", "file", "line", "severity", "query", "plan", "index", "release", "notes", "source", "check",
];

fn words(rng: &mut Rng, bytes: usize, out: &mut String) {
    let start = out.len();
    while out.len() - start < bytes {
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
}

/// Writes a library of `skills` skill folders spread over three sources under `root`
/// (which is emptied first), from `seed`: about 30% of the skills of the second and third
/// sources reuse a name of an earlier source, every skill has a ~4 KiB `SKILL.md` and
/// three resources (a script, a reference, an asset), and about 2% are invalid in one of
/// five ways.
pub fn generate(root: &Path, skills: usize, seed: u64) -> io::Result<Library> {
    if root.exists() {
        std::fs::remove_dir_all(root)?;
    }
    let mut rng = Rng(seed);
    let mut names: Vec<String> = Vec::with_capacity(skills);
    let mut library = Library {
        sources: SOURCES.iter().map(|s| root.join(s)).collect(),
        skill_folders: 0,
        invalid: 0,
        distinct_names: 0,
    };
    let mut valid_names = std::collections::BTreeSet::new();
    // Names of earlier sources only: a reused name must not land twice in one source.
    let mut earlier = 0;
    let mut current = 0;
    let mut in_source = std::collections::HashSet::new();
    for i in 0..skills {
        let source = i * SOURCES.len() / skills.max(1);
        if source != current {
            current = source;
            earlier = names.len();
            in_source.clear();
        }
        let reused = (earlier > 0 && rng.below(100) < OVERLAP_PERCENT)
            .then(|| names[rng.below(earlier as u64) as usize].clone())
            .filter(|name| !in_source.contains(name));
        let name = if let Some(name) = reused {
            name
        } else {
            let name = format!("skill-{:05}", names.len());
            names.push(name.clone());
            name
        };
        in_source.insert(name.clone());
        let dir = library.sources[source].join(&name);
        std::fs::create_dir_all(&dir)?;
        let invalid =
            (i % INVALID_EVERY == INVALID_EVERY - 1).then(|| INVALID_KINDS[(i / INVALID_EVERY) % INVALID_KINDS.len()]);
        std::fs::write(dir.join("SKILL.md"), skill_md(&mut rng, &name, invalid))?;
        for (sub, file, text) in [
            ("scripts", "run.sh", "#!/bin/sh\necho \"running\"\n"),
            ("references", "guide.md", "# Guide\n\nWhat to check, in order.\n"),
            ("assets", "template.md", "## Finding\n\n- file:\n- severity:\n"),
        ] {
            std::fs::create_dir_all(dir.join(sub))?;
            std::fs::write(dir.join(sub).join(file), text)?;
        }
        library.skill_folders += 1;
        match invalid {
            Some("invalid-name") => {
                library.invalid += 1;
                valid_names.insert(name.to_uppercase());
            }
            Some(_) => library.invalid += 1,
            None => {
                valid_names.insert(name);
            }
        }
    }
    library.distinct_names = valid_names.len();
    for source in &library.sources {
        std::fs::create_dir_all(source)?;
    }
    Ok(library)
}

fn skill_md(rng: &mut Rng, name: &str, invalid: Option<&str>) -> String {
    let mut description = String::new();
    let length = 60 + rng.below(90) as usize;
    words(rng, length, &mut description);
    let description = description.replace('\n', " ").trim().to_owned();
    let mut md = String::with_capacity(BODY_BYTES + 512);
    match invalid {
        Some("no-frontmatter") => {}
        Some("invalid-yaml") => {
            let _ = write!(md, "---\nname: {name}\ndescription: [unclosed\n---\n");
        }
        Some("missing-description") => {
            let _ = write!(md, "---\nname: {name}\n---\n");
        }
        Some("invalid-name") => {
            let _ = write!(
                md,
                "---\nname: {}\ndescription: {description}\n---\n",
                name.to_uppercase()
            );
        }
        Some(_) => md.push_str("---\n- just\n- a list\n---\n"),
        None => {
            let _ = write!(md, "---\nname: {name}\ndescription: {description}\n");
            if rng.below(2) == 0 {
                md.push_str("license: Apache-2.0\n");
            }
            if rng.below(3) == 0 {
                md.push_str("allowed-tools: read_file grep\n");
            }
            if rng.below(4) == 0 {
                md.push_str("metadata:\n  owner: platform\n  version: \"1.2\"\n");
            }
            md.push_str("---\n");
        }
    }
    let _ = write!(md, "\n# {name}\n\n");
    words(rng, BODY_BYTES, &mut md);
    md.push('\n');
    md
}

/// What the floor read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FloorRead {
    /// `SKILL.md` files read.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The files whose parse gave a skill ([`parse_floor`] only; 0 for [`floor`]).
    pub parsed: usize,
}

impl std::ops::AddAssign for FloorRead {
    fn add_assign(&mut self, part: Self) {
        self.files += part.files;
        self.bytes += part.bytes;
        self.parsed += part.parsed;
    }
}

/// The floor: lists each source's folders and reads every `<folder>/SKILL.md`, nothing
/// else (no parsing, no resources). Any discovery has to do at least this much I/O.
pub fn floor(sources: &[PathBuf]) -> io::Result<FloorRead> {
    read_every_skill_file(sources, false)
}

/// [`floor`], each file also parsed as discovery parses it
/// ([`parse_skill_md`](skills_core::parse_skill_md)), on the same thread: what a
/// discovery without a cache has to do at least, on one core.
pub fn parse_floor(sources: &[PathBuf]) -> io::Result<FloorRead> {
    parse_floor_on(sources, 1)
}

/// [`parse_floor`] shared out over `threads` threads (the folders in as many equal runs,
/// in listing order): what a discovery without a cache has to do at least, spread over
/// the cores as discovery spreads it.
pub fn parse_floor_on(sources: &[PathBuf], threads: usize) -> io::Result<FloorRead> {
    let mut folders = Vec::new();
    for source in sources {
        for entry in std::fs::read_dir(source)? {
            folders.push(entry?.path());
        }
    }
    let per_thread = folders.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let runs: Vec<_> = folders
            .chunks(per_thread)
            .map(|run| scope.spawn(move || read_folders(run, true)))
            .collect();
        let mut read = FloorRead::default();
        for run in runs {
            read += run.join().map_err(|_| io::Error::other("a floor thread panicked"))??;
        }
        Ok(read)
    })
}

fn read_every_skill_file(sources: &[PathBuf], parse: bool) -> io::Result<FloorRead> {
    let mut read = FloorRead::default();
    for source in sources {
        for entry in std::fs::read_dir(source)? {
            read_folder(&entry?.path(), parse, &mut read)?;
        }
    }
    Ok(read)
}

/// Reads (and with `parse`, parses) `<folder>/SKILL.md` of each of `folders`.
fn read_folders(folders: &[PathBuf], parse: bool) -> io::Result<FloorRead> {
    let mut read = FloorRead::default();
    for folder in folders {
        read_folder(folder, parse, &mut read)?;
    }
    Ok(read)
}

/// Reads (and with `parse`, parses) `<folder>/SKILL.md`, counted into `read`.
fn read_folder(folder: &Path, parse: bool, read: &mut FloorRead) -> io::Result<()> {
    let path = folder.join("SKILL.md");
    match std::fs::read(&path) {
        Ok(bytes) => {
            read.files += 1;
            read.bytes += bytes.len() as u64;
            if parse {
                let folder_name = folder.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                let outcome = skills_core::parse_skill_md(&bytes, &path.to_string_lossy(), &folder_name);
                read.parsed += usize::from(outcome.skill.is_some());
            }
            Ok(())
        }
        // A file beside the skill folders (a README) has no SKILL.md below it.
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    files.push((rel, std::fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    }

    #[test]
    fn the_same_seed_writes_the_same_library() {
        let a = std::env::temp_dir().join(format!("skills-bench-a-{}", std::process::id()));
        let b = std::env::temp_dir().join(format!("skills-bench-b-{}", std::process::id()));
        generate(&a, 200, 42).unwrap();
        generate(&b, 200, 42).unwrap();
        assert_eq!(tree(&a), tree(&b));
        generate(&b, 200, 43).unwrap();
        assert_ne!(tree(&a), tree(&b));
        std::fs::remove_dir_all(a).unwrap();
        std::fs::remove_dir_all(b).unwrap();
    }

    #[test]
    fn the_library_has_the_promised_shape() {
        let root = std::env::temp_dir().join(format!("skills-bench-shape-{}", std::process::id()));
        let library = generate(&root, 1_000, 1).unwrap();
        assert_eq!(library.skill_folders, 1_000);
        assert_eq!(library.invalid, 20, "2% invalid");
        // Later sources reuse earlier names: fewer distinct names than loadable folders.
        let valid = library.skill_folders - library.invalid + 4; // 4 uppercase names load
        let overlap = (valid - library.distinct_names) as f64 / valid as f64;
        assert!((0.12..0.30).contains(&overlap), "overlap {overlap}");
        let read = floor(&library.sources).unwrap();
        assert_eq!(read.files, 1_000);
        let average = read.bytes / read.files as u64;
        assert!((4_000..5_000).contains(&average), "average SKILL.md {average} bytes");
        assert_eq!(read.parsed, 0, "the read floor parses nothing");
        let parsed = parse_floor(&library.sources).unwrap();
        assert_eq!((parsed.files, parsed.bytes), (read.files, read.bytes));
        assert_eq!(parsed.parsed, valid, "every loadable folder parses to a skill");
        for threads in [2, 3, 7] {
            assert_eq!(
                parse_floor_on(&library.sources, threads).unwrap(),
                parsed,
                "{threads} threads"
            );
        }
        std::fs::remove_dir_all(root).unwrap();
    }
}

//! The parse cache of the command line: what `skills` prints is the same cold, warm and
//! without the cache; an edit that keeps a file's size and mtime, a deleted skill and a
//! damaged cache file are never served stale, nor is a search after an edit (the kept
//! index brought to the edited library); `--no-cache` and `[cache] enabled = false`
//! keep nothing.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{md, stdout, write};

/// Runs `skills ARGS` in `cwd` with its parse caches in `cache`.
fn skills(cwd: &Path, cache: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd.join("home"))
        .env("SKILLS_CACHE_DIR", cache)
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {}", common::stderr(&output));
    output
}

fn cache_files(cache: &Path) -> usize {
    std::fs::read_dir(cache).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "cache"))
            .count()
    })
}

/// The inode of the parse cache file in `cache`.
fn cache_file_inode(cache: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let file = std::fs::read_dir(cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "cache"))
        .unwrap();
    std::fs::metadata(file).unwrap().ino()
}

/// A library of skills of every shape: warnings, a skipped file, extensions, nested
/// unknown fields, a name declared twice.
fn library(root: &Path) {
    write(root, "lib/web/SKILL.md", &md("web", "Search the web for pages"));
    write(
        root,
        "lib/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Ship the service\nargument-hint: <env>\nowners:\n  - {name: bo}\n---\nRun it.\n",
    );
    write(root, "lib/Mixed/SKILL.md", &md("mixed", "A folder named otherwise"));
    write(
        root,
        "lib/broken/SKILL.md",
        "---\nname: broken\ndescription: [unclosed\n---\n",
    );
    write(root, "lib/twin-a/SKILL.md", &md("twin", "First twin"));
    write(root, "lib/twin-b/SKILL.md", &md("twin", "Second twin, glaciers"));
}

/// Settled: the files changed longer ago than the cache's racy window (two seconds).
fn settle() {
    std::thread::sleep(Duration::from_millis(2_100));
}

#[test]
fn output_is_the_same_cold_warm_and_without_the_cache_and_never_stale() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    library(root.path());
    settle();
    let commands: [&[&str]; 3] = [
        &["list", "--json", "--source", "lib"],
        &["search", "glaciers", "--json", "--source", "lib"],
        &["prompt", "--source", "lib"],
    ];
    let run = |args: &[&str]| {
        let output = skills(root.path(), &cache, args);
        (stdout(&output), common::stderr(&output))
    };
    let without = |args: &[&str]| run(&[args, &["--no-cache"]].concat());
    for args in commands {
        let plain = without(args);
        assert_eq!(run(args), plain, "cold {args:?}");
        assert_eq!(run(args), plain, "warm {args:?}");
    }
    assert_eq!(cache_files(&cache), 1, "one file for the one source and settings");
    // A warm run finds every parse in the cache: it has nothing new to write, so the
    // file is the one the cold run wrote (a rewrite renames a new file over it).
    let written = cache_file_inode(&cache);
    run(commands[0]);
    assert_eq!(cache_file_inode(&cache), written, "a warm run rewrote the cache");

    // An edit that keeps the size and the mtime of the file (`touch -d`, `rsync -t`).
    let web = root.path().join("lib/web/SKILL.md");
    let mtime = std::fs::metadata(&web).unwrap().modified().unwrap();
    let edited = std::fs::read_to_string(&web).unwrap().replace("Search", "Scrape");
    std::fs::write(&web, edited).unwrap();
    let file = std::fs::File::options().write(true).open(&web).unwrap();
    file.set_times(std::fs::FileTimes::new().set_modified(mtime)).unwrap();
    let listed = run(commands[0]);
    assert!(listed.0.contains("Scrape the web"), "{}", listed.0);
    assert_eq!(listed, without(commands[0]));

    // A deleted skill, and a cache file damaged in every way.
    std::fs::remove_dir_all(root.path().join("lib/deploy")).unwrap();
    let listed = run(commands[0]);
    assert!(!listed.0.contains("\"deploy\""));
    let cache_file = std::fs::read_dir(&cache).unwrap().flatten().next().unwrap().path();
    for damage in [&b""[..], b"agent-skills parse cache\n", b"\xff\xfe garbage"] {
        std::fs::write(&cache_file, damage).unwrap();
        assert_eq!(run(commands[0]), without(commands[0]), "{damage:?}");
    }
}

#[test]
fn no_cache_and_a_disabled_cache_keep_nothing() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    library(root.path());
    // Settled, so that a cache would keep even a listing and an answer.
    settle();
    skills(root.path(), &cache, &["list", "--source", "lib", "--no-cache"]);
    skills(root.path(), &cache, &["search", "web", "--source", "lib", "--no-cache"]);
    assert_eq!(cache_files(&cache), 0);
    assert!(files_ending(&cache, ".answer").is_empty(), "no answer kept");

    write(
        root.path(),
        "skills.toml",
        "[cache]\nenabled = false\n\n[[source]]\nlocation = \"lib\"\n",
    );
    let listed = skills(root.path(), &cache, &["list", "--json"]);
    assert!(stdout(&listed).contains("\"web\""));
    assert_eq!(cache_files(&cache), 0, "[cache] enabled = false");
    assert!(files_ending(&cache, ".answer").is_empty(), "no answer kept");

    write(root.path(), "skills.toml", "[[source]]\nlocation = \"lib\"\n");
    skills(root.path(), &cache, &["list", "--json"]);
    assert_eq!(cache_files(&cache), 1, "the cache is on by default");
    assert_eq!(files_ending(&cache, ".answer").len(), 1, "and keeps the answer");
}

#[test]
fn a_search_after_each_edit_answers_as_one_without_the_cache() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let topics = ["glaciers", "harbours", "lanterns", "orchards", "comets", "tunnels"];
    for (i, topic) in topics.iter().enumerate() {
        let name = format!("skill-{i}");
        let text = format!(
            "---\nname: {name}\ndescription: Plans trips to {topic}\n---\nWalk past the {} first.\n",
            topics[(i + 1) % topics.len()]
        );
        write(root.path(), &format!("lib/{name}/SKILL.md"), &text);
    }
    settle();
    let searches = ["glaciers harbours", "plans trips past comets", "zeppelins", "lanterns"];
    let run = |query: &str, more: &[&str]| {
        let args = [&["search", query, "--json", "--explain", "--source", "lib"], more].concat();
        stdout(&skills(root.path(), &cache, &args))
    };
    let check = |what: &str| {
        for query in searches {
            assert_eq!(run(query, &[]), run(query, &["--no-cache"]), "{what}: {query:?}");
        }
    };
    // The names a search finds, best first.
    let found = |query: &str| -> Vec<String> {
        let hits: serde_json::Value = serde_json::from_str(&run(query, &[])).unwrap();
        let hits = hits.as_array().unwrap().iter();
        hits.map(|h| h["name"].as_str().unwrap().to_owned()).collect()
    };
    let edit = |skill: &str, from: &str, to: &str| {
        let file = root.path().join("lib").join(skill).join("SKILL.md");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{skill}: {from:?}");
        std::fs::write(&file, text.replace(from, to)).unwrap();
    };
    check("cold");
    check("warm");
    assert!(found("zeppelins").is_empty());
    assert!(found("lanterns").contains(&"skill-1".to_owned()), "its body");
    // Each edit leaves the kept index of the library before it: the body of a skill,
    // a description reworded at the same length, a skill added, one removed.
    edit("skill-1", "Walk past the lanterns", "Walk past the zeppelins");
    check("a body edited");
    assert_eq!(found("zeppelins"), ["skill-1"], "the new body is found");
    assert!(
        !found("lanterns").contains(&"skill-1".to_owned()),
        "the old body is not"
    );
    edit("skill-2", "to lanterns", "to glaciers");
    check("a description reworded");
    write(
        root.path(),
        "lib/skill-9/SKILL.md",
        &md("skill-9", "Plans trips to harbours"),
    );
    check("a skill added");
    std::fs::remove_dir_all(root.path().join("lib/skill-0")).unwrap();
    check("a skill removed");
    assert!(!found("glaciers harbours").contains(&"skill-0".to_owned()));
}

/// The files of the cache folder `cache` whose names end with `ext`.
fn files_ending(cache: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache).map_or_else(
        |_| Vec::new(),
        |entries| {
            let paths = entries.flatten().map(|e| e.path());
            paths.filter(|p| p.to_string_lossy().ends_with(ext)).collect()
        },
    )
}

#[test]
fn a_kept_answer_is_printed_for_the_same_files_only() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    library(root.path());
    write(
        root.path(),
        "skills.toml",
        "[[source]]\nlocation = \"lib\"\n\n[views.ops]\ninclude = [\"deploy\", \"nowhere\"]\n",
    );
    settle();
    let commands: [&[&str]; 4] = [
        &["list", "--json"],
        &["list"],
        &["list", "--json", "--view", "ops"],
        &["list", "--view", "ops"],
    ];
    let run = |args: &[&str]| {
        let output = skills(root.path(), &cache, args);
        (stdout(&output), common::stderr(&output), output.status.code())
    };
    let without = |args: &[&str]| run(&[args, &["--no-cache"]].concat());
    for args in commands {
        let plain = without(args);
        assert!(plain.1.contains("name-mismatch"), "{args:?}: {}", plain.1);
        assert_eq!(run(args), plain, "first {args:?}");
        assert_eq!(run(args), plain, "kept {args:?}");
    }
    assert!(without(commands[2]).1.contains("nowhere"), "the view's warning");
    assert_eq!(
        files_ending(&cache, ".answer").len(),
        commands.len(),
        "one answer per question"
    );

    // Answered, the kept listing is not even read: damaged, it stays as it is.
    let listing = files_ending(&cache, ".listing").pop().unwrap();
    std::fs::write(&listing, b"damaged").unwrap();
    assert_eq!(run(commands[0]), without(commands[0]));
    assert_eq!(std::fs::read(&listing).unwrap(), b"damaged", "the answer was printed");

    // An edit that keeps the size and the mtime of a file.
    let web = root.path().join("lib/web/SKILL.md");
    let mtime = std::fs::metadata(&web).unwrap().modified().unwrap();
    std::fs::write(&web, md("web", "Scrape the web for pages")).unwrap();
    let file = std::fs::File::options().write(true).open(&web).unwrap();
    file.set_times(std::fs::FileTimes::new().set_modified(mtime)).unwrap();
    for args in commands {
        let listed = run(args);
        assert_eq!(listed, without(args), "edited: {args:?}");
    }
    assert!(run(commands[0]).0.contains("Scrape the web"));
    // A skill deleted, one added.
    std::fs::remove_dir_all(root.path().join("lib/deploy")).unwrap();
    write(root.path(), "lib/csv/SKILL.md", &md("csv", "Sort rows"));
    for args in commands {
        assert_eq!(run(args), without(args), "deleted and added: {args:?}");
    }
    // Answer files damaged every way.
    for damage in [&b""[..], b"agent-skills cache\n2\n", b"\xff\xfe garbage"] {
        for answer in files_ending(&cache, ".answer") {
            std::fs::write(answer, damage).unwrap();
        }
        for args in commands {
            assert_eq!(run(args), without(args), "{damage:?} {args:?}");
        }
    }
}

#[test]
#[cfg(unix)]
fn a_first_list_into_a_closed_pipe_keeps_its_answer_whole() {
    use std::io::Read as _;
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    // More than a pipe holds, so that the process meets the closed pipe.
    for i in 0..600 {
        let name = format!("skill-{i:03}");
        write(
            root.path(),
            &format!("lib/{name}/SKILL.md"),
            &md(&name, "Prints enough to fill a pipe"),
        );
    }
    settle();
    let args = ["list", "--json", "--source", "lib"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .current_dir(root.path())
        .env("HOME", root.path().join("home"))
        .env("SKILLS_CACHE_DIR", &cache)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = [0; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reading end closed after 16 bytes.
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt as _;
    assert!(
        status.signal() == Some(libc::SIGPIPE) || status.code() == Some(0),
        "{status:?}"
    );
    assert!(files_ending(&cache, ".tmp").is_empty(), "a temporary file was left");
    assert_eq!(files_ending(&cache, ".answer").len(), 1, "the answer was kept whole");
    let listing = files_ending(&cache, ".listing").pop().unwrap();
    std::fs::write(&listing, b"damaged").unwrap();
    let plain = skills(root.path(), &cache, &[&args[..], &["--no-cache"]].concat());
    let answered = skills(root.path(), &cache, &args);
    assert_eq!(stdout(&answered), stdout(&plain));
    assert!(stdout(&plain).starts_with(std::str::from_utf8(&first).unwrap()));
    assert_eq!(
        std::fs::read(&listing).unwrap(),
        b"damaged",
        "the kept answer was printed"
    );
}

#[test]
#[cfg(unix)]
fn a_hard_link_policy_is_never_answered_from_what_another_policy_read() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    write(root.path(), "outside/web.md", &md("web", "Search the web"));
    std::fs::create_dir_all(root.path().join("lib/web")).unwrap();
    std::fs::hard_link(root.path().join("outside/web.md"), root.path().join("lib/web/SKILL.md")).unwrap();
    write(root.path(), "lib/pdf/SKILL.md", &md("pdf", "Read PDF files"));
    settle();
    let run = |args: &[&str]| {
        let output = skills(root.path(), &cache, args);
        (stdout(&output), common::stderr(&output))
    };
    for policy in ["same-owner", "refuse", "same-owner", "refuse"] {
        for json in [&["--json"][..], &[]] {
            let args = [&["list", "--source", "lib", "--hard-links", policy][..], json].concat();
            let plain = run(&[&args[..], &["--no-cache"]].concat());
            assert_eq!(plain.0.contains("web"), policy == "same-owner", "{plain:?}");
            assert_eq!(run(&args), plain, "{policy} {json:?}");
        }
    }
}

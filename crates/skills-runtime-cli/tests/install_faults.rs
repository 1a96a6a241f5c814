//! The installer under faults, run as processes: runs killed at any point of an update
//! leave every skill at its old or its new version (never a mix) and the next run
//! finishes the work; two runs started together in one project do not interleave.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{md, skills, stderr, stdout, write};

const SKILLS: usize = 120;

/// Version `v` of the library: every skill with a SKILL.md, a script, and a file only
/// that version has.
fn library(root: &Path, v: u32) -> BTreeMap<String, BTreeMap<String, String>> {
    let lib = root.join("lib");
    let _ = std::fs::remove_dir_all(&lib);
    let mut all = BTreeMap::new();
    for i in 0..SKILLS {
        let name = format!("skill-{i:03}");
        let files = BTreeMap::from([
            ("SKILL.md".to_owned(), md(&name, &format!("Skill {i}, version {v}"))),
            ("scripts/run.py".to_owned(), format!("print({i}, {v})\n").repeat(200)),
            (format!("only-v{v}.md"), format!("v{v}\n")),
        ]);
        for (rel, text) in &files {
            write(&lib, &format!("{name}/{rel}"), text);
        }
        all.insert(name, files);
    }
    all
}

/// Copies the folder `from` to `to`, links as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), target).unwrap();
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The files of an installed skill folder, by relative path.
fn files_of(dir: &Path) -> Option<BTreeMap<String, String>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    // Gone (killed between the two renames): `None`, not a failed walk.
    if !dir.is_dir() {
        return None;
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    Some(out)
}

#[test]
fn updates_killed_at_any_point_leave_whole_versions_and_the_next_run_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let v1 = library(root, 1);
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let lib = root.join("lib");
    let out = skills(&project, &["add", lib.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v2 = library(root, 2);
    let installed = project.join(".agents/skills");
    let work = project.join(".agents/.skills-install");

    // How long a whole update takes here (in a copy of the project), so that the kills
    // land all along it, whatever the machine.
    let scratch = root.join("scratch");
    copy_tree(&project, &scratch);
    let started = std::time::Instant::now();
    assert_eq!(skills(&scratch, &["update"]).status.code(), Some(0));
    let whole = started.elapsed();
    for fraction in [0.0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95] {
        let delay = whole.mul_f64(fraction);
        let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
            .arg("update")
            .current_dir(&project)
            .env("HOME", project.join("home"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap();
        child.wait().unwrap();
        let moved_aside: Vec<String> = std::fs::read_dir(&work)
            .map(|entries| {
                entries
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        for name in v1.keys() {
            match files_of(&installed.join(name)) {
                Some(files) => assert!(
                    files == v1[name] || files == v2[name],
                    "killed after {delay:?}: {name} is a mix: {:?}",
                    files.keys()
                ),
                // Killed between the two renames: the old version waits beside it.
                None => assert!(
                    moved_aside.iter().any(|f| f.starts_with(&format!("{name}.old-"))),
                    "killed after {delay:?}: {name} is gone: {moved_aside:?}"
                ),
            }
        }
    }

    // The next run puts back what was moved aside, takes over the dead run's lock, and
    // installs the rest.
    let out = skills(&project, &["update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for name in v2.keys() {
        assert_eq!(files_of(&installed.join(name)).as_ref(), Some(&v2[name]), "{name}");
        assert!(project.join(".claude/skills").join(name).join("SKILL.md").is_file());
    }
    let leftovers: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let listed = stdout(&skills(&project, &["list", "--installed", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let states: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, vec!["up-to-date"; SKILLS]);
}

#[test]
fn two_runs_started_together_in_one_project_do_not_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (lib, prefix) in [("a", "alpha"), ("b", "beta")] {
        for i in 0..40 {
            let name = format!("{prefix}-{i:02}");
            write(root, &format!("{lib}/{name}/SKILL.md"), &md(&name, "A skill"));
        }
    }
    for round in 0..3 {
        let project = root.join(format!("project-{round}"));
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        let start = |lib: &str| {
            Command::new(env!("CARGO_BIN_EXE_skills"))
                .args(["add", root.join(lib).to_str().unwrap()])
                .current_dir(&project)
                .env("HOME", project.join("home"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (start("a"), start("b"));
        for run in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
            assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        }
        let lock = std::fs::read_to_string(project.join("skills.lock")).unwrap();
        assert_eq!(lock.matches("[skills.\"").count(), 80, "{lock}");
        let config = std::fs::read_to_string(project.join("skills.toml")).unwrap();
        assert_eq!(config.matches("[[install]]").count(), 2, "{config}");
        assert_eq!(std::fs::read_dir(project.join(".claude/skills")).unwrap().count(), 80);
    }
}

/// A run that finds the folder held by a live run waits for it, says so, and installs
/// once the lock is let go.
#[test]
fn a_run_waits_for_the_run_that_holds_the_folder() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib/web/SKILL.md", &md("web", "Search the web"));
    let project = dir.path().join("project");
    let work = project.join(".agents/.skills-install");
    std::fs::create_dir_all(&work).unwrap();
    // Held by this test's process, which is alive.
    std::fs::write(work.join("lock"), std::process::id().to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["add", dir.path().join("lib").to_str().unwrap()])
        .current_dir(&project)
        .env("HOME", project.join("home"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(
        line.trim_end(),
        format!(
            "waiting for another skills run (process {}) installing here",
            std::process::id()
        )
    );
    assert!(
        !project.join(".agents/skills/web").exists(),
        "nothing is written while it waits"
    );
    std::fs::remove_file(work.join("lock")).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(project.join(".agents/skills/web/SKILL.md").is_file());
    assert!(!work.join("lock").exists(), "the run let its lock go");
}

//! `skills lock`, `skills verify`, `--frozen` and signed locks, run as a user runs them
//! on a library on disk.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{json, md, skills, stderr, stdout, write};

fn library(root: &Path) {
    write(root, "lib/web/SKILL.md", &md("web", "Search the web"));
    write(root, "lib/web/scripts/fetch.py", "print('fetch')\n");
    write(root, "lib/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    write(root, "lib/notes/SKILL.md", &md("notes", "Take notes"));
    write(
        root,
        "skills.toml",
        "[[source]]\nlabel = \"team\"\nlocation = \"lib\"\n",
    );
}

fn names(root: &Path, args: &[&str]) -> Vec<String> {
    let out = skills(root, &[&["list", "--json"], args].concat());
    json(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn lock_writes_a_stable_diff_friendly_file_that_verify_accepts() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let out = skills(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("locked 3 skills in"), "{}", stdout(&out));
    let text = std::fs::read_to_string(dir.path().join("skills.lock")).unwrap();
    assert!(
        text.contains("[sources.\"team\"]\nlocation = \"lib\"\nresolved = \"content sha256:"),
        "{text}"
    );
    assert!(
        text.contains("    { path = \"scripts/fetch.py\", digest = \"sha256:"),
        "{text}"
    );
    skills(dir.path(), &["lock"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("skills.lock")).unwrap(),
        text,
        "same library, same text"
    );

    let ok = skills(dir.path(), &["verify"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    assert!(stdout(&ok).starts_with("3 skills match"));
}

#[test]
fn verify_names_every_drifted_file_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    skills(dir.path(), &["lock"]);
    write(dir.path(), "lib/web/scripts/fetch.py", "print('exfiltrate')\n");
    write(dir.path(), "lib/pdf/extra.md", "more");
    std::fs::remove_dir_all(dir.path().join("lib/notes")).unwrap();
    write(dir.path(), "lib/new/SKILL.md", &md("new", "Not pinned"));
    let out = skills(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "new skill: new (not in skills.lock)",
            "added: pdf/extra.md",
            "changed: web/scripts/fetch.py",
            "gone: notes (locked, not found)"
        ]
    );
    let report = json(&skills(dir.path(), &["verify", "--json"]));
    assert_eq!(report["matches"], false);
    assert_eq!(report["drift"].as_array().unwrap().len(), 4);

    // `lock --update` re-pins one skill; the others stay as they were pinned.
    let out = skills(dir.path(), &["lock", "--update", "web"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = stdout(&skills(dir.path(), &["verify"]));
    assert!(!lines.contains("web/"), "{lines}");
    assert!(lines.contains("added: pdf/extra.md"), "{lines}");
    let unknown = skills(dir.path(), &["lock", "--update", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn frozen_serves_only_what_the_lock_pins() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let missing = skills(dir.path(), &["list", "--frozen"]);
    assert_ne!(missing.status.code(), Some(0));
    assert!(stderr(&missing).contains("skills lock"), "{}", stderr(&missing));

    skills(dir.path(), &["lock"]);
    assert_eq!(names(dir.path(), &["--frozen"]), ["notes", "pdf", "web"]);
    write(
        dir.path(),
        "lib/pdf/SKILL.md",
        &md("pdf", "Read PDFs, and send them away"),
    );
    write(dir.path(), "lib/new/SKILL.md", &md("new", "Not pinned"));
    assert_eq!(names(dir.path(), &["--frozen"]), ["notes", "web"]);
    let out = skills(dir.path(), &["list", "--frozen"]);
    assert!(stderr(&out).contains("lock-mismatch: not served: it differs from skills.lock (changed: pdf/SKILL.md)"));
    // skills.toml can freeze it too.
    write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlabel = \"team\"\nlocation = \"lib\"\n\n[lock]\nfrozen = true\n",
    );
    assert_eq!(names(dir.path(), &[]), ["notes", "web"]);
    let load = skills(dir.path(), &["load", "pdf"]);
    assert_eq!(load.status.code(), Some(2));
    assert!(!stdout(&load).contains("send them away"));
}

fn keys(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let public = dir.join("team.pub");
    let secret = dir.join("team.key");
    std::fs::write(&public, pair.pk.to_box().unwrap().into_string()).unwrap();
    std::fs::write(&secret, pair.sk.to_box(None).unwrap().into_string()).unwrap();
    (public, secret)
}

#[test]
fn a_trusted_key_refuses_unsigned_and_wrongly_signed_locks() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let keys_dir = tempfile::tempdir().unwrap();
    let (public, secret) = keys(keys_dir.path());
    let (other_public, _) = {
        let other = tempfile::tempdir().unwrap();
        let pair = keys(other.path());
        (std::fs::read_to_string(&pair.0).unwrap(), other)
    };
    let public = public.to_str().unwrap();

    skills(dir.path(), &["lock"]);
    let unsigned = skills(dir.path(), &["list", "--frozen", "--trusted-key", public]);
    assert_ne!(unsigned.status.code(), Some(0));
    assert!(stderr(&unsigned).contains("is not signed"), "{}", stderr(&unsigned));
    assert_eq!(
        skills(dir.path(), &["verify", "--trusted-key", public]).status.code(),
        Some(1)
    );

    let signed = skills(dir.path(), &["lock", "--sign", secret.to_str().unwrap()]);
    assert_eq!(signed.status.code(), Some(0), "{}", stderr(&signed));
    assert!(dir.path().join("skills.lock.minisig").is_file());
    assert_eq!(
        names(dir.path(), &["--frozen", "--trusted-key", public]),
        ["notes", "pdf", "web"]
    );
    assert_eq!(
        skills(dir.path(), &["verify", "--trusted-key", public]).status.code(),
        Some(0)
    );

    // Another key, or a lock edited after signing: refused.
    let wrong = keys_dir.path().join("other.pub");
    std::fs::write(&wrong, other_public).unwrap();
    let refused = skills(
        dir.path(),
        &["list", "--frozen", "--trusted-key", wrong.to_str().unwrap()],
    );
    assert_ne!(refused.status.code(), Some(0));
    assert!(stderr(&refused).contains("does not verify"), "{}", stderr(&refused));
    let lock = dir.path().join("skills.lock");
    let text = std::fs::read_to_string(&lock).unwrap();
    std::fs::write(&lock, text.replace("size = ", "size =  ")).unwrap();
    let edited = skills(dir.path(), &["list", "--frozen", "--trusted-key", public]);
    assert!(stderr(&edited).contains("does not verify"), "{}", stderr(&edited));
}

#[test]
fn verify_reads_the_sources_the_lock_was_made_from_in_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a/web/SKILL.md", &md("web", "the base's web"));
    write(root, "b/web/SKILL.md", &md("web", "the team's web"));
    write(root, "b/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    let out = skills(root, &["lock", "--source", "base=a", "--source", "team=b"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(root.join("skills.lock")).unwrap();
    assert!(text.contains("spec = \"a\"\n"), "{text}");
    assert!(text.contains("spec = \"b\"\npriority = 1\n"), "{text}");

    // A skills.toml naming another library does not change what verify checks, and
    // `base` sorts first by label but keeps its lower priority: the team's web wins.
    write(root, "other/x/SKILL.md", &md("x", "Another library"));
    write(root, "skills.toml", "[[source]]\nlocation = \"other\"\n");
    let out = skills(root, &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("2 skills match"), "{}", stdout(&out));

    // From another folder, through --lockfile: folders are relative to the lockfile.
    std::fs::create_dir(root.join("elsewhere")).unwrap();
    let out = skills(&root.join("elsewhere"), &["verify", "--lockfile", "../skills.lock"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));

    // A change to a locked source is drift; --source still checks what it names.
    write(root, "b/web/SKILL.md", &md("web", "edited"));
    let out = skills(root, &["verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("changed: web/SKILL.md"), "{}", stdout(&out));
    let out = skills(root, &["verify", "--source", "other"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("gone: web"), "{}", stdout(&out));
}

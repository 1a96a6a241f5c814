//! The `skills` binary on an HTTP registry (`.well-known/agent-skills`) served on
//! 127.0.0.1: discovery from its index, a tampered file refused.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::process::Command;

use common::{json, md, stderr, strings};
use skills_backend_http::test_server::Registry;
use skills_runtime::digest::sha256_text;

async fn skills(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || Command::new(env!("CARGO_BIN_EXE_skills")).args(args).output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_load_read_a_registry_and_refuse_a_tampered_file() {
    let (registry, _) = common::registry_with_a_tampered_skill();
    let url = registry.start().await;
    let source = format!("team={url}");

    let out = skills(vec!["list".into(), "--json".into(), "--source".into(), source.clone()]).await;
    let listed = json(&out);
    assert_eq!(strings(&listed, "name"), ["web"]);
    assert_eq!(listed[0]["source"], "team");
    assert!(
        stderr(&out).contains("does not match the digest the index gives"),
        "{}",
        stderr(&out)
    );
    let out = skills(vec!["load".into(), "web".into(), "--source".into(), source.clone()]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("description: Search the web"));

    let refused = skills(vec!["list".into(), "--source".into(), "http://example.com/".into()]).await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("loopback"), "{}", stderr(&refused));
}

/// Every file under `root`, as (URL path, bytes).
fn files_under(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.push((format!("/{rel}"), std::fs::read(&path).unwrap()));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_well_known_writes_a_registry_that_reads_back_as_the_library() {
    let dir = tempfile::tempdir().unwrap();
    common::write(dir.path(), "lib/web/SKILL.md", &md("web", "Search the web"));
    common::write(dir.path(), "lib/web/scripts/fetch.py", "print('fetch')\n");
    common::write(dir.path(), "lib/notes/SKILL.md", &md("notes", "Take notes"));
    common::write(
        dir.path(),
        "lib/daily/SKILL.md",
        &md("Daily log", "A name with a space"),
    );
    common::write(
        dir.path(),
        "lib/ci-cd/SKILL.md",
        &md("CI/CD helper", "No folder can be named so"),
    );
    let site = dir.path().join("site");
    let lib = dir.path().join("lib");
    let args = vec![
        "publish".to_owned(),
        lib.to_str().unwrap().to_owned(),
        "--well-known".to_owned(),
        site.to_str().unwrap().to_owned(),
    ];
    let out = skills(args.clone()).await;
    assert_eq!(
        out.status.code(),
        Some(2),
        "one skill cannot be published: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("error: CI/CD helper: not published"),
        "{}",
        stderr(&out)
    );
    let index = std::fs::read_to_string(site.join(".well-known/agent-skills/index.json")).unwrap();
    assert!(
        index.contains("\"type\": \"skill-md\"") && index.contains("\"type\": \"archive\""),
        "{index}"
    );
    assert!(index.contains("\"url\": \"Daily%20log/SKILL.md\""), "{index}");
    // Deterministic: publishing again writes the same bytes.
    let archive = std::fs::read(site.join(".well-known/agent-skills/web.tar.gz")).unwrap();
    skills(args).await;
    assert_eq!(
        std::fs::read(site.join(".well-known/agent-skills/web.tar.gz")).unwrap(),
        archive
    );

    let registry = Registry::default();
    let mut served = Vec::new();
    files_under(&site, &site, &mut served);
    for (path, bytes) in served {
        // The test server matches request paths as sent: percent-encoded.
        registry.put(&path.replace(' ', "%20"), bytes);
    }
    let url = registry.start().await;
    let listed = json(
        &skills(vec![
            "list".into(),
            "--json".into(),
            "--resources".into(),
            "--source".into(),
            url.clone(),
        ])
        .await,
    );
    assert_eq!(strings(&listed, "name"), ["Daily log", "notes", "web"]);
    assert_eq!(listed[2]["resources"]["scripts"], 1);
    let loaded = skills(vec!["load".into(), "web".into(), "--source".into(), url]).await;
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("[script] `/web/scripts/fetch.py`"));
}

/// Without a location, `publish --well-known` publishes the command's sources merged as
/// every command merges them (the last wins), from `--source` or a `skills.toml`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_well_known_of_the_merged_sources_of_source_flags_or_a_config() {
    let dir = tempfile::tempdir().unwrap();
    common::write(dir.path(), "base/web/SKILL.md", &md("web", "the base's web"));
    common::write(dir.path(), "base/pdf/SKILL.md", &md("pdf", "Read PDFs"));
    common::write(dir.path(), "team/web/SKILL.md", &md("web", "the team's web"));
    let path = |rel: &str| dir.path().join(rel).to_str().unwrap().to_owned();
    let site = path("site");
    let out = skills(
        [
            "publish",
            "--well-known",
            &site,
            "--source",
            &path("base"),
            "--source",
            &path("team"),
        ]
        .map(String::from)
        .to_vec(),
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let web = std::fs::read_to_string(dir.path().join("site/.well-known/agent-skills/web/SKILL.md")).unwrap();
    assert!(web.contains("the team's web"), "{web}");
    assert!(dir.path().join("site/.well-known/agent-skills/pdf/SKILL.md").is_file());

    common::write(
        dir.path(),
        "skills.toml",
        "[[source]]\nlocation = \"team\"\n\n[[source]]\nlocation = \"base\"\n",
    );
    let config = path("skills.toml");
    let site = path("site2");
    let out = skills(
        ["publish", "--well-known", &site, "--config", &config]
            .map(String::from)
            .to_vec(),
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let web = std::fs::read_to_string(dir.path().join("site2/.well-known/agent-skills/web/SKILL.md")).unwrap();
    assert!(web.contains("the base's web"), "the config puts base last: {web}");

    // LOCATION indexes one library: --source goes with --well-known only.
    let out = skills(
        ["publish", &path("base"), "--source", &path("team")]
            .map(String::from)
            .to_vec(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--source goes with --well-known"),
        "{}",
        stderr(&out)
    );
}

/// A `.tar.gz` of `(path, bytes)` entries written as given (a path with `..` too, which
/// an honest archiver refuses to write).
fn tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (path, bytes) in entries {
        let mut header = tar::Header::new_old();
        header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, *bytes).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// `skills add` of a registry whose archive climbs out of its folder: refused, with the
/// entry named, and nothing written into the project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_refuses_an_archive_that_climbs_out_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let registry = Registry::default();
    let skill = md("web", "Search the web");
    let archive = tar_gz(&[
        ("web/SKILL.md", skill.as_bytes()),
        ("web/../../escape.sh", b"rm -rf ~\n"),
    ]);
    let index = format!(
        r#"{{"skills": [{{"name": "web", "type": "archive", "description": "Search", "url": "web.tar.gz", "digest": "{}"}}]}}"#,
        sha256_text(&archive)
    );
    registry.put("/.well-known/agent-skills/web.tar.gz", archive);
    registry.put("/.well-known/agent-skills/index.json", index);
    let url = registry.start().await;
    let project_dir = project.clone();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(["add", &url, "--skill", "web"])
            .current_dir(&project_dir)
            .env("HOME", project_dir.join("home"))
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("leaves the skill's folder"), "{}", stderr(&out));
    assert!(!project.join(".agents").exists() && !project.join("skills.lock").exists());
    assert!(!dir.path().join("escape.sh").exists());
}

//! Archive entries of an HTTP registry: `.tar.gz` and `.zip` skills unpacked and served
//! with their resources; hostile archives (a `..` path, a link, too many bytes) and a
//! digest mismatch refused.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::io::Write;
use std::sync::Arc;

use skills_backend_http::HttpRegistryBackend;
use skills_backend_http::test_server::Registry;
use skills_catalog::{LoadAnswer, SkillCatalog, SkillSource, load_skill};
use skills_core::digest::sha256_text;
use skills_core::{DiagnosticKind, FileErrorKind};

const PREFIX: &str = "/.well-known/agent-skills";

fn md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill\n---\nRun scripts/run.sh.\n")
}

/// A gzip-compressed tar of `(path, content)`; a path is written as given, `..` too.
fn tar_gz(files: &[(&str, &[u8])], link: Option<&str>) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (path, content) in files {
        let mut header = tar::Header::new_gnu();
        let name = &mut header.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, *content).unwrap();
    }
    if let Some(target) = link {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        builder.append_link(&mut header, "escape", target).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, content) in files {
        writer
            .start_file(*path, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(content).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn entry(name: &str, url: &str, digest: &str) -> String {
    format!(r#"{{"name": "{name}", "type": "archive", "description": "d", "url": "{url}", "digest": "{digest}"}}"#)
}

#[tokio::test]
async fn archives_unpack_into_skill_folders_and_hostile_ones_are_refused() {
    let registry = Registry::default();
    let mut entries = Vec::new();
    let mut add = |name: &str, file: &str, bytes: Vec<u8>, digest: Option<String>| {
        registry.put(&format!("{PREFIX}/{file}"), bytes.clone());
        entries.push(entry(name, file, &digest.unwrap_or_else(|| sha256_text(&bytes))));
    };
    let deploy = md("deploy");
    add(
        "deploy",
        "deploy.tar.gz",
        tar_gz(
            &[
                ("deploy/SKILL.md", deploy.as_bytes()),
                ("deploy/scripts/run.sh", b"echo go\n"),
            ],
            None,
        ),
        None,
    );
    let review = md("review");
    add(
        "review",
        "review.zip",
        zip_of(&[("SKILL.md", review.as_bytes()), ("references/guide.md", b"# Guide\n")]),
        None,
    );
    let climb = md("climb");
    add(
        "climb",
        "climb.tar.gz",
        tar_gz(&[("SKILL.md", climb.as_bytes()), ("../../etc/cron", b"x")], None),
        None,
    );
    let linked = md("linked");
    add(
        "linked",
        "linked.tar.gz",
        tar_gz(&[("SKILL.md", linked.as_bytes())], Some("/etc/passwd")),
        None,
    );
    let big = vec![0u8; 17 * 1024 * 1024];
    let bomb = md("bomb");
    add(
        "bomb",
        "bomb.zip",
        zip_of(&[("SKILL.md", bomb.as_bytes()), ("assets/zeros.bin", &big)]),
        None,
    );
    let swapped = md("swapped");
    add(
        "swapped",
        "swapped.zip",
        zip_of(&[("SKILL.md", swapped.as_bytes())]),
        Some(sha256_text(b"the reviewed archive")),
    );
    registry.put(
        &format!("{PREFIX}/index.json"),
        format!(r#"{{"skills": [{}]}}"#, entries.join(", ")),
    );
    let url = registry.start().await;

    let catalog = SkillCatalog::new(vec![SkillSource::new(
        Arc::new(HttpRegistryBackend::new(&url).unwrap()),
        "/",
    )]);
    let snapshot = catalog.ensure_loaded().await;
    let names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["deploy", "review"]);
    let deploy_resources: Vec<&str> = snapshot.resources()["deploy"].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(deploy_resources, ["/deploy/scripts/run.sh"]);
    assert_eq!(snapshot.resources()["review"][0].path, "/review/references/guide.md");

    let refusals: Vec<(String, String)> = snapshot
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::ReadFailed)
        .map(|d| (d.path.clone(), d.message.clone()))
        .collect();
    let reason = |skill: &str| {
        refusals
            .iter()
            .find(|(path, _)| path.starts_with(&format!("/{skill}/")))
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("{skill} was not refused: {refusals:?}"))
    };
    assert!(
        reason("climb").contains("leaves the skill's folder"),
        "{}",
        reason("climb")
    );
    assert!(reason("linked").contains("regular files only"), "{}", reason("linked"));
    assert!(reason("bomb").contains("bytes unpacked"), "{}", reason("bomb"));
    assert!(
        reason("swapped").contains("does not match the digest"),
        "{}",
        reason("swapped")
    );

    let answer = load_skill(&snapshot, "deploy", &[]).await;
    let LoadAnswer::Loaded { text } = answer else {
        panic!("{answer:?}")
    };
    assert!(text.starts_with(&deploy), "{text}");
    assert!(text.contains("[script] `/deploy/scripts/run.sh`"), "{text}");
    let backend = snapshot.source_for("deploy").unwrap().backend().clone();
    let script = skills_core::BackendExt::download_file(&*backend, "/deploy/scripts/run.sh")
        .await
        .unwrap();
    assert_eq!(script, b"echo go\n");
    // A folder's listing gives each file its content's digest as etag; a folder of the
    // archive is no file, and a path it does not hold is not found.
    let listed = backend.ls_info("/deploy/scripts").await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].etag.as_deref(), Some(sha256_text(b"echo go\n").as_str()));
    let kinds: Vec<FileErrorKind> = backend
        .download_files(&["/deploy/scripts".to_owned(), "/deploy/nope.sh".to_owned()])
        .await
        .into_iter()
        .map(|answer| answer.into_result().unwrap_err().kind)
        .collect();
    assert_eq!(kinds, [FileErrorKind::IsDirectory, FileErrorKind::FileNotFound]);
}

#[tokio::test]
async fn an_archive_is_downloaded_once_for_all_the_files_of_a_batch() {
    use skills_core::BackendProtocol;
    let registry = Registry::default().with_delay(std::time::Duration::from_millis(20));
    let deploy = md("deploy");
    let bytes = tar_gz(
        &[
            ("SKILL.md", deploy.as_bytes()),
            ("scripts/run.sh", b"echo go\n"),
            ("references/notes.md", b"# Notes\n"),
        ],
        None,
    );
    registry.put(&format!("{PREFIX}/deploy.tar.gz"), bytes.clone());
    registry.put(
        &format!("{PREFIX}/index.json"),
        format!(
            r#"{{"skills": [{}]}}"#,
            entry("deploy", "deploy.tar.gz", &sha256_text(&bytes))
        ),
    );
    let url = registry.start().await;
    let backend = HttpRegistryBackend::new(&url).unwrap();
    let paths = [
        "/deploy/SKILL.md",
        "/deploy/scripts/run.sh",
        "/deploy/references/notes.md",
    ]
    .map(String::from);

    let answers = backend.download_files(&paths).await;

    let contents: Vec<Option<Vec<u8>>> = answers.into_iter().map(|a| a.content).collect();
    assert_eq!(
        contents,
        [
            Some(deploy.into_bytes()),
            Some(b"echo go\n".to_vec()),
            Some(b"# Notes\n".to_vec())
        ]
    );
    let archive_gets = registry
        .log()
        .iter()
        .filter(|(path, _)| path.ends_with("/deploy.tar.gz"))
        .count();
    assert_eq!(archive_gets, 1, "the three files share one download");
}

/// The names of the artifacts `registry` was asked for since its log was last read.
fn asked(registry: &Registry) -> Vec<String> {
    let mut asked: Vec<String> = registry
        .log()
        .into_iter()
        .map(|(path, _)| path.trim_start_matches(PREFIX).to_owned())
        .collect();
    asked.sort();
    asked
}

/// A start with a persistent cache, after one that wrote it, sends one request for the
/// index: discovery walks the index, not the archives, and each parse is cached under
/// an etag made of its archive's digest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_start_of_archived_skills_asks_for_the_index_only() {
    use skills_catalog::PersistentCache;
    use skills_core::BackendProtocol;

    let registry = Registry::default();
    let put_archives = |deploy: &str| {
        let deploy_md = format!("---\nname: deploy\ndescription: {deploy}\n---\nRun scripts/run.sh.\n");
        let archives = [
            (
                "deploy.tar.gz",
                tar_gz(
                    &[("SKILL.md", deploy_md.as_bytes()), ("scripts/run.sh", b"echo go\n")],
                    None,
                ),
            ),
            // Its skill file in lowercase: served as the walk names it, SKILL.md.
            (
                "lower.zip",
                zip_of(&[("skill.md", md("lower").as_bytes()), ("references/a.md", b"# A\n")]),
            ),
            // Larger than a skill file may be: refused when it is read (its size is not
            // known before).
            (
                "huge.zip",
                zip_of(&[("SKILL.md", format!("{}{}", md("huge"), "x".repeat(11 << 20)).as_bytes())]),
            ),
        ];
        let mut entries = Vec::new();
        for (file, bytes) in archives {
            let name = file.split('.').next().unwrap();
            entries.push(entry(name, file, &sha256_text(&bytes)));
            registry.put(&format!("{PREFIX}/{file}"), bytes);
        }
        registry.put(
            &format!("{PREFIX}/index.json"),
            format!(r#"{{"skills": [{}]}}"#, entries.join(", ")),
        );
    };
    put_archives("Deploy the service");
    let url = registry.start().await;
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = PersistentCache::new(cache_dir.path());
    let start = || {
        let source = SkillSource::new(Arc::new(HttpRegistryBackend::new(&url).unwrap()), "/").with_spec(&url);
        // Resources listed when a skill is loaded, as `skills serve` lists them.
        SkillCatalog::new(vec![source])
            .with_lazy_resources(true)
            .with_persistent_cache(cache.clone())
    };

    let cold = start();
    let names: Vec<String> = cold
        .ensure_loaded()
        .await
        .skills()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(names, ["deploy", "lower"]);
    let too_large = cold
        .snapshot()
        .diagnostics()
        .iter()
        .find(|d| d.path == "/huge/SKILL.md")
        .map(|d| d.message.clone());
    assert!(
        too_large.as_deref().is_some_and(|m| m.contains("byte limit")),
        "{too_large:?}"
    );
    cold.prepare_search().await;
    assert_eq!(
        asked(&registry),
        ["/deploy.tar.gz", "/huge.zip", "/index.json", "/lower.zip"],
        "cold: each archive once, for discovery and search alike"
    );
    let answer = cold.search("deploy the service", 5).unwrap();
    // A listing of a skill's folder gives its SKILL.md the etag the walk of the index
    // gave it, so that a reload of that folder keeps its parse.
    let backend = cold.snapshot().source_for("deploy").unwrap().backend().clone();
    let walked = backend.child_files("/", "SKILL.md").await.unwrap();
    for name in ["deploy", "lower"] {
        let in_folder = backend.ls_info(&format!("/{name}")).await.unwrap();
        let in_folder = in_folder
            .iter()
            .find(|f| f.path.to_lowercase().ends_with("/skill.md"))
            .unwrap();
        let in_walk = walked
            .entries
            .iter()
            .find(|f| f.path == format!("/{name}/SKILL.md"))
            .unwrap();
        assert_eq!(in_folder.etag, in_walk.etag, "{name}");
    }
    asked(&registry);

    let warm = start();
    warm.ensure_loaded().await;
    warm.prepare_search().await;
    assert_eq!(asked(&registry), ["/index.json"], "warm: the index only");
    assert_eq!(warm.snapshot().skills(), cold.snapshot().skills());
    assert_eq!(warm.search("deploy the service", 5).unwrap(), answer);

    // One archive changed: it is downloaded, the unchanged `lower` is not (`huge`, which
    // could not be read, may be tried again: its refusal is kept once a cache write that
    // runs beside the catalog has finished).
    put_archives("Ship the service to production");
    let after = start();
    after.ensure_loaded().await;
    after.prepare_search().await;
    let asked = asked(&registry);
    assert!(
        asked.starts_with(&["/deploy.tar.gz".to_owned()])
            && asked.contains(&"/index.json".to_owned())
            && !asked.contains(&"/lower.zip".to_owned()),
        "{asked:?}"
    );
    assert_eq!(
        after.snapshot().get("deploy").unwrap().description,
        "Ship the service to production"
    );
}

//! An HTTP registry served on 127.0.0.1: discovery from its index, digests checked on
//! every download (a tampered file is not served), conditional polling, hostile entries.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use skills_backend_http::HttpRegistryBackend;
use skills_backend_http::test_server::Registry;
use skills_catalog::{SkillCatalog, SkillSource};
use skills_core::DiagnosticKind;
use skills_core::digest::sha256_text;

const PREFIX: &str = "/.well-known/agent-skills";

fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

/// Publishes `skills` (name, content) as `skill-md` entries; `tampered` names are
/// indexed with the digest of other bytes.
fn publish(registry: &Registry, skills: &[(&str, String)], tampered: &[&str], extra: &str) {
    let mut entries = Vec::new();
    for (name, content) in skills {
        registry.put(&format!("{PREFIX}/{name}/SKILL.md"), content.as_bytes());
        let digest = if tampered.contains(name) {
            sha256_text(b"what was reviewed")
        } else {
            sha256_text(content.as_bytes())
        };
        entries.push(format!(
            r#"{{"name": "{name}", "type": "skill-md", "description": "d", "url": "{name}/SKILL.md", "digest": "{digest}"}}"#
        ));
    }
    if !extra.is_empty() {
        entries.push(extra.to_owned());
    }
    let index = format!(
        r#"{{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [{}]}}"#,
        entries.join(", ")
    );
    registry.put(&format!("{PREFIX}/index.json"), index);
}

#[tokio::test]
async fn skills_come_from_the_index_and_a_tampered_file_is_not_served() {
    let registry = Registry::default();
    let hostile = r#"{"name": "../etc", "type": "skill-md", "url": "/etc/passwd", "digest": "sha256:00"},
        {"name": "bad-digest", "type": "skill-md", "url": "x", "digest": "md5:1"}"#;
    publish(
        &registry,
        &[
            ("web", md("web", "Search the web")),
            ("pdf", md("pdf", "Read PDFs")),
            ("evil", md("evil", "Changed")),
        ],
        &["evil"],
        hostile,
    );
    let url = registry.start().await;
    let backend = HttpRegistryBackend::new(&url).unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]);
    let snapshot = catalog.ensure_loaded().await;
    let names: Vec<&str> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pdf", "web"]);
    let refused: Vec<&str> = snapshot
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::ReadFailed)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(refused.len(), 1, "{:?}", snapshot.diagnostics());
    assert!(
        refused[0].contains("does not match the digest the index gives"),
        "{}",
        refused[0]
    );
    let asked: Vec<String> = registry.log().into_iter().map(|(p, _)| p).collect();
    assert!(
        asked.iter().all(|p| p.starts_with(PREFIX)),
        "nothing outside the registry: {asked:?}"
    );
}

#[tokio::test]
async fn an_unchanged_registry_costs_one_conditional_request() {
    let registry = Registry::default();
    publish(
        &registry,
        &[("web", md("web", "v1")), ("pdf", md("pdf", "Read PDFs"))],
        &[],
        "",
    );
    let url = registry.start().await;
    let catalog = SkillCatalog::new(vec![SkillSource::new(
        Arc::new(HttpRegistryBackend::new(&url).unwrap()),
        "/",
    )]);
    catalog.ensure_loaded().await;
    registry.log();
    assert!(catalog.reload().await.is_none());
    assert_eq!(registry.log(), [(format!("{PREFIX}/index.json"), 304)]);

    publish(
        &registry,
        &[("web", md("web", "v2")), ("pdf", md("pdf", "Read PDFs"))],
        &[],
        "",
    );
    let event = catalog.reload().await.expect("a change");
    assert_eq!(event.changes.len(), 1, "{:?}", event.changes);
    assert_eq!(
        registry.log(),
        [
            (format!("{PREFIX}/index.json"), 200),
            (format!("{PREFIX}/web/SKILL.md"), 200)
        ],
        "the index, then the changed file only"
    );
    assert_eq!(catalog.snapshot().get("web").unwrap().description, "v2");
}

#[test]
fn only_https_or_loopback_http_is_accepted() {
    for ok in [
        "https://example.com",
        "https://example.com/.well-known/agent-skills/",
        "https://example.com/.well-known/agent-skills/index.json",
        "http://127.0.0.1:8080/.well-known/agent-skills/",
        "http://localhost:1/",
        "http://[::1]:1/",
    ] {
        let backend = HttpRegistryBackend::new(ok).unwrap();
        assert!(
            backend
                .index_url()
                .path()
                .ends_with("/.well-known/agent-skills/index.json"),
            "{ok}"
        );
    }
    for bad in [
        "http://example.com/",
        "http://127.0.0.1.example.com/",
        "ftp://example.com/",
        "https://user:pw@example.com/",
        "not a url",
    ] {
        assert!(HttpRegistryBackend::new(bad).is_err(), "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_polls_the_index_and_the_catalog_follows() {
    let registry = Registry::default();
    publish(&registry, &[("web", md("web", "v1"))], &[], "");
    let url = registry.start().await;
    let backend = HttpRegistryBackend::new(&url)
        .unwrap()
        .with_poll_interval(std::time::Duration::from_millis(50));
    let catalog = Arc::new(SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]));
    catalog.ensure_loaded().await;
    registry.log();
    let mut events = catalog.subscribe();
    let _watch = catalog.watch().unwrap();
    // Unchanged polls: conditional GETs of the index, each answered 304.
    while registry.log.lock().unwrap().len() < 3 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let polls = registry.log();
    assert!(
        polls
            .iter()
            .all(|(p, status)| p.ends_with("/index.json") && *status == 304),
        "{polls:?}"
    );

    publish(
        &registry,
        &[("web", md("web", "v2")), ("pdf", md("pdf", "Read PDFs"))],
        &[],
        "",
    );
    let event = tokio::time::timeout(std::time::Duration::from_secs(20), events.recv())
        .await
        .expect("the change is seen")
        .unwrap();
    assert_eq!(event.changes.len(), 2, "{:?}", event.changes);
    assert_eq!(catalog.snapshot().get("web").unwrap().description, "v2");
}

#[tokio::test]
async fn a_name_outside_the_specification_is_served_from_its_encoded_url() {
    let registry = Registry::default();
    let content = md("My Skill", "Spaces in its name");
    registry.put(&format!("{PREFIX}/My%20Skill/SKILL.md"), content.as_bytes());
    let index = format!(
        r#"{{"skills": [{{"name": "My Skill", "type": "skill-md", "url": "My%20Skill/SKILL.md", "digest": "{}"}}]}}"#,
        sha256_text(content.as_bytes())
    );
    registry.put(&format!("{PREFIX}/index.json"), index);
    let url = registry.start().await;
    let catalog = SkillCatalog::new(vec![SkillSource::new(
        Arc::new(HttpRegistryBackend::new(&url).unwrap()),
        "/",
    )]);
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(snapshot.skills()[0].name, "My Skill");
    assert_eq!(snapshot.skills()[0].path, "/My Skill/SKILL.md");
}

#[tokio::test]
async fn a_batch_of_skills_downloads_several_at_a_time() {
    // Each answer waits, as over a network: one at a time, the requests never overlap.
    let registry = Registry::default().with_delay(std::time::Duration::from_millis(50));
    let skills: Vec<(String, String)> = (0..24)
        .map(|i| (format!("s{i:02}"), md(&format!("s{i:02}"), "A skill")))
        .collect();
    let skills: Vec<(&str, String)> = skills.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
    publish(&registry, &skills, &[], "");
    let url = registry.start().await;
    let backend = HttpRegistryBackend::new(&url).unwrap();
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/")]);

    let snapshot = catalog.ensure_loaded().await;

    assert_eq!(snapshot.skills().len(), 24);
    let most = registry.most_in_flight();
    assert!(
        most > 1 && most <= skills_backend_http::CONCURRENT_DOWNLOADS,
        "{most} requests at once"
    );
}

/// A registry nobody answers for says why it could not be listed, and a file whose host
/// does not answer says why it could not be read: the HTTP client keeps the refused
/// connection among its error's causes, out of its message.
#[tokio::test]
async fn an_unreachable_registry_or_file_says_why() {
    use skills_core::BackendProtocol as _;
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let backend = HttpRegistryBackend::new(&format!("http://127.0.0.1:{closed}/")).unwrap();
    let error = backend.ls_info("/").await.unwrap_err().to_string();
    assert!(error.to_lowercase().contains("connection refused"), "{error}");

    let registry = Registry::default();
    let digest = sha256_text(md("web", "Search the web").as_bytes());
    let index = format!(
        r#"{{"skills": [{{"name": "web", "type": "skill-md", "url": "http://127.0.0.1:{closed}/web/SKILL.md", "digest": "{digest}"}}]}}"#
    );
    registry.put(&format!("{PREFIX}/index.json"), index);
    let backend = HttpRegistryBackend::new(&registry.start().await).unwrap();
    let answer = backend.download_files(&["/web/SKILL.md".to_owned()]).await;
    let error = answer[0].error.as_ref().unwrap();
    assert!(error.message.to_lowercase().contains("connection refused"), "{error:?}");
}

//! `skills publish LOCATION`: the published index of a library, written at its root.

use std::path::Path;
use std::process::ExitCode;

use agent_skills::index::INDEX_FILE;
use agent_skills::{SkillCatalog, SkillSource};
use anyhow::Context;

use crate::cli::{DiscoveryArgs, EXIT_OK, EXIT_SOURCE_ERROR};
use crate::library::discovery_of;

/// Indexes the library at `location` and writes `skills-index.json` at its root: into
/// the bucket for `s3://`, into the folder otherwise.
pub async fn publish(location: &str, discovery: &DiscoveryArgs) -> anyhow::Result<ExitCode> {
    let (limits, options) = discovery_of(discovery)?;
    let spec: agent_skills::sources::SourceSpec = location.parse()?;
    let source: SkillSource = spec.open(&options)?;
    let catalog = SkillCatalog::new(vec![source]).with_limits(limits);
    let snapshot = catalog.ensure_loaded().await;
    if let Some((_, error)) = catalog.source_errors().await.into_iter().next() {
        return Err(anyhow::Error::new(error).context(format!("source {location}")));
    }
    crate::output::print_diagnostics(snapshot.diagnostics());
    let (index, problems) = catalog.library_index(0).await;
    for problem in &problems {
        eprintln!("error: {problem}");
    }
    let written = if location.starts_with("s3://") {
        write_to_bucket(location, &index).await?
    } else if location.contains("://") || location.starts_with("git+") {
        anyhow::bail!(
            "publish writes to an s3:// prefix or a local folder; for git, publish the working tree and commit {INDEX_FILE}"
        );
    } else {
        let dir = Path::new(location.strip_prefix("file://").unwrap_or(location));
        let path = dir.join(INDEX_FILE);
        std::fs::write(&path, index.to_json()).with_context(|| format!("cannot write {}", path.display()))?;
        path.display().to_string()
    };
    println!(
        "published {} skills ({} files, version {}) to {written}",
        index.skills.len(),
        index.files().count(),
        index.version
    );
    Ok(ExitCode::from(if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_SOURCE_ERROR
    }))
}

async fn write_to_bucket(location: &str, index: &agent_skills::index::LibraryIndex) -> anyhow::Result<String> {
    let backend = agent_skills::s3::S3BackendBuilder::new(location)?.build()?;
    agent_skills::s3::publish_index(&backend, index)
        .await
        .with_context(|| format!("cannot write {INDEX_FILE} to {location}"))?;
    Ok(format!("{}/{INDEX_FILE}", location.trim_end_matches('/')))
}

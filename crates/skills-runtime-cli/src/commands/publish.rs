//! `skills publish LOCATION`: the published index of a library, written at its root.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use skills_runtime::index::INDEX_FILE;
use skills_runtime::{SkillCatalog, SkillSource};

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};

/// Indexes the library at `location` and writes `skills-index.json` at its root: into
/// the bucket for `s3://`, into the folder otherwise. The limits and hard-link policy
/// are those of `args` (flags over `--config` or ./skills.toml); its sources are not
/// read: the index is of one library.
pub async fn publish(location: &str, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    if !args.sources.is_empty() {
        anyhow::bail!(
            "publish LOCATION indexes that one library; --source goes with --well-known DIR (a registry of several sources)"
        );
    }
    let config = library::config_file(args);
    let (limits, options) = library::discovery_with(&args.discovery, config.as_deref())?;
    let spec: skills_runtime::sources::SourceSpec = location.parse()?;
    let source: SkillSource = spec.open(&options)?;
    let catalog = SkillCatalog::new(vec![source]).with_limits(limits);
    let snapshot = catalog.ensure_loaded().await;
    if let Some((_, error)) = catalog.source_errors().await.into_iter().next() {
        return Err(anyhow::Error::new(error).context(format!("source {location}")));
    }
    crate::output::print_diagnostics(snapshot.diagnostics());
    let (index, problems) = catalog.library_index(0).await;
    for problem in &problems {
        show_err!("error: {problem}");
    }
    let written = if location.starts_with("s3://") {
        write_to_bucket(location, &index).await?
    } else if !skills_runtime::sources::is_path(location) {
        anyhow::bail!(
            "publish writes to an s3:// prefix or a local folder; for git, publish the working tree and commit {INDEX_FILE}"
        );
    } else {
        let dir = Path::new(location.strip_prefix("file://").unwrap_or(location));
        let path = dir.join(INDEX_FILE);
        std::fs::write(&path, index.to_json()).with_context(|| format!("cannot write {}", path.display()))?;
        path.display().to_string()
    };
    show!(
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

async fn write_to_bucket(location: &str, index: &skills_runtime::index::LibraryIndex) -> anyhow::Result<String> {
    let backend = skills_runtime::s3::S3BackendBuilder::new(location)?.build()?;
    skills_runtime::s3::publish_index(&backend, index)
        .await
        .with_context(|| format!("cannot write {INDEX_FILE} to {location}"))?;
    Ok(format!("{}/{INDEX_FILE}", location.trim_end_matches('/')))
}

/// `skills publish LOCATION --well-known DIR`: a static registry of the library for any
/// web host: `DIR/.well-known/agent-skills/index.json` (Agent Skills Discovery 0.2),
/// each skill as its `SKILL.md` when that is all its folder holds, else as a `.tar.gz` of
/// its folder (deterministic: sorted, no times or owners), each with its digest.
pub async fn well_known(location: Option<&str>, dir: &Path, args: &SourceArgs) -> anyhow::Result<ExitCode> {
    let catalog = match location {
        Some(location) => {
            if !args.sources.is_empty() {
                anyhow::bail!("publish takes LOCATION or --source, not both");
            }
            let config = library::config_file(args);
            let (limits, options) = library::discovery_with(&args.discovery, config.as_deref())?;
            let spec: skills_runtime::sources::SourceSpec = location.parse()?;
            let source: SkillSource = spec.open(&options)?;
            std::sync::Arc::new(SkillCatalog::new(vec![source]).with_limits(limits))
        }
        None => library::catalog(args, Need::Listing, false).await?.catalog,
    };
    let snapshot = catalog.ensure_loaded().await;
    if let Some((i, error)) = catalog.source_errors().await.into_iter().next() {
        let source = &catalog.sources()[i];
        return Err(anyhow::Error::new(error).context(format!("source {}", source.location())));
    }
    crate::output::print_diagnostics(snapshot.diagnostics());
    let root = dir.join(".well-known/agent-skills");
    std::fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    let mut entries = Vec::new();
    let mut failed = 0;
    for skill in snapshot.skills() {
        if skill.name.contains(['/', '\\']) || skill.name == "." || skill.name == ".." {
            show_err!(
                "error: {}: not published: a registry serves each skill as a folder named after it",
                skill.name
            );
            failed += 1;
            continue;
        }
        let (Some(index), Some(source)) = (snapshot.source_of(&skill.name), snapshot.source_for(&skill.name)) else {
            continue;
        };
        let backend = source.backend().clone();
        // Each file read once: its digest for the manifest, its bytes for the registry.
        let mut files: Vec<(String, Vec<u8>)> = match catalog
            .digests()
            .manifest_with_files(backend.as_ref(), index, skill)
            .await
        {
            Ok((manifest, bytes)) => manifest.files.into_iter().map(|f| f.rel).zip(bytes).collect(),
            Err(reason) => {
                show_err!("error: {}: {reason}", skill.name);
                failed += 1;
                continue;
            }
        };
        let (kind, name, bytes) = if files.len() == 1 {
            ("skill-md", format!("{}/SKILL.md", skill.name), files.remove(0).1)
        } else {
            (
                "archive",
                format!("{}.tar.gz", skill.name),
                tar_gz(&skill.name, &files)?,
            )
        };
        // The URL relative to the index, percent-encoded (`My Skill` is `My%20Skill`).
        let mut url = String::new();
        crate::mcp::files::encode_path(&name, &mut url);
        let path = root.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
        entries.push(serde_json::json!({
            "name": skill.name,
            "type": kind,
            "description": skill.description,
            "url": url,
            "digest": skills_runtime::digest::sha256_text(&bytes),
        }));
    }
    let index = serde_json::json!({
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": entries,
    });
    let index_path = root.join("index.json");
    std::fs::write(&index_path, serde_json::to_string_pretty(&index)?)
        .with_context(|| format!("cannot write {}", index_path.display()))?;
    show!("published {} skills to {}", entries.len(), index_path.display());
    Ok(ExitCode::from(if failed == 0 { EXIT_OK } else { EXIT_SOURCE_ERROR }))
}

/// A deterministic `.tar.gz` of a skill's files under the folder `name/`.
fn tar_gz(name: &str, files: &[(String, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    builder.mode(tar::HeaderMode::Deterministic);
    for (rel, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, format!("{name}/{rel}"), content.as_slice())?;
    }
    Ok(builder.into_inner()?.finish()?)
}

//! The `[[install]]` tables of `skills.toml`: what `skills add` records there.

use std::path::Path;

use anyhow::Context;
use skills_install::write::write_file;
use skills_runtime::sources::{CONFIG_FILE, InstallSpec, SourcesConfig};

/// Adds `spec` to `root/skills.toml` (created if needed; the text there is kept as it
/// is) unless an `[[install]]` of the same source already covers it; whether it wrote.
pub fn record(root: &Path, spec: InstallSpec) -> anyhow::Result<bool> {
    let path = root.join(CONFIG_FILE);
    let mut text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let config = SourcesConfig::parse(&text).with_context(|| format!("in {}", path.display()))?;
    let covered = config.install.iter().any(|i| {
        i.source == spec.source
            && i.depth == spec.depth
            && i.agents == spec.agents
            && i.copy == spec.copy
            && (i.skills.is_empty() || (!spec.skills.is_empty() && spec.skills.iter().all(|s| i.skills.contains(s))))
    });
    if covered {
        return Ok(false);
    }
    if !text.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(&spec.to_toml());
    write_file(&path, text.as_bytes())?;
    Ok(true)
}

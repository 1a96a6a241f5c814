//! The views a command applies to its library (`--view NAME`), and what it says of
//! their entries that match no skill.

use std::sync::Arc;

use skills_runtime::sources::SourcesConfig;
use skills_runtime::{Selection, SkillFilter, SkillView};

use super::Library;

impl Library {
    /// The view `--view NAME` asks for: `None` without a name; an error for a name the
    /// skills.toml does not define (naming those it does).
    pub fn view(&self, name: Option<&str>) -> anyhow::Result<Option<Arc<SkillView>>> {
        let Some(name) = name else { return Ok(None) };
        let config = SourcesConfig {
            views: self.views.clone(),
            ..SourcesConfig::default()
        };
        Ok(Some(Arc::new(
            config.view(name).map_err(|e| anyhow::anyhow!("{}", e.message))?,
        )))
    }

    /// What [`view`](Self::view) `name` offers of the catalog's snapshot, computed once,
    /// its entries that match no skill warned about on stderr.
    pub fn selection(&self, name: Option<&str>) -> anyhow::Result<Option<Selection>> {
        let selection = self.selection_unsaid(name)?;
        if let Some(selection) = &selection {
            warn_view(selection);
        }
        Ok(selection)
    }

    /// [`selection`](Self::selection), its warnings left to the caller
    /// ([`write_view_warnings`]).
    pub fn selection_unsaid(&self, name: Option<&str>) -> anyhow::Result<Option<Selection>> {
        let Some(view) = self.view(name)? else { return Ok(None) };
        let filter = SkillFilter {
            view: Some(view),
            ..SkillFilter::default()
        };
        Ok(Some(Selection::of(&self.catalog.snapshot(), &filter)))
    }
}

/// Says on stderr what a view names that no skill matches.
pub fn warn_view(selection: &Selection) {
    let mut err = std::io::stderr().lock();
    write_view_warnings(&mut err, selection);
}

/// What [`warn_view`] says, written to `err` (a failed write is no reason to stop).
pub fn write_view_warnings(err: &mut impl std::io::Write, selection: &Selection) {
    for warning in selection.warnings() {
        let line = format!("warning: {warning}");
        let _ = writeln!(err, "{}", crate::terminal::visible(&line));
    }
}

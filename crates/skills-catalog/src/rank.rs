//! The order in which a catalog's skills earn a place in a short list: the order in
//! which a budgeted skills list keeps their full entries longest, for faces whose list
//! must survive being cut anywhere (the MCP server's instructions).

use std::sync::Arc;

use skills_core::SkillMetadata;

use crate::budget::CatalogBudget;
use crate::prompt::listed_for_model;
use crate::section::PromptSection;
use crate::snapshot::CatalogSnapshot;

impl PromptSection {
    /// The skills of `snapshot` the model may be offered, most relevant first: the
    /// budget's pinned skills, then the most used (this section's use counts), then
    /// those of later sources (which win a shared name), then the catalog's order. It is
    /// the order in which a budgeted list keeps full entries longest.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use skills_catalog::{AllowedToolsPolicy, CatalogBudget, PromptSection, PromptTemplate, SkillCatalog, SkillSource};
    /// use skills_core::MemoryBackend;
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// for name in ["alpha", "beta", "gamma"] {
    ///     backend.insert(&format!("/s/{name}/SKILL.md"), format!("---\nname: {name}\ndescription: d\n---\n"))?;
    /// }
    /// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/s")]);
    /// let section = PromptSection::of_catalog(&catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default())
    ///     .with_budget(CatalogBudget::of_chars(8_000).with_pinned(["gamma"]));
    /// catalog.record_use("beta");
    /// let snapshot = catalog.ensure_loaded().await;
    /// let names: Vec<&str> = section.ranked(&snapshot).iter().map(|s| s.name.as_str()).collect();
    /// assert_eq!(names, ["gamma", "beta", "alpha"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn ranked<'a>(&self, snapshot: &'a CatalogSnapshot) -> Vec<&'a Arc<SkillMetadata>> {
        let pinned = self.budget().pinned();
        // No lookup per skill (a hash and a lock each: a sixth of the ranking of a
        // 40,000-skill library) while nothing was used, as at a server's start.
        let uses = self.use_counts().filter(|uses| !uses.is_empty());
        let sources = snapshot.skill_sources();
        let selection = self.selection(snapshot, None);
        let mut ranked: Vec<(usize, &Arc<SkillMetadata>)> = snapshot
            .skills()
            .iter()
            .enumerate()
            .filter(|(_, skill)| listed_for_model(skill))
            .filter(|(_, skill)| selection.as_ref().is_none_or(|s| s.offers(snapshot, &skill.name)))
            .collect();
        ranked.sort_by_cached_key(|&(at, skill)| {
            let pin = pinned.iter().all(|p| *p != skill.name);
            let used = uses.map_or(0, |uses| uses.get(&skill.name));
            let source = sources.get(at).copied().unwrap_or(0);
            (pin, std::cmp::Reverse(used), std::cmp::Reverse(source), at)
        });
        ranked.into_iter().map(|(_, skill)| skill).collect()
    }
}

impl CatalogBudget {
    /// The skills that always keep their full entry.
    pub fn pinned(&self) -> &[String] {
        &self.pinned
    }
}

//! What every session of a [`Skills`](crate::Skills) library shares.

use std::sync::Arc;

use skills_catalog::{PromptSection, SkillCatalog};

/// The live catalog and the section its skills list is rendered with.
pub(crate) struct Library {
    pub(crate) catalog: Arc<SkillCatalog>,
    pub(crate) section: PromptSection,
    pub(crate) search_tool: bool,
}

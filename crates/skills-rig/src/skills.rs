//! [`Skills`]: one live catalog and how its skills list is rendered, shared by every
//! conversation's [`SkillSession`].

use std::fmt;
use std::sync::Arc;

use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, PromptSection, PromptTemplate, SkillCatalog, SkillView, ToolSet,
};

use crate::library::Library;
use crate::session::SkillSession;

/// A skill library for rig agents: the live [`SkillCatalog`] and the prompt section its
/// skills list is rendered with (budget, allowed-tools policy, template). Cheap to clone;
/// clones share the catalog and the section's cache.
///
/// Each conversation takes its own [`SkillSession`] ([`session`](Self::session)), which
/// holds the skills that conversation has loaded.
#[derive(Clone)]
pub struct Skills {
    shared: Arc<Library>,
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skills")
            .field("sources", &self.shared.catalog.sources().len())
            .field("policy", &self.shared.section.policy())
            .field("budget", self.shared.section.budget())
            .field("search_tool", &self.shared.search_tool)
            .finish()
    }
}

impl Skills {
    /// The library `catalog` with the defaults: the 8,000-character budget of the skills
    /// list, `allowed-tools` recommended (nothing blocked but `disallowed-tools`), the
    /// V2 template, and `search_skills` offered.
    pub fn new(catalog: Arc<SkillCatalog>) -> Self {
        Self::builder(catalog).build()
    }

    /// A builder over `catalog`, to change the defaults of [`new`](Self::new).
    pub fn builder(catalog: Arc<SkillCatalog>) -> SkillsBuilder {
        SkillsBuilder {
            catalog,
            budget: CatalogBudget::default(),
            policy: AllowedToolsPolicy::default(),
            template: PromptTemplate::default(),
            search_tool: true,
            view: None,
            tools: None,
        }
    }

    /// The catalog: reload it, watch it, read its snapshots.
    pub fn catalog(&self) -> &Arc<SkillCatalog> {
        &self.shared.catalog
    }

    /// The allowed-tools policy the sessions apply.
    pub fn policy(&self) -> AllowedToolsPolicy {
        self.shared.section.policy()
    }

    /// A library on the same catalog (one discovery, one reload, one search index) that
    /// offers only `view`'s skills and those they depend on: for a subagent or a role.
    /// Budget, policy, template and tools as here; its sections are cached apart.
    pub fn with_view(&self, view: SkillView) -> Self {
        Self {
            shared: Arc::new(Library {
                catalog: Arc::clone(&self.shared.catalog),
                section: self.shared.section.with_other_view(Some(Arc::new(view))),
                search_tool: self.shared.search_tool,
            }),
        }
    }

    /// A new conversation: nothing loaded yet.
    pub fn session(&self) -> SkillSession {
        SkillSession::new(self.shared.clone())
    }
}

/// Configures a [`Skills`]; see [`Skills::builder`].
#[derive(Debug)]
pub struct SkillsBuilder {
    catalog: Arc<SkillCatalog>,
    budget: CatalogBudget,
    policy: AllowedToolsPolicy,
    template: PromptTemplate,
    search_tool: bool,
    view: Option<SkillView>,
    tools: Option<ToolSet>,
}

impl SkillsBuilder {
    /// Offers only `view`'s skills (and those they depend on).
    pub fn view(mut self, view: SkillView) -> Self {
        self.view = Some(view);
        self
    }

    /// The tools the agent has (rig's tools are the host's to name): a skill that needs
    /// another (`required-tools`, `dependencies.tools`) is left out of the preamble and
    /// `search_skills`, and `load_skill` refuses it naming the tools.
    pub fn available_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.tools = Some(ToolSet::new(tools));
        self
    }

    /// The budget of the skills list in the preamble (characters, or a share of a context
    /// window): past it, entries degrade to compact, then to names, then are left out,
    /// and `search_skills` finds the rest.
    pub fn budget(mut self, budget: CatalogBudget) -> Self {
        self.budget = budget;
        self
    }

    /// How `allowed-tools` applies: [`AllowedToolsPolicy::Restrict`] makes the session's
    /// hook skip calls outside the loaded skills' lists.
    pub fn policy(mut self, policy: AllowedToolsPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The template of the skills section (`{skills_locations}`, `{skills_list}`).
    pub fn template(mut self, template: PromptTemplate) -> Self {
        self.template = template;
        self
    }

    /// Whether [`SkillSession::install`] adds the `search_skills` tool (default: yes).
    pub fn search_tool(mut self, offered: bool) -> Self {
        self.search_tool = offered;
        self
    }

    /// The library.
    pub fn build(self) -> Skills {
        let section = PromptSection::of_catalog(&self.catalog, self.policy, self.template)
            .with_budget(self.budget)
            .with_view(self.view.map(Arc::new))
            .with_tools(self.tools);
        Skills {
            shared: Arc::new(Library {
                catalog: self.catalog,
                section,
                search_tool: self.search_tool,
            }),
        }
    }
}

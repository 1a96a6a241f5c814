//! Views and tool dependencies on one shared catalog: what the section lists, what
//! search answers and what `load_skill` says, per view and per tool set; the closure
//! and the problems of skill dependencies.

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use skills_catalog::{
    AllowedToolsPolicy, LoadError, LoadRequest, NotOffered, PromptSection, PromptTemplate, Selection, SkillCatalog,
    SkillFilter, SkillSource, SkillView, ToolSet, dependency_diagnostics, load_skill_with, mcp_server_dependencies,
    with_dependencies,
};
use skills_core::{DiagnosticKind, MemoryBackend};

fn md(name: &str, description: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n")
}

fn library() -> Arc<MemoryBackend> {
    let backend = MemoryBackend::new();
    let put = |path: &str, text: String| backend.insert(path, text).unwrap();
    put(
        "/base/ship-pr/SKILL.md",
        md(
            "ship-pr",
            "Open a pull request for the change",
            "dependencies:\n  tools: [github_create_pr]\n  skills: [review]\n",
        ),
    );
    put(
        "/base/review/SKILL.md",
        md("review", "Review a change", "dependencies: [lint]\n"),
    );
    put("/base/lint/SKILL.md", md("lint", "Lint the code", ""));
    put(
        "/base/read-any/SKILL.md",
        md(
            "read-any",
            "Read a file with whatever reader",
            "dependencies:\n  tools:\n    any: [Read, cat]\n",
        ),
    );
    put("/team/pdf-fill/SKILL.md", md("pdf-fill", "Fill a PDF form", ""));
    put("/team/pdf-sign/SKILL.md", md("pdf-sign", "Sign a PDF", ""));
    put(
        "/team/pay/SKILL.md",
        md(
            "pay",
            "Pay with a card",
            "dependencies:\n  tools:\n    - type: mcp\n      value: proxy\n",
        ),
    );
    put(
        "/team/pay/agents/openai.yaml",
        "dependencies:\n  tools:\n    - type: mcp\n      value: billing\n      description: Billing server\n"
            .to_owned(),
    );
    Arc::new(backend)
}

fn catalog(backend: &Arc<MemoryBackend>) -> SkillCatalog {
    SkillCatalog::new(vec![
        SkillSource::new(backend.clone(), "/base"),
        SkillSource::new(backend.clone(), "/team").with_label("Team"),
    ])
}

fn section(catalog: &SkillCatalog) -> PromptSection {
    PromptSection::new(
        catalog.sources(),
        AllowedToolsPolicy::Recommend,
        PromptTemplate::default(),
    )
}

#[tokio::test]
async fn an_agent_without_a_tool_neither_sees_nor_loads_the_skill_that_needs_it() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let section = section(&catalog);
    let without = ToolSet::new(["Read"]);
    let with = ToolSet::new(["Read", "github_create_pr"]);

    let (text, _) = section.render_listing_for(&snapshot, &[], Some(&without));
    assert!(!text.contains("**ship-pr**"), "{text}");
    assert!(text.contains("**review**"));
    let selection = section.selection(&snapshot, Some(&without)).unwrap();
    let request = LoadRequest::new(&[]).within(Some(&selection));
    let answer = load_skill_with(&snapshot, "ship-pr", request).await;
    let message = answer.to_string();
    assert!(matches!(
        answer,
        skills_catalog::LoadAnswer::Failed(LoadError::MissingTools { .. })
    ));
    assert!(message.contains("github_create_pr"), "{message}");
    let hits = catalog
        .search_selected("pull request", 5, &snapshot, Some(&selection))
        .unwrap();
    assert!(hits.iter().all(|h| h.name != "ship-pr"), "{hits:?}");

    // The same section, once the tool is there.
    let (text, _) = section.render_listing_for(&snapshot, &[], Some(&with));
    assert!(text.contains("**ship-pr**"), "{text}");
    let selection = section.selection(&snapshot, Some(&with)).unwrap();
    let answer = load_skill_with(&snapshot, "ship-pr", LoadRequest::new(&[]).within(Some(&selection))).await;
    let text = answer.to_string();
    assert!(!answer.is_error(), "{text}");
    // It names the skills it depends on, and whether each is loaded.
    assert!(text.contains("**Skills this skill depends on:**"), "{text}");
    assert!(
        text.contains("`review`: not loaded; use `load_skill(\"review\")`"),
        "{text}"
    );
    let hits = catalog
        .search_selected("pull request", 5, &snapshot, Some(&selection))
        .unwrap();
    assert_eq!(hits[0].name, "ship-pr");
    let loaded = ["review".to_owned()];
    let again = load_skill_with(&snapshot, "ship-pr", LoadRequest::new(&loaded).within(Some(&selection))).await;
    assert!(again.to_string().contains("`review`: loaded"));
}

#[tokio::test]
async fn any_needs_one_of_its_tools() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let offered = |tools: &[&str]| {
        let filter = SkillFilter::default().with_tools(Some(ToolSet::new(tools.iter().copied())));
        Selection::of(&snapshot, &filter).offers(&snapshot, "read-any")
    };
    assert!(offered(&["cat"]));
    assert!(offered(&["Read"]));
    assert!(!offered(&["Write"]));
    let filter = SkillFilter::default().with_tools(Some(ToolSet::new(["Write"])));
    let selection = Selection::of(&snapshot, &filter);
    match selection.not_offered(&snapshot, "read-any") {
        Some(NotOffered::Unavailable(missing)) => assert_eq!(missing.to_string(), "one of Read, cat"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn sections_are_cached_per_tool_set_and_selections_per_snapshot() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let section = section(&catalog);
    let a = ToolSet::new(["Read"]);
    let b = ToolSet::new(["github_create_pr"]);
    let first = section.render_listing_for(&snapshot, &[], Some(&a)).0;
    let other = section.render_listing_for(&snapshot, &[], Some(&b)).0;
    assert_ne!(first, other);
    assert_eq!(section.renders(), 2);
    // The same tools in another order are the same set: cached.
    let again = section
        .render_listing_for(&snapshot, &[], Some(&ToolSet::new(["Read"])))
        .0;
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(section.renders(), 2);
    let selected = section.selection(&snapshot, Some(&a)).unwrap();
    assert!(Arc::ptr_eq(&selected, &section.selection(&snapshot, Some(&a)).unwrap()));
    // A reload is a new version: rendered again, from the new skills.
    backend
        .insert("/base/lint/SKILL.md", md("lint", "Lint the code, edited", ""))
        .unwrap();
    catalog.reload().await;
    let next = catalog.snapshot();
    let text = section.render_listing_for(&next, &[], Some(&a)).0;
    assert!(text.contains("Lint the code, edited"));
    assert_eq!(section.renders(), 3);
}

#[tokio::test]
async fn unavailable_skills_can_be_listed_marked_and_still_not_loaded() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let section = section(&catalog).show_unavailable(true);
    let tools = ToolSet::new(["Read"]);
    let (text, _) = section.render_listing_for(&snapshot, &[], Some(&tools));
    assert!(
        text.contains("- **ship-pr**: Open a pull request for the change\n  -> Unavailable: needs tools you do not have: github_create_pr"),
        "{text}"
    );
    assert!(!text.contains("load_skill(\"ship-pr\")"), "{text}");
    let selection = section.selection(&snapshot, Some(&tools)).unwrap();
    assert!(
        load_skill_with(&snapshot, "ship-pr", LoadRequest::new(&[]).within(Some(&selection)))
            .await
            .is_error()
    );
    // A server that cannot check tools lists every skill and names what each needs.
    let unchecked = self::section(&catalog).with_unchecked_tools(true);
    let list = unchecked.skills_list(&snapshot, &[]);
    assert!(
        list.contains("-> Needs tools: github_create_pr (not checked here)"),
        "{list}"
    );
    assert!(
        list.contains("-> Needs tools: one of Read, cat (not checked here)"),
        "{list}"
    );
}

#[tokio::test]
async fn a_view_sees_its_skills_and_their_dependencies_while_the_main_agent_sees_all() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let view = SkillView::new("reviewer")
        .include(["review", "source:team"])
        .unwrap()
        .exclude(["pdf-s*"])
        .unwrap();
    let sub = section(&catalog).with_view(Some(Arc::new(view)));
    let main = section(&catalog);
    let (sub_text, _) = sub.render_listing(&snapshot, &[]);
    let (main_text, _) = main.render_listing(&snapshot, &[]);
    for name in ["review", "lint", "pdf-fill", "pay"] {
        assert!(sub_text.contains(&format!("**{name}**")), "{name}: {sub_text}");
    }
    for name in ["ship-pr", "pdf-sign", "read-any"] {
        assert!(!sub_text.contains(&format!("**{name}**")), "{name}: {sub_text}");
        assert!(main_text.contains(&format!("**{name}**")), "{name}");
    }
    let selection = sub.selection(&snapshot, None).unwrap();
    assert!(selection.warnings().is_empty(), "{:?}", selection.warnings());
    let answer = load_skill_with(&snapshot, "ship-pr", LoadRequest::new(&[]).within(Some(&selection))).await;
    let message = answer.to_string();
    assert!(
        message.starts_with("Error: Skill 'ship-pr' not found. Available skills:"),
        "{message}"
    );
    assert!(!message.contains("pdf-sign"), "{message}");
    let hits = catalog.search_selected("PDF", 5, &snapshot, Some(&selection)).unwrap();
    assert_eq!(hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["pdf-fill"]);
    // One reload serves both.
    backend
        .insert("/team/pdf-merge/SKILL.md", md("pdf-merge", "Merge PDFs", ""))
        .unwrap();
    catalog.reload().await;
    let next = catalog.snapshot();
    assert!(sub.render_listing(&next, &[]).0.contains("**pdf-merge**"));
    assert!(main.render_listing(&next, &[]).0.contains("**pdf-merge**"));
}

#[tokio::test]
async fn a_view_naming_an_unknown_skill_warns() {
    let backend = library();
    let snapshot = catalog(&backend).ensure_loaded().await;
    let view = SkillView::new("x")
        .include(["lint", "nope", "zz-*", "source:elsewhere"])
        .unwrap();
    let selection = Selection::of(&snapshot, &SkillFilter::view(view));
    assert_eq!(selection.names(), ["lint"]);
    assert_eq!(selection.warnings().len(), 3, "{:?}", selection.warnings());
    assert!(selection.warnings()[0].contains("`nope` matches no skill"));
}

#[tokio::test]
async fn dependencies_close_and_their_problems_are_reported() {
    let backend = library();
    backend
        .insert("/base/a/SKILL.md", md("a", "A", "dependencies: [b, missing-one]\n"))
        .unwrap();
    backend
        .insert("/base/b/SKILL.md", md("b", "B", "dependencies: [c]\n"))
        .unwrap();
    backend
        .insert("/base/c/SKILL.md", md("c", "C", "dependencies: [a]\n"))
        .unwrap();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let (names, missing) = with_dependencies(&snapshot, &["ship-pr".to_owned()]);
    assert_eq!(names, ["ship-pr", "review", "lint"]);
    assert!(missing.is_empty());
    let found = dependency_diagnostics(&snapshot);
    let missing: Vec<_> = found
        .iter()
        .filter(|d| d.kind == DiagnosticKind::MissingDependency)
        .collect();
    assert_eq!(missing.len(), 1);
    assert!(missing[0].message.contains("`missing-one`"));
    assert_eq!(missing[0].path, "/base/a/SKILL.md");
    let cycles: Vec<_> = found
        .iter()
        .filter(|d| d.kind == DiagnosticKind::DependencyCycle)
        .collect();
    assert_eq!(cycles.len(), 1, "one cycle, reported once: {cycles:?}");
    assert!(cycles[0].message.ends_with("a -> b -> c -> a"), "{}", cycles[0].message);
}

#[tokio::test]
async fn mcp_servers_come_from_the_frontmatter_and_agents_openai_yaml() {
    let backend = library();
    let catalog = catalog(&backend);
    let snapshot = catalog.ensure_loaded().await;
    let (servers, problems) = mcp_server_dependencies(&snapshot, "pay").await;
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["proxy", "billing"]);
    assert!(problems.is_empty());
    let answer = load_skill_with(&snapshot, "pay", LoadRequest::new(&[]))
        .await
        .to_string();
    // The answer names the frontmatter's servers, without reading agents/openai.yaml.
    assert!(
        answer.ends_with("**MCP servers this skill uses:**\n\n- `proxy`"),
        "{answer}"
    );
    let (servers, _) = mcp_server_dependencies(&snapshot, "lint").await;
    assert!(servers.is_empty());
}

#[tokio::test]
async fn search_within_a_view_is_the_best_of_the_view_not_the_best_of_all_then_cut() {
    let backend = MemoryBackend::new();
    // Forty skills about invoices; the view holds every fifth, which score lower.
    for i in 0..40 {
        let description = if i % 5 == 0 {
            format!("Notes {i} that mention an invoice once")
        } else {
            format!("Invoice invoices: create, send and track invoice {i}")
        };
        backend
            .insert(
                &format!("/s/inv-{i:02}/SKILL.md"),
                md(&format!("inv-{i:02}"), &description, ""),
            )
            .unwrap();
    }
    let catalog = SkillCatalog::new(vec![SkillSource::new(Arc::new(backend), "/s")]);
    let snapshot = catalog.ensure_loaded().await;
    let view = SkillView::new("fifth").include(["inv-*0", "inv-*5"]).unwrap();
    let selection = Selection::of(&snapshot, &SkillFilter::view(view));
    let within: Vec<String> = catalog
        .search_selected("invoice", 3, &snapshot, Some(&selection))
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .collect();
    let expected: Vec<String> = catalog
        .search("invoice", 16)
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .chain(["inv-00", "inv-05", "inv-10", "inv-15", "inv-20"].map(String::from))
        .filter(|name| selection.offers(&snapshot, name))
        .take(3)
        .collect();
    assert_eq!(within.len(), 3, "{within:?}");
    assert_eq!(within, expected);
    assert!(
        within.iter().all(|n| n.ends_with('0') || n.ends_with('5')),
        "{within:?}"
    );
}

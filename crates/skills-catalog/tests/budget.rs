//! The budgeted skills list: within the budget it is the V2 list; over it, entries get
//! shorter in steps (compact, name only, left out), least used and earliest source first,
//! loaded and pinned skills never; the same inputs give the same text.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};

use skills_catalog::prompt::{ListContext, format_skills_list};
use skills_catalog::{AllowedToolsPolicy, CatalogBudget, EntryForm, Ranking, SharedResources, format_budgeted_list};
use skills_core::SkillMetadata;

fn skill(name: &str, description: &str) -> SkillMetadata {
    SkillMetadata {
        path: format!("/skills/{name}/SKILL.md"),
        name: name.into(),
        description: description.into(),
        license: None,
        compatibility: None,
        metadata: Default::default(),
        allowed_tools: Vec::new(),
        extra: Default::default(),
        extensions: None,
    }
}

fn library() -> Vec<std::sync::Arc<SkillMetadata>> {
    [
        skill("alpha", "Writes release notes. Reads the merged pull requests first."),
        skill(
            "beta",
            "Reviews code for security problems: injections, secrets, unsafe calls.",
        ),
        skill("gamma", "Formats tables"),
        skill(
            "delta",
            "Plans database migrations; checks locks and long transactions before running.",
        ),
    ]
    .map(std::sync::Arc::new)
    .into()
}

/// The list context of these tests: no resources, one source path.
fn context<'a>(loaded: &'a [String], resources: &'a BTreeMap<String, SharedResources>) -> ListContext<'a> {
    ListContext {
        loaded,
        resources,
        policy: AllowedToolsPolicy::Recommend,
        source_paths: &["/skills"],
        tools: skills_catalog::prompt::ToolNotes::None,
    }
}

fn render(loaded: &[String], budget: &CatalogBudget, uses: &HashMap<String, u64>) -> (String, Vec<EntryForm>) {
    let resources = BTreeMap::new();
    let ctx = context(loaded, &resources);
    let sources = [0, 0, 1, 1];
    let ranking = Ranking {
        uses: Some(uses),
        sources: &sources,
    };
    let (text, report) = format_budgeted_list(&library(), &ctx, budget, &ranking);
    // Only loaded and pinned skills, which keep their full entry, may take it over.
    let protected = !loaded.is_empty() || budget != &CatalogBudget::of_chars(budget.chars().unwrap_or(0));
    assert!(
        protected || budget.chars().is_none_or(|limit| report.total <= limit),
        "{} over {:?}:\n{text}",
        report.total,
        budget.chars()
    );
    assert_eq!(report.total, text.chars().count());
    (text, report.entries.iter().map(|(_, form, _)| *form).collect())
}

const FULL: &str = "- **alpha**: Writes release notes. Reads the merged pull requests first.
  -> Use `load_skill(\"alpha\")` to read full instructions
- **beta**: Reviews code for security problems: injections, secrets, unsafe calls.
  -> Use `load_skill(\"beta\")` to read full instructions
- **gamma**: Formats tables
  -> Use `load_skill(\"gamma\")` to read full instructions
- **delta**: Plans database migrations; checks locks and long transactions before running.
  -> Use `load_skill(\"delta\")` to read full instructions";

#[test]
fn within_the_budget_the_list_is_the_v2_list() {
    let none = HashMap::new();
    for budget in [CatalogBudget::unlimited(), CatalogBudget::of_chars(FULL.len())] {
        let (text, forms) = render(&[], &budget, &none);
        assert_eq!(text, FULL);
        assert_eq!(forms, [EntryForm::Full; 4]);
    }
    let resources = BTreeMap::new();
    assert_eq!(format_skills_list(&library(), &context(&[], &resources)), FULL);
}

#[test]
fn over_the_budget_entries_shorten_in_steps_least_important_first() {
    let none = HashMap::new();
    let footer = |full, short, names, omitted| {
        format!(
            "({full} skills shown in full, {short} in short, {names} by name only; {omitted} not listed, to keep \
             this list short. `search_skills` finds any skill by what it does; `load_skill` loads one by its name.)"
        )
    };
    // Source 0 (alpha, beta) ranks below source 1 (gamma, delta); within a source the
    // later skill loses its entry first. The counting line's room is kept aside.
    let (text, forms) = render(&[], &CatalogBudget::of_chars(FULL.len() - 1), &none);
    assert_eq!(
        forms,
        [EntryForm::Compact, EntryForm::Compact, EntryForm::Full, EntryForm::Full]
    );
    assert_eq!(
        text,
        format!(
            "- **alpha**: Writes release notes\n- **beta**: Reviews code for security problems\n- **gamma**: Formats tables\n  -> Use `load_skill(\"gamma\")` to read full instructions\n- **delta**: Plans database migrations; checks locks and long transactions before running.\n  -> Use `load_skill(\"delta\")` to read full instructions\n{}",
            footer(2, 2, 0, 0)
        )
    );
    let (text, forms) = render(&[], &CatalogBudget::of_chars(339), &none);
    assert_eq!(forms, [EntryForm::Compact; 4]);
    assert_eq!(
        text,
        format!(
            "- **alpha**: Writes release notes\n- **beta**: Reviews code for security problems\n- **gamma**: Formats tables\n- **delta**: Plans database migrations\n{}",
            footer(0, 4, 0, 0)
        )
    );
    let (text, forms) = render(&[], &CatalogBudget::of_chars(279), &none);
    assert_eq!(
        forms,
        [EntryForm::Name, EntryForm::Name, EntryForm::Compact, EntryForm::Compact]
    );
    assert_eq!(
        text,
        format!(
            "- **alpha**\n- **beta**\n- **gamma**: Formats tables\n- **delta**: Plans database migrations\n{}",
            footer(0, 2, 2, 0)
        )
    );
    let (text, forms) = render(&[], &CatalogBudget::of_chars(219), &none);
    assert_eq!(
        forms,
        [EntryForm::Name, EntryForm::Omitted, EntryForm::Name, EntryForm::Name]
    );
    assert_eq!(
        text,
        format!("- **alpha**\n- **gamma**\n- **delta**\n{}", footer(0, 0, 3, 1))
    );
}

#[test]
fn loaded_and_pinned_skills_keep_their_entry_and_use_counts_rank() {
    let loaded = vec!["alpha".to_owned()];
    let uses = HashMap::from([("beta".to_owned(), 3)]);
    let budget = CatalogBudget::of_chars(359).with_pinned(["gamma"]);
    let (text, forms) = render(&loaded, &budget, &uses);
    // alpha is loaded and gamma pinned: full; beta was used, delta never: delta goes
    // first although its source ranks higher.
    assert_eq!(
        forms,
        [EntryForm::Full, EntryForm::Name, EntryForm::Full, EntryForm::Omitted],
        "{text}"
    );
    assert!(
        text.starts_with("- **alpha** [Loaded]: Writes release notes."),
        "{text}"
    );
    assert_eq!(render(&loaded, &budget, &uses), (text, forms), "same inputs, same text");
}

#[test]
fn a_full_entry_cuts_its_description_at_the_entry_cap() {
    let none = HashMap::new();
    let budget = CatalogBudget::unlimited().with_entry_chars(20);
    let (text, _) = render(&[], &budget, &none);
    assert!(text.starts_with("- **alpha**: Writes release notes...\n"), "{text}");
    assert_eq!(CatalogBudget::of_context_window(100_000, 0.02).chars(), Some(8_000));
}

#[tokio::test]
async fn a_catalogs_use_counts_rank_its_budgeted_section() {
    use std::sync::Arc;

    use skills_catalog::{PromptSection, PromptTemplate, SkillCatalog, SkillSource};
    use skills_core::MemoryBackend;

    let backend = Arc::new(MemoryBackend::new());
    for s in library() {
        let md = format!("---\nname: {}\ndescription: {}\n---\n", s.name, s.description);
        backend.insert(&format!("/skills/{}/SKILL.md", s.name), md).unwrap();
    }
    let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/skills")]);
    let section = PromptSection::of_catalog(&catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default())
        .with_budget(CatalogBudget::of_chars(204));
    let snapshot = catalog.ensure_loaded().await;
    let form_of = |report: &skills_catalog::BudgetReport, name: &str| {
        report.entries.iter().find(|(n, _, _)| n == name).unwrap().1
    };
    let before = section.report(&snapshot, &[]);
    // Room for two names: with equal counts the later places in the catalog (alpha,
    // beta, delta, gamma) go first.
    assert_eq!(form_of(&before, "delta"), EntryForm::Omitted, "{before:?}");
    assert_eq!(form_of(&before, "beta"), EntryForm::Name, "{before:?}");
    for _ in 0..3 {
        catalog.record_use("delta");
    }
    assert_eq!(catalog.use_counts().get("delta"), 3);
    let after = section.report(&snapshot, &[]);
    assert_eq!(form_of(&after, "delta"), EntryForm::Name, "{after:?}");
    assert_eq!(form_of(&after, "beta"), EntryForm::Omitted, "{after:?}");
    // The cached section is not re-ranked per use; a new loaded set renders afresh.
    let first = section.render(&snapshot, &[]);
    catalog.record_use("alpha");
    assert!(Arc::ptr_eq(&first, &section.render(&snapshot, &[])));
}

#[test]
fn every_skill_of_a_pinned_or_used_name_counts_as_such() {
    // Names are unique in a catalog; a list given by hand may repeat one, and each
    // skill of that name is pinned (or used) alike.
    let mut skills = library();
    skills.push(std::sync::Arc::new(skill("beta", "A second beta, listed last.")));
    let resources = BTreeMap::new();
    let ctx = context(&[], &resources);
    let sources = [0; 5];
    let uses = HashMap::new();
    let ranking = Ranking {
        uses: Some(&uses),
        sources: &sources,
    };
    let budget = CatalogBudget::of_chars(60).with_pinned(["beta"]);
    let (text, report) = format_budgeted_list(&skills, &ctx, &budget, &ranking);
    let forms: Vec<EntryForm> = report.entries.iter().map(|(_, form, _)| *form).collect();
    assert_eq!(forms[1], EntryForm::Full, "{text}");
    assert_eq!(forms[4], EntryForm::Full, "{text}");
    assert!(forms.iter().filter(|f| **f == EntryForm::Full).count() == 2, "{text}");
}

#[test]
fn a_large_library_counts_each_entry_as_it_is_written() {
    // Over 2,048 skills the entries are measured on several threads: each skill's count
    // must still be its own entry's, whatever thread measured it.
    let skills: Vec<std::sync::Arc<SkillMetadata>> = (0..5_000)
        .map(|i| {
            let words = vec!["word"; 1 + i % 37].join(" ");
            std::sync::Arc::new(skill(&format!("skill-{i:04}"), &format!("Does task {i}: {words}.")))
        })
        .collect();
    let resources = BTreeMap::new();
    let ctx = context(&[], &resources);
    let sources = vec![0; skills.len()];
    let ranking = Ranking {
        uses: None,
        sources: &sources,
    };
    let (text, report) = format_budgeted_list(&skills, &ctx, &CatalogBudget::of_chars(200_000), &ranking);
    assert!(report.total <= 200_000);
    assert_eq!(report.total, text.chars().count());
    // Each entry of the text (the counting line after the last one cut), by the skill
    // it names, with its line break.
    let entries = &text[..text.rfind("\n(").unwrap()];
    let written: HashMap<&str, usize> = entries
        .split("\n- **")
        .map(|entry| {
            let entry = entry.strip_prefix("- **").unwrap_or(entry);
            (
                entry.split("**").next().unwrap(),
                entry.chars().count() + "- **".len() + 1,
            )
        })
        .collect();
    for (name, form, chars) in &report.entries {
        if *form != EntryForm::Omitted {
            assert_eq!(written.get(name.as_str()), Some(chars), "{name} ({form:?})");
        }
    }
    assert!(report.count(EntryForm::Full) > 0 && report.count(EntryForm::Compact) > 0);
}

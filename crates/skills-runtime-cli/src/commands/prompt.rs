//! `skills prompt [--loaded a,b]`: the exact skills section of the system prompt, as an
//! agent with those skills loaded sees it.

use std::process::ExitCode;

use serde::Serialize;
use skills_runtime::{
    AllowedToolsPolicy, CatalogBudget, CatalogSnapshot, EntryForm, PromptSection, PromptTemplate, ToolSet,
};

use crate::cli::{BudgetArgs, EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::print_diagnostics;

#[derive(Serialize)]
struct PromptJson<'a> {
    catalog_version: u64,
    loaded: &'a [String],
    section: &'a str,
}

/// Which agent the section is for: its view and its tools (`--view`,
/// `--available-tools`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Agent<'a> {
    pub view: Option<&'a str>,
    pub tools: Option<&'a [String]>,
}

/// `skills prompt [--loaded a,b] [--budget CHARS | --context-window TOKENS] [--report]`:
/// the exact skills section of the system prompt, or what the budget did to it.
pub async fn prompt(
    args: &SourceArgs,
    agent: Agent<'_>,
    loaded: &[String],
    json: bool,
    budget_args: BudgetArgs,
    report: bool,
) -> anyhow::Result<ExitCode> {
    let library = library::catalog(args, Need::Agent, json).await?;
    let budget = budget_args.budget(&library.prompt)?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    if let Some(unknown) = loaded.iter().find(|name| snapshot.get(name).is_none()) {
        show_err!("error: no skill named {unknown:?} in the sources");
        return Ok(ExitCode::from(EXIT_SOURCE_ERROR));
    }
    let tools = agent
        .tools
        .map(|tools| ToolSet::new(tools.iter().map(|t| t.trim()).filter(|t| !t.is_empty())));
    let section = PromptSection::of_catalog(&catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default())
        .with_budget(budget)
        .with_view(library.view(agent.view)?)
        .with_tools(tools);
    // The section keeps what it offers of this snapshot: computed once, warned about here.
    if let Some(selection) = section.selection(&snapshot, None) {
        library::warn_view(&selection);
    }
    if report {
        print_report(&section, &snapshot, loaded)?;
        return Ok(ExitCode::from(library.finish(EXIT_OK)));
    }
    let (section, _) = section.render_fetching(&snapshot, loaded).await;
    if json {
        let out = PromptJson {
            catalog_version: snapshot.version(),
            loaded,
            section: &section,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        // What a model reads, byte for byte, unless a person's terminal would obey it.
        println!("{}", crate::terminal::for_stdout(&section));
    }
    Ok(ExitCode::from(library.finish(EXIT_OK)))
}

/// Budgets `--report` compares, in characters.
const OTHER_BUDGETS: [usize; 6] = [2_000, 4_000, 8_000, 16_000, 32_000, 64_000];

/// `--report`: one line per skill (form, characters, name), the total, and what other
/// budgets would show.
fn print_report(section: &PromptSection, snapshot: &CatalogSnapshot, loaded: &[String]) -> anyhow::Result<()> {
    use std::io::Write;
    let form_name = |form: EntryForm| match form {
        EntryForm::Full => "full",
        EntryForm::Compact => "short",
        EntryForm::Name => "name",
        EntryForm::Omitted => "omitted",
    };
    let report = section.report(snapshot, loaded);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (name, form, chars) in &report.entries {
        writeln!(out, "{:<8} {chars:>6}  {name}", form_name(*form))?;
    }
    let limit = section
        .budget()
        .chars()
        .map_or_else(|| "no budget".to_owned(), |c| format!("budget {c}"));
    let counts = |r: &skills_runtime::BudgetReport| {
        format!(
            "{} full, {} short, {} by name, {} not listed",
            r.count(EntryForm::Full),
            r.count(EntryForm::Compact),
            r.count(EntryForm::Name),
            r.count(EntryForm::Omitted)
        )
    };
    writeln!(out, "total {} characters ({limit}): {}", report.total, counts(&report))?;
    for chars in OTHER_BUDGETS {
        let other = PromptSection::new(&[], section.policy(), PromptTemplate::default())
            .with_budget(CatalogBudget::of_chars(chars));
        let r = other.report(snapshot, loaded);
        writeln!(out, "at {chars} characters: {} ({} characters)", counts(&r), r.total)?;
    }
    out.flush()?;
    Ok(())
}

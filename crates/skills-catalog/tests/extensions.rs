//! The skill fields beyond the specification in the catalog: who sees and loads a skill,
//! arguments, `when_to_use`, and the tool rules (`disallowed-tools`, argument patterns
//! of `allowed-tools`).

#![allow(clippy::unwrap_used)] // Tests fail loudly.

use std::sync::Arc;

use serde_json::json;
use skills_catalog::{
    AllowedToolsPolicy, CatalogBudget, Invoker, LoadAnswer, LoadError, LoadRequest, PromptSection, PromptTemplate,
    SkillArguments, SkillCatalog, SkillSource, check_tool_call, load_skill, load_skill_with,
};
use skills_core::{MemoryBackend, SkillMetadata, parse_skill_md};

const DEPLOY: &str = "---\nname: deploy\ndescription: Deploys the app\ndisable-model-invocation: true\n\
                      argument-hint: \"[env] [version]\"\n---\nDeploy $1 to $0 from ${SKILL_DIR}.\n";
const REVIEW: &str = "---\nname: review\ndescription: Reviews a change\nargument-hint: \"[pr]\"\n\
                      when_to_use: When a pull request is ready for review.\nuser-invocable: false\n---\n\
                      Review $ARGUMENTS now.\n";
const PLAIN: &str = "---\nname: shell\ndescription: Shell tips\n---\nawk '{print $1}' and $ARGUMENTS stay.\n";

async fn catalog() -> SkillCatalog {
    let backend = Arc::new(MemoryBackend::new());
    backend.insert("/skills/deploy/SKILL.md", DEPLOY).unwrap();
    backend.insert("/skills/review/SKILL.md", REVIEW).unwrap();
    backend.insert("/skills/shell/SKILL.md", PLAIN).unwrap();
    SkillCatalog::new(vec![SkillSource::new(backend, "/skills")])
}

fn section(catalog: &SkillCatalog, budget: CatalogBudget) -> PromptSection {
    PromptSection::of_catalog(catalog, AllowedToolsPolicy::Recommend, PromptTemplate::default()).with_budget(budget)
}

fn text(answer: LoadAnswer) -> String {
    match answer {
        LoadAnswer::Loaded { text } => text,
        other => panic!("not loaded: {other:?}"),
    }
}

#[tokio::test]
async fn a_manual_only_skill_is_not_listed_searched_or_loadable_by_the_model() {
    let catalog = catalog().await;
    let snapshot = catalog.ensure_loaded().await;
    for budget in [CatalogBudget::unlimited(), CatalogBudget::of_chars(200)] {
        let rendered = section(&catalog, budget).render(&snapshot, &[]);
        assert!(!rendered.contains("deploy"), "{rendered}");
        assert!(rendered.contains("**review**"), "{rendered}");
    }
    assert!(
        catalog
            .search("deploy the app", 8)
            .unwrap()
            .iter()
            .all(|h| h.name != "deploy")
    );
    // The same skill, model-invocable, is the first answer to that request.
    let mut visible = snapshot.get("deploy").unwrap().clone();
    visible.extensions = None;
    let index = skills_catalog::SkillIndex::build(&[visible, snapshot.get("shell").unwrap().clone()]);
    assert_eq!(index.search("deploy the app", 1).unwrap()[0].name, "deploy");
    assert!(
        catalog
            .search("review a change", 8)
            .unwrap()
            .iter()
            .any(|h| h.name == "review")
    );

    let refused = load_skill(&snapshot, "deploy", &[]).await;
    assert!(matches!(&refused, LoadAnswer::Failed(LoadError::ModelInvocationDisabled { name }) if name == "deploy"));
    assert!(
        refused.to_string().contains("can only be invoked by the user"),
        "{refused}"
    );
    let unknown = load_skill(&snapshot, "nope", &[]).await.to_string();
    assert!(unknown.ends_with("Available skills: review, shell"), "{unknown}");

    let by_user = load_skill_with(&snapshot, "deploy", LoadRequest::new(&[]).by(Invoker::User)).await;
    assert!(text(by_user).contains("Deploy $1 to $0 from /skills/deploy."));
}

#[tokio::test]
async fn entries_show_the_argument_hint_and_when_to_use() {
    let catalog = catalog().await;
    let snapshot = catalog.ensure_loaded().await;
    let rendered = section(&catalog, CatalogBudget::unlimited()).render(&snapshot, &[]);
    assert!(
        rendered.contains("- **review**: Reviews a change When a pull request is ready for review."),
        "{rendered}"
    );
    assert!(
        rendered.contains("`load_skill(\"review\", arguments=\"[pr]\")`"),
        "{rendered}"
    );
    assert!(rendered.contains("`load_skill(\"shell\")`"), "{rendered}");
    // `when_to_use` is searchable too.
    assert_eq!(catalog.search("pull request ready", 1).unwrap()[0].name, "review");
}

#[tokio::test]
async fn arguments_are_substituted_into_the_body_only() {
    let catalog = catalog().await;
    let snapshot = catalog.ensure_loaded().await;
    let args = SkillArguments::Text("staging \"v 2\"".into());
    let request = LoadRequest::new(&[]).with_arguments(Some(&args)).by(Invoker::User);
    let loaded = text(load_skill_with(&snapshot, "deploy", request).await);
    assert!(
        loaded.starts_with(DEPLOY.split("---\nDeploy").next().unwrap()),
        "frontmatter as written"
    );
    assert!(
        loaded.contains("Deploy v 2 to staging from /skills/deploy."),
        "{loaded}"
    );

    let list = SkillArguments::List(vec!["42".into()]);
    let request = LoadRequest::new(&[]).with_arguments(Some(&list));
    assert!(text(load_skill_with(&snapshot, "review", request).await).contains("Review 42 now."));
    // A skill with an argument hint and no arguments: `$ARGUMENTS` is empty.
    assert!(text(load_skill(&snapshot, "review", &[]).await).contains("Review  now."));
}

#[tokio::test]
async fn a_plain_skill_loads_verbatim_without_arguments_and_appends_them_when_given() {
    let catalog = catalog().await;
    let snapshot = catalog.ensure_loaded().await;
    assert_eq!(text(load_skill(&snapshot, "shell", &[]).await), PLAIN);
    let args = SkillArguments::Text("x".into());
    let request = LoadRequest::new(&[]).with_arguments(Some(&args));
    let loaded = text(load_skill_with(&snapshot, "shell", request).await);
    assert!(
        loaded.contains("awk '{print $1}' and x stay."),
        "$1 is past the only argument: {loaded}"
    );
    assert!(!loaded.contains("ARGUMENTS:"), "placeholders took them");
}

#[tokio::test]
async fn a_loaded_skill_loads_again_only_with_new_arguments_and_bad_arguments_are_refused() {
    let catalog = catalog().await;
    let snapshot = catalog.ensure_loaded().await;
    let loaded = ["review".to_owned()];
    assert!(matches!(
        load_skill(&snapshot, "review", &loaded).await,
        LoadAnswer::AlreadyLoaded { .. }
    ));
    let args = SkillArguments::Text("7".into());
    let again = load_skill_with(
        &snapshot,
        "review",
        LoadRequest::new(&loaded).with_arguments(Some(&args)),
    )
    .await;
    assert!(text(again).contains("Review 7 now."));
    let open = SkillArguments::Text("'unclosed".into());
    let refused = load_skill_with(&snapshot, "review", LoadRequest::new(&[]).with_arguments(Some(&open))).await;
    assert_eq!(
        refused.to_string(),
        "Error: invalid arguments for skill 'review': a quote is not closed"
    );
}

fn skill(frontmatter: &str) -> SkillMetadata {
    let md = format!("---\nname: s\ndescription: d\n{frontmatter}---\n");
    parse_skill_md(md.as_bytes(), "/skills/s/SKILL.md", "s").skill.unwrap()
}

#[test]
fn disallowed_tools_are_refused_under_every_policy() {
    let git = skill("disallowed-tools: WebFetch, Bash(rm:*)\n");
    for policy in [AllowedToolsPolicy::Recommend, AllowedToolsPolicy::Restrict] {
        let refused = check_tool_call(policy, "WebFetch", &json!({}), [&git]).unwrap();
        assert_eq!(
            refused,
            "Tool 'WebFetch' is disallowed while skill 's' is loaded (its disallowed-tools has `WebFetch`)."
        );
        assert!(check_tool_call(policy, "Bash", &json!({"command": "rm -rf build"}), [&git]).is_some());
        assert_eq!(check_tool_call(policy, "Bash", &json!({"command": "ls"}), [&git]), None);
        assert_eq!(check_tool_call(policy, "Read", &json!({}), [&git]), None);
        assert_eq!(
            check_tool_call(policy, "WebFetch", &json!({}), []),
            None,
            "not loaded, not refused"
        );
    }
}

#[test]
fn allowed_tools_patterns_match_the_first_argument_by_prefix_words() {
    let git = skill("allowed-tools: Bash(git add:*) Bash(git status) Read\n");
    let restrict =
        |tool: &str, args: serde_json::Value| check_tool_call(AllowedToolsPolicy::Restrict, tool, &args, [&git]);
    assert_eq!(restrict("Bash", json!({"command": "git add src/"})), None);
    assert_eq!(restrict("Bash", json!({"command": "git add"})), None);
    assert_eq!(restrict("Bash", json!({"command": "git status"})), None);
    assert!(
        restrict("Bash", json!({"command": "git status --short"})).is_some(),
        "exact without :*"
    );
    assert!(
        restrict("Bash", json!({"command": "git addendum"})).is_some(),
        "words, not characters"
    );
    let refused = restrict("Bash", json!({"command": "git push"})).unwrap();
    assert!(
        refused.starts_with("This call of tool 'Bash' is not in the allowed-tools list"),
        "{refused}"
    );
    let other = restrict("Write", json!({})).unwrap();
    assert!(
        other.starts_with("Tool 'Write' is not in the allowed-tools list"),
        "{other}"
    );
    assert!(restrict("Bash", json!({})).is_some(), "a pattern needs an argument");
    assert_eq!(restrict("Read", json!({"file_path": "/any"})), None);
    assert_eq!(restrict("load_skill", json!({})), None, "always allowed");
    // The first string argument in name order when no well-known name is there.
    assert_eq!(restrict("Bash", json!({"b": 1, "a": "git add x"})), None);
    // Under Recommend nothing is refused by allowed-tools.
    assert_eq!(
        check_tool_call(
            AllowedToolsPolicy::Recommend,
            "Bash",
            &json!({"command": "git push"}),
            [&git]
        ),
        None
    );
}

#[test]
fn tool_names_take_wildcards_and_mcp_server_names() {
    let mcp = skill("allowed-tools:\n  - mcp__aws__*\n  - mcp__docs\n  - Bash(aws s3 ls *)\n");
    let restrict =
        |tool: &str, args: serde_json::Value| check_tool_call(AllowedToolsPolicy::Restrict, tool, &args, [&mcp]);
    assert_eq!(restrict("mcp__aws__call", json!({})), None);
    assert_eq!(restrict("mcp__docs__search", json!({})), None);
    assert!(restrict("mcp__docsearch__x", json!({})).is_some());
    assert!(restrict("mcp__other__x", json!({})).is_some());
    assert_eq!(restrict("Bash", json!({"command": "aws s3 ls s3://bucket"})), None);
    assert!(restrict("Bash", json!({"command": "aws s3 rm s3://bucket"})).is_some());
}

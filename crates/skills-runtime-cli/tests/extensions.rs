//! The skill fields beyond the specification through the CLI and the MCP server: flags
//! and resources in `list`, the fields in `info`, `load -- ARGS`, `new --manual --fork
//! --argument-hint`, and a model-facing MCP client that neither sees nor loads a skill
//! for people only.

#![allow(clippy::unwrap_used)]

mod common;

use common::{json, mcp_client, md, skills, stderr, stdout, write};

const DEPLOY: &str = "---\nname: deploy\ndescription: Deploy the app\ndisable-model-invocation: true\n\
                      argument-hint: \"[env] [version]\"\nmodel: big-model\ndisallowed-tools: WebFetch, Bash(rm:*)\n\
                      hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          \
                      command: ./scripts/check.sh\n          once: true\n\
                      paths: \"src/**, deploy/*.yaml\"\n---\nShip $1 to $0 using ${SKILL_DIR}/scripts/go.sh.\n";
const GREET: &str = "---\nname: greet\ndescription: Greet someone\nargument-hint: \"[name]\"\n\
                     user-invocable: false\ncontext: fork\nwhen_to_use: When someone arrives.\n---\nSay hello to $0.\n";

fn library(root: &std::path::Path) {
    write(root, "lib/deploy/SKILL.md", DEPLOY);
    write(root, "lib/deploy/scripts/go.sh", "echo go");
    write(root, "lib/deploy/scripts/check.sh", "echo check");
    write(root, "lib/deploy/references/envs.md", "# Environments");
    write(root, "lib/greet/SKILL.md", GREET);
    write(root, "lib/plain/SKILL.md", &md("plain", "A plain skill"));
}

#[test]
fn list_shows_resource_counts_and_flags_in_the_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let out = skills(dir.path(), &["list", "--source", "lib", "--resources"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split("  ").filter(|c| !c.is_empty()).map(str::trim).collect())
        .collect();
    assert_eq!(rows[0], ["NAME", "DESCRIPTION", "RESOURCES", "FLAGS", "SOURCE"]);
    assert_eq!(
        rows[1],
        ["deploy", "Deploy the app", "2s 1r", "manual,model=big-model", "lib"]
    );
    assert_eq!(rows[2], ["greet", "Greet someone", "-", "model-only,fork", "lib"]);
    assert_eq!(
        rows[3],
        ["plain", "A plain skill", "-", "lib"],
        "no flags: an empty column"
    );

    let listed = json(&skills(
        dir.path(),
        &["list", "--source", "lib", "--json", "--resources"],
    ));
    let deploy = &listed[0];
    assert_eq!(deploy["model_invocable"], false);
    assert_eq!(deploy["user_invocable"], true);
    assert_eq!(deploy["resources"]["scripts"], 2);
    assert_eq!(deploy["resources"]["references"], 1);
    assert_eq!(deploy["extensions"]["argument_hint"], "[env] [version]");
    assert_eq!(
        deploy["extensions"]["paths"],
        serde_json::json!(["src/**", "deploy/*.yaml"])
    );
    assert_eq!(
        deploy["extensions"]["hooks"][0]["action"]["command"],
        "./scripts/check.sh"
    );
    assert_eq!(listed[1]["user_invocable"], false);
    assert_eq!(listed[1]["extensions"]["context"], "fork");
    assert!(listed[2].get("extensions").is_none());

    // A deeper source counts each skill folder on its own: the same counts, skill by
    // skill.
    let nested = json(&skills(
        dir.path(),
        &["list", "--source", ".", "--depth", "2", "--json", "--resources"],
    ));
    let counts = |listed: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
        let mut counts: Vec<_> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["name"].as_str().unwrap().to_owned(), s["resources"].clone()))
            .collect();
        counts.sort_by(|a, b| a.0.cmp(&b.0));
        counts
    };
    assert_eq!(counts(&nested), counts(&listed));
    assert_eq!(counts(&nested)[0].1["scripts"], 2, "deploy's two scripts");

    // Without `--resources` (the default, or the old `--no-resources`), no folder is
    // listed: no column, no key.
    for quiet in [&[][..], &["--no-resources"][..]] {
        let args = [&["list", "--source", "lib"][..], quiet].concat();
        let quick = stdout(&skills(dir.path(), &args));
        assert!(quick.starts_with("NAME    DESCRIPTION     FLAGS"), "{quick}");
        let listed = json(&skills(dir.path(), &[&args[..], &["--json"][..]].concat()));
        assert!(listed[0].get("resources").is_none());
        assert_eq!(listed[0]["model_invocable"], false);
    }
    let both = skills(
        dir.path(),
        &["list", "--source", "lib", "--resources", "--no-resources"],
    );
    assert_eq!(both.status.code(), Some(2), "the two flags contradict each other");
}

#[test]
fn info_shows_the_hint_tool_rules_hooks_and_resources_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let out = skills(dir.path(), &["info", "deploy", "--source", "lib"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "flags:         manual, model=big-model",
        "argument-hint: [env] [version]",
        "model:         big-model",
        "disallowed-tools: WebFetch, Bash(rm:*)",
        "paths:         src/**, deploy/*.yaml",
        "  PreToolUse [Bash] (once) command: ./scripts/check.sh",
        "  script:    scripts/check.sh, scripts/go.sh",
        "  reference: references/envs.md",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

#[test]
fn load_substitutes_each_argument_as_given_and_loads_skills_for_people() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let out = skills(
        dir.path(),
        &["load", "deploy", "--source", "lib", "--", "eu west", "v2"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lib = dir.path().join("lib").canonicalize().unwrap();
    let expected = format!("Ship v2 to eu west using {}/deploy/scripts/go.sh.", lib.display());
    assert!(stdout(&out).contains(&expected), "{}", stdout(&out));

    let plain = skills(dir.path(), &["load", "plain", "--source", "lib", "--", "x y"]);
    assert!(stdout(&plain).contains("\n\nARGUMENTS: x y"), "{}", stdout(&plain));
    let bare = skills(dir.path(), &["load", "plain", "--source", "lib"]);
    assert!(!stdout(&bare).contains("ARGUMENTS"));
}

#[test]
fn the_model_facing_prompt_leaves_out_skills_for_people() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let out = skills(dir.path(), &["prompt", "--source", "lib"]);
    let text = stdout(&out);
    assert!(!text.contains("**deploy**"), "{text}");
    assert!(
        text.contains("- **greet**: Greet someone When someone arrives."),
        "{text}"
    );
    assert!(text.contains("`load_skill(\"greet\", arguments=\"[name]\")`"), "{text}");
    assert!(text.contains("Runs in a subagent"), "{text}");
}

#[test]
fn new_scaffolds_the_invocation_fields() {
    let dir = tempfile::tempdir().unwrap();
    let out = skills(
        dir.path(),
        &[
            "new",
            "ship",
            "--dir",
            "lib",
            "--manual",
            "--fork",
            "--argument-hint",
            "[env]",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = json(&skills(dir.path(), &["list", "--source", "lib", "--json"]));
    assert_eq!(listed[0]["name"], "ship");
    assert_eq!(listed[0]["model_invocable"], false);
    assert_eq!(listed[0]["extensions"]["context"], "fork");
    assert_eq!(listed[0]["extensions"]["argument_hint"], "[env]");
    // The scaffold's own placeholders are escaped: its arguments are appended.
    let loaded = skills(dir.path(), &["load", "ship", "--source", "lib", "--", "prod"]);
    let text = stdout(&loaded);
    assert!(text.contains("Write $ARGUMENTS for every argument"), "{text}");
    assert!(text.ends_with("ARGUMENTS: prod\n"), "{text}");
    let bad = skills(dir.path(), &["new", "two", "--dir", "lib", "--argument-hint", "a\nb"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("the argument hint must be one line"));
}

#[test]
fn an_mcp_client_neither_sees_nor_loads_a_skill_for_people_and_passes_arguments() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let lib = dir.path().join("lib");
    let bin = env!("CARGO_BIN_EXE_skills");
    let (_, report) = mcp_client(
        dir.path(),
        "extensions",
        &lib,
        &[bin, "serve", "--source", lib.to_str().unwrap()],
    );
    let text = |key: &str| report[key]["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(!report["instructions"].as_str().unwrap().contains("deploy"));
    assert!(!text("list_skills").contains("deploy"), "{}", text("list_skills"));
    assert!(!text("search_manual").contains("deploy"), "{}", text("search_manual"));
    assert_eq!(report["load_manual"]["is_error"], true);
    assert!(text("load_manual").contains("can only be invoked by the user"));
    assert_eq!(report["load_arguments"]["is_error"], false);
    assert!(
        text("load_arguments").contains("Say hello to Ada Lovelace."),
        "{}",
        text("load_arguments")
    );
    // skills/list publishes every skill, its frontmatter verbatim.
    let listed = report["skills_list"]["skills"].as_array().unwrap();
    let deploy = listed.iter().find(|s| s["uri"] == "skill://deploy/SKILL.md").unwrap();
    assert_eq!(deploy["frontmatter"]["disable-model-invocation"], true);
    assert_eq!(deploy["frontmatter"]["argument-hint"], "[env] [version]");
}

/// Skills as MCP prompts (slash commands), on both protocol eras: every skill a person
/// may invoke is one (the manual-only `deploy` too, still refused to the model), named
/// after the skill or, for a title, after its folder; arguments come from the argument
/// hint; `prompts/get` answers what `skills load` prints; bad input is an error a person
/// can act on; adding a skill tells the client.
#[test]
fn skills_are_prompts_a_person_invokes_with_their_arguments() {
    for mode in ["prompts", "prompts-legacy"] {
        let dir = tempfile::tempdir().unwrap();
        library(dir.path());
        write(
            dir.path(),
            "lib/daily/SKILL.md",
            "---\nname: Daily Log\ndescription: Keep a daily log\n---\nWrite today's entry.\n",
        );
        let lib = dir.path().join("lib");
        let bin = env!("CARGO_BIN_EXE_skills");
        let (output, report) = mcp_client(
            dir.path(),
            mode,
            &lib,
            &[bin, "serve", "--source", lib.to_str().unwrap()],
        );
        let list = &report["prompts_list"];
        let names: Vec<&str> = list["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        // The catalog's order; `greet` is `user-invocable: false`.
        assert_eq!(names, ["daily", "deploy", "plain"], "{mode}: {list}");
        let deploy = &list["prompts"][1];
        assert_eq!(deploy["description"], "Deploy the app", "{mode}");
        let args: Vec<(&str, bool)> = deploy["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["name"].as_str().unwrap(), a["required"].as_bool().unwrap()))
            .collect();
        assert_eq!(args, [("env", true), ("version", true)], "{mode}");
        assert_eq!(list["prompts"][0]["title"], "Daily Log", "{mode}");
        assert_eq!(list["prompts"][2]["arguments"][0]["name"], "arguments", "{mode}");
        if mode == "prompts" {
            assert!(
                list["ttlMs"].as_u64().is_some() && list["cacheScope"].is_string(),
                "{list}"
            );
        }

        // What `skills load deploy -- staging 2.1` prints, as one user message.
        let loaded = skills(
            dir.path(),
            &["load", "deploy", "--source", "lib", "--", "staging", "2.1"],
        );
        let messages = &report["deploy"]["result"]["messages"];
        assert_eq!(messages.as_array().unwrap().len(), 1, "{mode}: {report}");
        assert_eq!(messages[0]["role"], "user");
        assert_eq!(
            messages[0]["content"]["text"].as_str().unwrap(),
            stdout(&loaded).trim_end_matches('\n')
        );
        let plain = report["plain"]["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap();
        assert!(plain.contains("ARGUMENTS: one 'two three'"), "{mode}: {plain}");
        assert!(
            report["titled"]["result"]["messages"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .contains("Write today's entry."),
            "{mode}"
        );

        for (case, needle) in [
            ("deploy_missing", "needs the argument version"),
            ("deploy_extra", "takes no argument \"force\""),
            ("unknown", "no prompt named \"nope\"; prompts: daily, deploy, plain"),
            ("model_only", "no prompt named \"greet\""),
            ("too_long", "too long: at most 256 arguments and 16384 characters"),
        ] {
            assert_eq!(report[case]["raised"], true, "{mode} {case}: {report}");
            assert_eq!(report[case]["code"], -32602, "{mode} {case}");
            let message = report[case]["message"].as_str().unwrap();
            assert!(message.contains(needle), "{mode} {case}: {message}");
        }
        // The model still cannot load a skill for people, and loads a titled one.
        assert_eq!(report["load_manual"]["is_error"], true, "{mode}");
        assert_eq!(report["load_titled"]["is_error"], false, "{mode}: {report}");

        assert_eq!(report["prompts_changed"], true, "{mode}: {report}");
        let after: Vec<&str> = report["prompts_after"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(after, ["daily", "deploy", "gamma", "plain"], "{mode}");
        // The startup line counts every skill, and says which only tools and prompts reach.
        let err = stderr(&output);
        assert!(
            err.contains("serving 4 skills (1 of them through tools and prompts only") && err.contains("\"Daily Log\""),
            "{mode}: {err}"
        );
    }
}

//! The frontmatter fields beyond the specification: each one read, each bad value
//! reported and dropped (never a skipped skill), and a plain skill left without them.

use skills_core::{
    DiagnosticKind, HookAction, HookEvent, SkillContext, SkillMetadata, ValidationProfile, parse_skill_md,
};

fn parse(frontmatter: &str) -> (SkillMetadata, Vec<(DiagnosticKind, String)>) {
    let md = format!("---\nname: deploy\ndescription: Deploys the app\n{frontmatter}---\nBody\n");
    let outcome = parse_skill_md(md.as_bytes(), "/s/deploy/SKILL.md", "deploy");
    let diagnostics = outcome.diagnostics.into_iter().map(|d| (d.kind, d.message)).collect();
    (outcome.skill.expect("the skill loads"), diagnostics)
}

#[test]
fn a_plain_skill_has_no_extensions_and_keeps_every_default() {
    let (skill, diagnostics) = parse("");
    assert!(diagnostics.is_empty());
    assert!(skill.extensions.is_none());
    assert!(skill.model_invocable() && skill.user_invocable() && !skill.is_fork());
    assert_eq!(skill.argument_hint(), None);
    assert_eq!(skill.listing_description(), "Deploys the app");
    let json = serde_json::to_value(&skill).unwrap();
    assert!(
        json.get("extensions").is_none(),
        "nothing new in a plain skill's JSON: {json}"
    );
}

#[test]
fn every_field_is_read() {
    let (skill, diagnostics) = parse(
        "disable-model-invocation: true\nuser-invocable: false\nargument-hint: \"[env-name] [version]\"\n\
         model: big-model\neffort: high\ncontext: fork\nagent: reviewer\n\
         disallowed-tools: Bash(rm:*), WebFetch\nwhen_to_use: When a release is tagged.\n\
         paths:\n  - src/**/*.rs\n  - \"{a,b}/*.md\"\n",
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let ext = skill.extensions().unwrap();
    assert!(ext.disable_model_invocation && !skill.model_invocable());
    assert!(!ext.user_invocable && !skill.user_invocable());
    assert_eq!(skill.argument_hint(), Some("[env-name] [version]"));
    assert_eq!(ext.model.as_deref(), Some("big-model"));
    assert_eq!(ext.effort.as_deref(), Some("high"));
    assert_eq!(ext.context, SkillContext::Fork);
    assert!(skill.is_fork());
    assert_eq!(ext.agent.as_deref(), Some("reviewer"));
    assert_eq!(ext.disallowed_tools, ["Bash(rm:*)", "WebFetch"]);
    assert_eq!(ext.paths, ["src/**/*.rs", "{a,b}/*.md"]);
    assert_eq!(skill.listing_description(), "Deploys the app When a release is tagged.");
    // Typed fields leave `extra`; they round-trip through JSON.
    assert!(skill.extra.is_empty());
    let back: SkillMetadata = serde_json::from_value(serde_json::to_value(&skill).unwrap()).unwrap();
    assert_eq!(back, skill);
}

#[test]
fn a_paths_string_splits_on_commas_outside_braces() {
    let (skill, _) = parse("paths: \"src/*.rs, {docs,notes}/*.md\"\n");
    assert_eq!(skill.extensions().unwrap().paths, ["src/*.rs", "{docs,notes}/*.md"]);
}

#[test]
fn hooks_are_typed_data() {
    let (skill, diagnostics) = parse(
        "hooks:\n  PreToolUse:\n    - matcher: \"Bash|Write\"\n      hooks:\n        - type: command\n          \
         command: ./scripts/check.sh\n          timeout: 30\n          once: true\n        - type: prompt\n          \
         prompt: Explain each command first.\n  PostToolUse:\n    - matcher: \"*\"\n      hooks:\n        \
         - type: prompt\n          prompt: Check the result.\n  Stop:\n    - hooks:\n        - type: prompt\n          \
         prompt: Summarize.\n",
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let hooks = &skill.extensions().unwrap().hooks;
    assert_eq!(hooks.len(), 4);
    assert_eq!(hooks[0].event, HookEvent::PreToolUse);
    assert_eq!(hooks[0].matcher.as_deref(), Some("Bash|Write"));
    assert_eq!(
        hooks[0].action,
        HookAction::Command {
            command: "./scripts/check.sh".into(),
            timeout: Some(30)
        }
    );
    assert!(hooks[0].once && !hooks[1].once);
    assert!(hooks[0].matches("Bash") && hooks[0].matches("Write"));
    assert!(!hooks[0].matches("BashExtra") && !hooks[0].matches("Read"));
    assert_eq!(hooks[2].event, HookEvent::PostToolUse);
    assert_eq!(hooks[2].matcher, None, "`*` matches every tool");
    assert!(hooks[2].matches("anything"));
    assert_eq!(hooks[3].event, HookEvent::Stop);
    assert_eq!(
        hooks[3].action,
        HookAction::Prompt {
            prompt: "Summarize.".into()
        }
    );
}

#[test]
fn bad_values_are_reported_and_dropped_and_the_skill_still_loads() {
    let cases = [
        ("disable-model-invocation: sometimes\n", "expected true or false"),
        ("context: elsewhere\n", "the values are `fork` and `inline`"),
        ("model: [a, b]\n", "expected a string, got a sequence"),
        ("disallowed-tools: {a: b}\n", "expected a string or a list"),
        ("hooks: [1]\n", "expected a mapping"),
        (
            "hooks:\n  SessionStart:\n    - hooks: []\n",
            "the events are PreToolUse, PostToolUse and Stop",
        ),
        (
            "hooks:\n  PreToolUse:\n    - matcher: \"(\"\n      hooks:\n        - type: prompt\n          prompt: x\n",
            "is not a valid regular expression",
        ),
        (
            "hooks:\n  PreToolUse:\n    - hooks:\n        - type: shell\n          command: rm -rf /\n",
            "needs `type: command`",
        ),
    ];
    for (frontmatter, expected) in cases {
        let (skill, diagnostics) = parse(frontmatter);
        assert!(
            diagnostics
                .iter()
                .any(|(kind, message)| *kind == DiagnosticKind::FieldIgnored && message.contains(expected)),
            "{frontmatter:?}: {diagnostics:?}"
        );
        assert!(skill.model_invocable(), "{frontmatter:?}: a bad value sets nothing");
        assert!(skill.extensions().is_none_or(|e| e.hooks.is_empty()));
    }
}

#[test]
fn long_values_are_cut_and_hook_counts_bounded() {
    let long = "x".repeat(5000);
    let (skill, diagnostics) = parse(&format!("argument-hint: {long}\n"));
    assert_eq!(
        skill.argument_hint().unwrap().len(),
        skills_core::extensions::MAX_SHORT_FIELD
    );
    assert!(diagnostics.iter().any(|(_, m)| m.contains("longer than")));

    let mut many = String::from("hooks:\n  PreToolUse:\n");
    for i in 0..50 {
        many.push_str(&format!(
            "    - hooks:\n        - type: prompt\n          prompt: p{i}\n"
        ));
    }
    let (skill, diagnostics) = parse(&many);
    assert_eq!(
        skill.extensions().unwrap().hooks.len(),
        skills_core::extensions::MAX_SKILL_HOOKS
    );
    assert!(diagnostics.iter().any(|(_, m)| m.contains("50 hooks declared")));
}

#[test]
fn the_spec_profile_names_each_extension_field_and_lenient_accepts_them() {
    let (skill, _) = parse("disable-model-invocation: true\ncontext: fork\n");
    let found = ValidationProfile::Spec.check(&skill);
    let keys: Vec<&str> = found.iter().map(|d| d.message.split('`').nth(1).unwrap()).collect();
    assert_eq!(keys, ["disable-model-invocation", "context"]);
    assert!(ValidationProfile::Lenient.check(&skill).is_empty());
}

#[test]
fn defaults_written_out_leave_no_extensions() {
    let (skill, diagnostics) = parse("disable-model-invocation: false\nuser-invocable: true\ncontext: inline\n");
    assert!(diagnostics.is_empty());
    assert!(skill.extensions.is_none());
}

#[test]
fn real_world_shapes_are_read_as_their_authors_meant() {
    // `argument-hint: [file]` unquoted is a YAML list; the author meant the text.
    let (skill, diagnostics) = parse("argument-hint: [audio-or-video-file-path ...]\n");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(skill.argument_hint(), Some("[audio-or-video-file-path ...]"));
    let (skill, _) = parse("argument-hint: [env, version]\n");
    assert_eq!(skill.argument_hint(), Some("[env, version]"));
    // A hook written without `hooks:` and without `type`: the key says the kind.
    let (skill, diagnostics) = parse(
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: aws sts get-caller-identity\n      once: true\n",
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let hook = &skill.extensions().unwrap().hooks[0];
    assert_eq!(
        hook.action,
        HookAction::Command {
            command: "aws sts get-caller-identity".into(),
            timeout: None
        }
    );
    assert!(hook.once && hook.matches("Bash"));
}

//! Recovery of the common authoring mistakes (`recover.rs`), as `parse_skill_md` applies it.

use super::*;

#[test]
fn common_mistakes_are_recovered_with_a_hint_that_says_how_to_fix_them() {
    for (source, description, hint) in [
        (
            "---\nname: web\ndescription: |- Searches the web.\n  Cites sources.\n---\n",
            "Searches the web.\nCites sources.",
            "belongs on the next line",
        ),
        (
            "---\nname: web\ndescription: Deploys apps: fast\n---\n",
            "Deploys apps: fast",
            "quote the value",
        ),
        (
            "---\nname: web\ndescription: **Bold** summary\n---\n",
            "**Bold** summary",
            "alias: quote the value",
        ),
        (
            "---\nname: web\ndescription: *missing-anchor\n---\n",
            "*missing-anchor",
            "alias",
        ),
        (
            "---\nname: web\ndescription: #1 tool for the web\n---\n",
            "#1 tool for the web",
            "comment: quote the value",
        ),
        (
            "---\nname: web\ndescription: @mentions the web\n---\n",
            "@mentions the web",
            "`@` cannot start a plain value",
        ),
        (
            "---\nname: web\ndescription: [TODO: Say what it does, and when.]\nlicense: MIT\n---\n",
            "[TODO: Say what it does, and when.]",
            "`[` starts a list: quote the value",
        ),
    ] {
        let outcome = parse_in("web", source);
        let skill = outcome
            .skill
            .clone()
            .unwrap_or_else(|| panic!("{source:?} was skipped: {:?}", outcome.diagnostics));
        assert_eq!(
            (skill.name.as_str(), skill.description.as_str()),
            ("web", description),
            "{source:?}"
        );
        assert_eq!(kinds(&outcome), [Recovered], "{source:?}");
        let message = &outcome.diagnostics[0].message;
        assert!(message.contains(hint), "{source:?}: {message}");
    }
}

#[test]
fn a_description_written_as_a_list_is_read_as_written_only_on_one_line() {
    // A list a person writes as one (over lines, or as a block) stays a list, and a list
    // is not a description.
    for source in [
        "---\nname: web\ndescription:\n  - Searches\n  - Cites\n---\n",
        "---\nname: web\ndescription: [Searches,\n  Cites]\n---\n",
        "---\nname: web\ndescription: [Searches] # note\n---\n",
    ] {
        let outcome = parse_in("web", source);
        assert!(outcome.skill.is_none(), "{source:?}");
        assert_eq!(kinds(&outcome), [MissingDescription], "{source:?}");
    }
    // Only the description: a name in brackets is no name.
    let outcome = parse_in("web", "---\nname: [web]\ndescription: Browse\n---\n");
    assert_eq!(kinds(&outcome), [MissingName]);
}

#[test]
fn recovery_reads_the_rest_as_yaml_and_names_what_it_could_not_read() {
    // With the mistaken value quoted, the nested `metadata` reads as written.
    let source =
        "---\nname: web\ndescription: Deploys: fast\nlicense: MIT\nmetadata:\n  team: infra\n  tags: [a, b]\n---\n";
    let outcome = parse_in("web", source);
    let skill = outcome.skill.clone().unwrap();
    assert_eq!(skill.description, "Deploys: fast");
    assert_eq!(skill.license.as_deref(), Some("MIT"));
    assert_eq!(skill.metadata.get("team").map(String::as_str), Some("infra"));
    assert_eq!(skill.metadata.get("tags").map(String::as_str), Some("[a, b]"));
    assert_eq!(kinds(&outcome), [Recovered]);
    assert!(!outcome.diagnostics[0].message.contains("not read"));

    // A block scalar's text keeps its line breaks through the quoting.
    let source = "---\nname: web\ndescription: |- Deploys\n  \"fast\" \\ safe\nmetadata:\n  team: infra\n---\n";
    let skill = parse_in("web", source).skill.unwrap();
    assert_eq!(skill.description, "Deploys\n\"fast\" \\ safe");
    assert_eq!(skill.metadata.len(), 1);

    // When the rest is broken too, the plain fields are kept and the others named.
    let source = "---\nname: web\ndescription: Deploys: fast\nlicense: MIT\nmetadata:\n  team: [infra\n---\n";
    let outcome = parse_in("web", source);
    let skill = outcome.skill.clone().unwrap();
    assert_eq!(skill.license.as_deref(), Some("MIT"));
    assert!(skill.metadata.is_empty());
    assert!(
        outcome.diagnostics[0].message.contains("not read: metadata"),
        "{:?}",
        outcome.diagnostics
    );
}

#[test]
fn invalid_yaml_that_is_no_known_mistake_is_still_a_skip_with_any_hint() {
    // No name to read: nothing is guessed.
    skipped(b"---\ndescription: Deploys: fast\n---\n", &[InvalidYaml]);
    let outcome = parse_in("web", "---\nname: [web\ndescription: Deploys: fast\n---\n");
    assert_eq!(outcome.skill, None);
    assert!(
        outcome.diagnostics[0].message.contains("hint: `description`"),
        "{:?}",
        outcome.diagnostics
    );
}

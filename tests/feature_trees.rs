//! Heavy dependencies stay behind their features: the default facade builds none of
//! rig's crates, and the `rig` feature brings them (the control that shows the check
//! can see them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// The packages `cargo tree` lists for the facade with `features` (normal and build
/// dependencies: what a user's build compiles).
fn packages(features: &[&str]) -> Vec<String> {
    let mut command = Command::new(env!("CARGO"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "tree",
        "-p",
        "skills-runtime",
        "-e",
        "normal,build",
        "--prefix",
        "none",
        "--locked",
        "--offline",
    ]);
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    let output = command.output().expect("cargo runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

fn rig_packages(packages: &[String]) -> Vec<&String> {
    packages
        .iter()
        .filter(|p| p.as_str() == "skills-rig" || p.starts_with("rig-"))
        .collect()
}

#[test]
fn the_default_facade_builds_nothing_of_rig_and_the_rig_feature_does() {
    let default = packages(&[]);
    assert!(
        default.iter().any(|p| p == "skills-catalog"),
        "the tree was read: {default:?}"
    );
    assert_eq!(rig_packages(&default), Vec::<&String>::new());

    let with_rig = packages(&["rig"]);
    let rig = rig_packages(&with_rig);
    for expected in ["skills-rig", "rig-core", "rig-agent"] {
        assert!(
            rig.iter().any(|p| p.as_str() == expected),
            "{expected} missing from {rig:?}"
        );
    }
}

//! Serde round-trips and the shape of serialized types.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;
use skills_core::*;

fn skill() -> SkillMetadata {
    SkillMetadata {
        path: "/skills/web/SKILL.md".into(),
        name: "web".into(),
        description: "Search".into(),
        license: Some("MIT".into()),
        compatibility: None,
        metadata: BTreeMap::from([("version".into(), "1.10".into())]).into(),
        allowed_tools: vec!["Read".into()],
        extra: BTreeMap::from([(
            "tags".into(),
            FrontmatterValue::List(vec![FrontmatterValue::Text("a".into())]),
        )])
        .into(),
        extensions: None,
    }
}

fn round_trip<T>(value: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

#[test]
fn skills_state_round_trips() {
    let state = SkillsState {
        skills_metadata: Some(vec![std::sync::Arc::new(skill())].into()),
        skills_loaded: vec!["web".into()],
        skill_resources: std::sync::Arc::new(BTreeMap::from([(
            "web".into(),
            vec![ResourceMetadata {
                path: "/skills/web/scripts/run.sh".into(),
                kind: ResourceKind::Script,
                skill_name: "web".into(),
            }]
            .into(),
        )])),
        skills_load_errors: vec![Diagnostic::new(
            "/skills/x/SKILL.md",
            DiagnosticKind::NoFrontmatter,
            "no",
        )]
        .into(),
    };
    assert_eq!(round_trip(&state), state);
    // Shared fields serialize as the values they hold: checkpoints keep their shape.
    let value = serde_json::to_value(&state).unwrap();
    assert_eq!(value["skills_metadata"][0]["name"], "web");
    assert_eq!(value["skill_resources"]["web"][0]["type"], "script");
    assert_eq!(value["skills_load_errors"][0]["path"], "/skills/x/SKILL.md");
    assert_eq!(round_trip(&SkillsState::default()), SkillsState::default());
}

#[test]
fn serialized_names_match_deepagents() {
    let value = serde_json::to_value(skill()).unwrap();
    assert_eq!(
        value,
        json!({
            "path": "/skills/web/SKILL.md", "name": "web", "description": "Search",
            "license": "MIT", "compatibility": null, "metadata": {"version": "1.10"},
            "allowed_tools": ["Read"], "extra": {"tags": ["a"]}
        })
    );
    let resource = ResourceMetadata {
        path: "/p".into(),
        kind: ResourceKind::Reference,
        skill_name: "web".into(),
    };
    assert_eq!(
        serde_json::to_value(&resource).unwrap(),
        json!({"path": "/p", "type": "reference", "skill_name": "web"})
    );
    let diagnostic = Diagnostic::new("/p", DiagnosticKind::NameMismatch, "m");
    assert_eq!(
        serde_json::to_value(&diagnostic).unwrap(),
        json!({"path": "/p", "kind": "name-mismatch", "message": "m"})
    );
}

#[test]
fn file_types_round_trip() {
    let info = FileInfo {
        path: "/a".into(),
        is_dir: false,
        size: 3,
        modified_at: Some(UNIX_EPOCH + Duration::from_millis(1_700_000_000_123)),
        etag: Some("e".into()),
        changed_at: None,
    };
    assert_eq!(round_trip(&info), info);
    let ok = FileDownloadResponse::ok("/a", b"abc".to_vec());
    assert_eq!(round_trip(&ok), ok);
    let err = FileDownloadResponse::err("/a", FileErrorKind::TooLarge, "big");
    assert_eq!(round_trip(&err), err);
    assert_eq!(serde_json::to_value(&err).unwrap()["error"]["kind"], "too_large");
}

#[test]
fn severities_follow_kinds() {
    assert_eq!(DiagnosticKind::NoFrontmatter.severity(), Severity::Skip);
    assert_eq!(DiagnosticKind::NameMismatch.severity(), Severity::Warning);
    assert_eq!(DiagnosticKind::SourceNotFound.severity(), Severity::Error);
}

//! Path attacks through the tools an agent calls (`read_file`, `ls`, `load_skill`) on real
//! files: every form of escape is an error answer, and no answer holds a byte from
//! outside the skills root.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use skills_runtime::fs::{FilesystemBackend, HardLinks};
use skills_runtime::middleware::*;

const SECRET: &str = "TOP-SECRET-7f3a";

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A skills root next to a directory outside it that holds a secret, with every kind of
/// link from the root to the outside.
struct Setup {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    backend: Arc<FilesystemBackend>,
    outside_name: String,
}

fn setup() -> Setup {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", SECRET);
    write(
        outside.path(),
        "evil/SKILL.md",
        &format!("---\nname: evil\ndescription: {SECRET}\n---\n{SECRET}\n"),
    );
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    write(
        r,
        "skills/web/SKILL.md",
        "---\nname: web\ndescription: Search the web\n---\n# Web\n",
    );
    write(r, "skills/web/references/guide.md", "# Guide\n");
    symlink(
        outside.path().join("secret.txt"),
        r.join("skills/web/references/link.md"),
    )
    .unwrap();
    symlink(outside.path(), r.join("skills/web/outside")).unwrap();
    symlink(outside.path().join("evil"), r.join("skills/evil")).unwrap();
    symlink("/", r.join("skills/rootfs")).unwrap();
    symlink(r.join("skills/loop-b"), r.join("skills/loop-a")).unwrap();
    symlink(r.join("skills/loop-a"), r.join("skills/loop-b")).unwrap();
    std::fs::hard_link(
        outside.path().join("secret.txt"),
        r.join("skills/web/references/hard.md"),
    )
    .unwrap();
    let outside_name = outside.path().file_name().unwrap().to_str().unwrap().to_owned();
    // The hard-linked secret is another user's file where the test may make it so (as
    // root); elsewhere the strict policy stands in for the owner check.
    let given_away = std::os::unix::fs::chown(outside.path().join("secret.txt"), Some(65534), Some(65534)).is_ok();
    let policy = if given_away {
        HardLinks::SameOwner
    } else {
        HardLinks::Refuse
    };
    Setup {
        backend: Arc::new(FilesystemBackend::new(r).unwrap().with_hard_links(policy)),
        _dirs: (outside, root),
        outside_name,
    }
}

async fn call(tool: &dyn Tool, state: &AgentState, args: Value) -> ToolMessage {
    let runtime = ToolRuntime {
        state,
        tool_call_id: "call_1",
        agent: None,
    };
    tool.call(args, runtime).await.tool_message("call_1").unwrap().clone()
}

fn assert_refused(answer: &ToolMessage, what: &str) {
    assert_eq!(answer.status, ToolStatus::Error, "{what}: {}", answer.content);
    assert!(!answer.content.contains(SECRET), "{what} leaked: {}", answer.content);
    assert!(!answer.content.contains("root:"), "{what} read /etc/passwd");
}

#[tokio::test]
async fn read_file_and_ls_refuse_every_escape() {
    let s = setup();
    let [read_file, ls]: [Arc<dyn Tool>; 2] = filesystem_tools(s.backend.clone()).try_into().unwrap();
    let state = AgentState::new(vec![Message::user("hi")]);
    let out = &s.outside_name;
    let attacks = [
        format!("/../{out}/secret.txt"),
        "/skills/../../etc/passwd".to_owned(),
        "/skills/web/../../../etc/passwd".to_owned(),
        "/skills/web/references/..".to_owned(),
        "skills/web/SKILL.md".to_owned(),
        "../etc/passwd".to_owned(),
        "/skills/web/%2e%2e/%2e%2e/etc/passwd".to_owned(),
        "/skills/web/..%2f..%2fetc/passwd".to_owned(),
        "/skills\\web\\..\\..\\etc\\passwd".to_owned(),
        "/skills/web/SKILL.md\0.txt".to_owned(),
        "/skills/web/references/link.md".to_owned(),
        "/skills/web/references/hard.md".to_owned(),
        "/skills/web/outside/secret.txt".to_owned(),
        "/skills/evil/SKILL.md".to_owned(),
        "/skills/rootfs/etc/passwd".to_owned(),
        "/skills/loop-a/SKILL.md".to_owned(),
        "/etc/passwd".to_owned(),
    ];
    for path in &attacks {
        assert_refused(&call(&*read_file, &state, json!({ "file_path": path })).await, path);
        let dir = path.rsplit_once('/').map_or(path.as_str(), |(dir, _)| dir);
        let listed = call(&*ls, &state, json!({ "path": dir })).await;
        assert!(!listed.content.contains(SECRET), "ls {dir}: {}", listed.content);
    }
    // The same tool reads what is inside.
    let guide = call(
        &*read_file,
        &state,
        json!({ "file_path": "/skills/web/references/guide.md" }),
    )
    .await;
    assert_eq!(guide.status, ToolStatus::Success, "{}", guide.content);
    assert!(guide.content.contains("# Guide"));
    // Listings leave the links out.
    let listed = call(&*ls, &state, json!({ "path": "/skills" })).await;
    assert!(
        !listed.content.contains("evil") && !listed.content.contains("rootfs") && !listed.content.contains("loop"),
        "{}",
        listed.content
    );
}

#[tokio::test]
async fn load_skill_serves_only_skills_inside_the_root() {
    let s = setup();
    let skills = SkillsMiddleware::new(s.backend.clone(), ["/skills"]).unwrap();
    let mut state = AgentState::new(vec![Message::user("hi")]);
    if let Some(update) = skills.before_agent(&state).await.unwrap() {
        state.apply(update);
    }
    let load = skills.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
    for name in [
        "evil",
        "../evil",
        "/skills/evil",
        "rootfs",
        "loop-a",
        "web/../evil",
        "../../etc/passwd",
        "web\0",
        "",
    ] {
        assert_refused(&call(&*load, &state, json!({ "skill_name": name })).await, name);
    }
    let web = call(&*load, &state, json!({ "skill_name": "web" })).await;
    assert_eq!(web.status, ToolStatus::Success, "{}", web.content);
    assert!(web.content.contains("# Web"));
    assert!(!web.content.contains(SECRET), "{}", web.content);
    // The prompt never names what lies behind the links.
    let snapshot = skills.catalog().snapshot();
    let names: Vec<_> = snapshot.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["web"]);
    let resources: Vec<_> = snapshot.resources()["web"].iter().map(|r| r.path.as_str()).collect();
    assert!(
        resources
            .iter()
            .all(|p| !p.contains("link.md") && !p.contains("outside")),
        "{resources:?}"
    );
}

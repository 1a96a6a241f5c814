//! Load: 64 agent threads make model calls and `load_skill` calls while the library is
//! rewritten and reloaded without pause. Bounded in count (rounds x calls) and in time
//! (a deadlock fails the timeout instead of hanging CI). Checks: no deadlock, no torn
//! snapshot (every view shows one library version), versions never go back within a
//! thread, and the memory left after each round stays flat.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.
#![allow(unsafe_code)] // The counting allocator below; nothing else.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Duration;

use serde_json::json;
use skills_core::{MemoryBackend, SkillsState};
use skills_middleware::*;

/// Counts the bytes the whole process has allocated and not freed.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is a
// static atomic that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded as given.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const THREADS: usize = 64;
const SKILLS: usize = 24;
const ROUNDS: usize = 5;
const CALLS_PER_ROUND: usize = 40;
/// The whole test's time bound: far above its normal run, so only a hang trips it.
const DEADLINE: Duration = Duration::from_secs(120);

fn md(name: &str, version: u64) -> String {
    format!("---\nname: {name}\ndescription: {name} at v{version}.\n---\n# {name}\n\nVersion {version}.\n")
}

/// Writes version `version` of the library: every skill says it, and one extra skill
/// comes and goes, so reloads add, change and remove.
fn write_library(backend: &MemoryBackend, version: u64) {
    for i in 0..SKILLS {
        let name = format!("s{i:02}");
        backend
            .insert(&format!("/skills/{name}/SKILL.md"), md(&name, version))
            .unwrap();
    }
    if version % 2 == 1 {
        backend.insert("/skills/extra/SKILL.md", md("extra", version)).unwrap();
    } else {
        backend.remove("/skills/extra");
    }
}

/// The one library version a text shows (every `at vN` in it), or a panic if it shows
/// two: a torn snapshot.
fn version_shown(text: &str) -> u64 {
    let mut versions = text.split(" at v").skip(1).map(|rest| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u64>().unwrap()
    });
    let first = versions.next().expect("the text names a version");
    assert!(versions.all(|v| v == first), "a torn snapshot:\n{text}");
    first
}

/// One agent thread: `CALLS_PER_ROUND` model calls, each followed by a `load_skill`.
async fn agent_thread(skills: SkillsMiddleware, thread: usize, state: &mut AgentState, last_seen: &mut u64) {
    let tool = skills.tools().into_iter().find(|t| t.name() == "load_skill").unwrap();
    for call in 0..CALLS_PER_ROUND {
        let prompt = common::system_prompt(&skills, state).await;
        let version = version_shown(&prompt);
        assert!(
            version >= *last_seen,
            "thread {thread} went back from v{last_seen} to v{version}"
        );
        *last_seen = version;

        let name = format!("s{:02}", (thread + call) % SKILLS);
        let runtime = ToolRuntime {
            state,
            tool_call_id: "call_1",
            agent: None,
        };
        let output = tool.call(json!({ "skill_name": name }), runtime).await;
        let message = output.tool_message("call_1").unwrap();
        assert_eq!(message.status, ToolStatus::Success, "{}", message.content);
        if let Some(command) = output.as_command() {
            let update = command.update.get::<SkillsState>().unwrap();
            let listed: String = update
                .skills_metadata
                .iter()
                .flat_map(|s| s.iter())
                .map(|s| format!("{}\n", s.description))
                .collect();
            version_shown(&listed);
            let update = command.update.clone();
            state.apply(update);
        }
        // A model call takes a while in real life: let the other threads and the
        // reloader run between calls.
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_threads_call_the_model_and_load_skills_during_continuous_reloads() {
    tokio::time::timeout(DEADLINE, stress())
        .await
        .expect("no deadlock: the stress run finished in time");
}

async fn stress() {
    let backend = Arc::new(MemoryBackend::new());
    write_library(&backend, 1);
    let skills = SkillsMiddleware::new(backend.clone(), ["/skills"]).unwrap();
    let mut states = Vec::new();
    for _ in 0..THREADS {
        let mut state = AgentState::new(vec![Message::user("hi")]);
        state.apply(skills.before_agent(&state).await.unwrap().unwrap());
        states.push((state, 0u64));
    }

    let mut live_after_round = Vec::new();
    let mut version = 1;
    let mut reloads = 0;
    for _round in 0..ROUNDS {
        // The reloader rewrites the whole library and reloads, over and over, until the
        // threads of this round are done. Writes and reloads take turns, so each
        // discovery sees one version of the library.
        let done = Arc::new(AtomicBool::new(false));
        let reloader = {
            let (skills, backend, done) = (skills.clone(), backend.clone(), done.clone());
            tokio::spawn(async move {
                let mut count = 0u64;
                while !done.load(Ordering::Relaxed) {
                    version += 1;
                    write_library(&backend, version);
                    skills.reload().await.expect("every rewrite changes the catalog");
                    count += 1;
                    tokio::task::yield_now().await;
                }
                (version, count)
            })
        };
        let mut tasks = Vec::new();
        for (thread, (mut state, mut last_seen)) in states.drain(..).enumerate() {
            let skills = skills.clone();
            tasks.push(tokio::spawn(async move {
                agent_thread(skills, thread, &mut state, &mut last_seen).await;
                (state, last_seen)
            }));
        }
        for task in tasks {
            states.push(task.await.unwrap());
        }
        done.store(true, Ordering::Relaxed);
        let (reached, count) = reloader.await.unwrap();
        version = reached;
        reloads += count;
        // Threads start the next round from a clean history, as a new conversation would;
        // their loaded skills stay.
        for (state, _) in &mut states {
            state.messages.truncate(1);
        }
        live_after_round.push(LIVE.load(Ordering::Relaxed));
    }

    assert!(
        reloads >= 2 * ROUNDS as u64,
        "the library reloaded throughout: {reloads}"
    );
    assert_eq!(skills.catalog().snapshot().version(), reloads + 1);
    // Memory flat: after the first (warm-up) round, what is left allocated between rounds
    // does not grow with the reloads and calls made.
    let warm = live_after_round[1];
    let last = *live_after_round.last().unwrap();
    assert!(
        last - warm < 512 * 1024,
        "memory grew by {} bytes over {} rounds: {live_after_round:?}",
        last - warm,
        ROUNDS - 2
    );
}

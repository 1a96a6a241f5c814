//! Lists the shipped example skills layered with an optional project folder.
//!
//! ```sh
//! cargo run --example list_skills                    # examples/skills only
//! cargo run --example list_skills -- ./my-skills     # plus a project source that wins
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use skills_runtime::fs::FilesystemBackend;
use skills_runtime::{list_skills, merge_last_wins};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut dirs = vec![concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills").to_owned()];
    dirs.extend(std::env::args().skip(1));

    let mut sources = Vec::new();
    for dir in &dirs {
        let backend = FilesystemBackend::new(dir)?; // `/` is `dir`
        let listing = list_skills(&backend, "/").await?; // every <dir>/*/SKILL.md
        for diagnostic in &listing.diagnostics {
            eprintln!("{dir}: {diagnostic}"); // path: kind: message
        }
        sources.push(listing.skills);
    }
    for merged in merge_last_wins(sources) {
        let from = &dirs[merged.source];
        println!("{:<20} {} ({from})", merged.skill.name, merged.skill.description);
    }
    Ok(())
}

//! `skills-bench scale --cli PATH --out DIR [--skills N]`: one source of N skills
//! (100,000 by default) in one folder, every skill read by default: the whole
//! `skills list --json` process, its time and peak memory (goal: under 128 MiB).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Peak memory `skills list` may take on the 100,000-skill source.
const GOAL_MIB: f64 = 128.0;

/// Writes `skills` skill folders under `dir` (kept between runs when complete): a
/// `SKILL.md` of about 900 bytes each, with a few `metadata` keys, as real skills have.
fn write_source(dir: &Path, skills: usize) -> Result<(), String> {
    let done = dir.join(format!(".complete-{skills}"));
    if done.is_file() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    let body = "Follow these steps in order, and check each result before the next one. ".repeat(8);
    for i in 0..skills {
        let name = format!("skill-{i:06}");
        let folder = dir.join(&name);
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let md = format!(
            "---\nname: {name}\ndescription: Handles request kind {i} end to end, from intake to the report\n\
             license: MIT\nmetadata:\n  author: team-{}\n  version: \"1.{}\"\n  tags: [ops, kind-{}]\n---\n\n# {name}\n\n{body}\n",
            i % 97,
            i % 13,
            i % 7
        );
        std::fs::write(folder.join("SKILL.md"), md).map_err(|e| format!("{name}: {e}"))?;
    }
    std::fs::write(&done, b"").map_err(|e| e.to_string())
}

pub fn scale_command(args: &[String]) -> Result<(), String> {
    let mut flags = crate::flag_values(args, &["cli", "out", "skills"])?;
    let skills: usize = match flags.remove("skills") {
        Some(n) => n.parse().map_err(|e| format!("--skills: {e}"))?,
        None => 100_000,
    };
    let (Some(cli), Some(out)) = (flags.remove("cli"), flags.remove("out")) else {
        return Err("usage: skills-bench scale --cli PATH --out DIR [--skills N]".into());
    };
    let (cli, out) = (PathBuf::from(cli), PathBuf::from(out));
    let dir = out.join(format!("scale-{skills}"));
    write_source(&dir, skills)?;
    let source = dir.to_str().ok_or("paths must be UTF-8")?.to_owned();
    let listed = Command::new(&cli)
        .args(["list", "--json", "--source", &source])
        .output()
        .map_err(|e| e.to_string())?;
    let found = serde_json::from_slice::<serde_json::Value>(&listed.stdout)
        .ok()
        .and_then(|v| v.as_array().map(Vec::len))
        .unwrap_or(0);
    let (ms, mib) = crate::process(3, || {
        let mut command = Command::new(&cli);
        command.args(["list", "--json", "--source", &source]);
        command
    })?;
    println!("one source of {skills} skills, `skills list --json`, whole process, median of 3");
    println!("| skills read | time | peak RSS | goal: every skill, under {GOAL_MIB} MiB |");
    println!("|---:|---:|---:|---|");
    let met = found == skills && mib < GOAL_MIB;
    println!(
        "| {found} of {skills} | {ms:.0} ms | {mib:.1} MiB | {} |",
        if met { "met" } else { "not met" }
    );
    Ok(())
}

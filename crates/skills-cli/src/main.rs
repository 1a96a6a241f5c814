//! The `skills` command: list, inspect, validate, scaffold, watch and serve (MCP) Agent Skills
//! libraries, and show what a model sees of them.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod commands;
mod library;
mod mcp;
mod output;
mod progress;

use std::process::ExitCode;

use clap::Parser;

/// Seconds a git remote may stay silent (connecting, or during a transfer) before the
/// clone or fetch fails; `SKILLS_GIT_TIMEOUT` overrides.
const DEFAULT_GIT_TIMEOUT_SECS: u64 = 30;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let git_timeout = match std::env::var("SKILLS_GIT_TIMEOUT") {
        Err(_) => DEFAULT_GIT_TIMEOUT_SECS,
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(secs) if secs > 0 => secs,
            _ => {
                eprintln!("error: SKILLS_GIT_TIMEOUT must be a whole number of seconds above 0, not {text:?}");
                return ExitCode::from(cli::EXIT_SOURCE_ERROR);
            }
        },
    };
    let git_timeout = std::time::Duration::from_secs(git_timeout);
    // Setting the timeouts initializes libgit2, which loads the system's certificate
    // store (about 25 ms of CPU): only a command that may read a git source pays for it.
    if cli.may_read_git() {
        // SAFETY: libgit2's options are process globals; no other thread exists yet (the
        // runtime starts below), which is what setting them requires.
        #[allow(unsafe_code)]
        let timeouts = unsafe { agent_skills::git::set_network_timeouts(git_timeout, git_timeout) };
        if let Err(e) = timeouts {
            eprintln!("error: {e}");
            return ExitCode::from(cli::EXIT_SOURCE_ERROR);
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(cli::EXIT_SOURCE_ERROR);
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(cli::EXIT_SOURCE_ERROR)
        }
    }
}

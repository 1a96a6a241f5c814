//! The `skills` command: list, inspect, validate, scaffold, watch and serve (MCP) Agent Skills
//! libraries, and show what a model sees of them.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod agent;
mod cli;
mod commands;
mod mcp;
mod output;
mod progress;
mod source;
mod watch;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
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

//! `skills completions SHELL` and `skills manpage`: what a packager installs beside the
//! binary, generated from the same argument definitions the binary parses.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, EXIT_OK};

/// Prints the completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut command, "skills", &mut out);
    out.flush()?;
    Ok(ExitCode::from(EXIT_OK))
}

/// Prints the manual page of `skills` (roff), with a section per command.
pub fn manpage() -> anyhow::Result<ExitCode> {
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    // One page for the whole tool: each visible command's own help as a section.
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("skills-{}", sub.get_name());
        let sub = sub.clone().display_name(&name);
        let man = clap_mangen::Man::new(sub);
        page.extend_from_slice(format!(".SH \"SKILLS {}\"\n", sub_title(&name)).as_bytes());
        man.render_description_section(&mut page)?;
        man.render_options_section(&mut page)?;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(ExitCode::from(EXIT_OK))
}

fn sub_title(name: &str) -> String {
    name.trim_start_matches("skills-").to_uppercase()
}

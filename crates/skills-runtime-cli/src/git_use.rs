//! Whether a command may read a git source, decided before anything starts: setting
//! libgit2's timeouts initializes it, which loads the system's certificates, so only a
//! command that may read git pays for that.

use crate::cli::{Cli, Command};
use crate::library::config_file;
use skills_runtime::sources::CONFIG_FILE;

/// Whether the command may read a git source: a `git+` location among its sources,
/// in the `skills.toml` it would read, or among `validate`'s arguments. Errs on the
/// side of yes: a config file that exists but cannot be read as text, or that
/// mentions `git+` anywhere.
pub fn may_read_git(cli: &Cli) -> bool {
    let sources = match &cli.command {
        // The installed skills' sources are the ones their lock names, which may be git.
        Command::List { installed: true, .. } => return true,
        Command::List { sources, .. }
        | Command::Info { sources, .. }
        | Command::Prompt { sources, .. }
        | Command::Load { sources, .. }
        | Command::Search { sources, .. }
        | Command::Watch { sources, .. }
        | Command::Lock { sources, .. }
        | Command::Serve { sources, .. } => sources,
        Command::Validate { paths, .. } => return paths.iter().any(|p| p.contains("git+")),
        Command::Publish { location, sources, .. } => {
            if location.as_deref().is_some_and(|l| l.contains("git+")) {
                return true;
            }
            sources
        }
        Command::Add { source, .. } => {
            return source.contains("git+") || skills_runtime::sources::expand_git_shorthand(source).is_some();
        }
        // A sync reads the sources of ./skills.toml's [[install]] tables (or of the npm
        // installer's lock), and only when something is to install.
        Command::Sync { from_npm_lock, .. } => {
            return *from_npm_lock || std::fs::read_to_string(CONFIG_FILE).is_ok_and(|text| text.contains("git+"));
        }
        // These read the sources a lock names, which may be git.
        Command::Verify { .. } | Command::Outdated { .. } | Command::Update { .. } => {
            return true;
        }

        Command::New { .. } | Command::Remove { .. } | Command::Completions { .. } | Command::Manpage => {
            return false;
        }
    };
    if sources.sources.iter().any(|s| s.contains("git+")) {
        return true;
    }
    config_file(sources).is_some_and(|path| match std::fs::read_to_string(&path) {
        Ok(text) => text.contains("git+"),
        Err(_) => path.exists(),
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;

    fn may_read_git(args: &[&str]) -> bool {
        let cli = Cli::try_parse_from(std::iter::once("skills").chain(args.iter().copied())).unwrap();
        super::may_read_git(&cli)
    }

    #[test]
    fn only_commands_that_may_read_git_initialize_it() {
        assert!(may_read_git(&["list", "--source", "team=git+file:///srv/skills.git"]));
        assert!(may_read_git(&["validate", "git+https://example.com/s.git"]));
        assert!(!may_read_git(&[
            "list",
            "--source",
            "./skills",
            "--source",
            "s3://bucket/x"
        ]));
        assert!(!may_read_git(&["validate", "./skills"]));
        assert!(!may_read_git(&["new", "demo"]));
        assert!(may_read_git(&["add", "anthropics/skills"]));
        assert!(!may_read_git(&["add", "./skills"]));
        assert!(may_read_git(&["sync", "--from-npm-lock"]));
        assert!(may_read_git(&["list", "--installed"]));

        let dir = tempfile::tempdir().unwrap();
        let with_git = dir.path().join("git.toml");
        std::fs::write(&with_git, "[[source]]\nlocation = \"git+file:///srv/s.git\"\n").unwrap();
        let without = dir.path().join("disk.toml");
        std::fs::write(&without, "[[source]]\nlocation = \"./skills\"\n").unwrap();
        let with_git = with_git.to_str().unwrap();
        assert!(may_read_git(&["serve", "--config", with_git]));
        assert!(!may_read_git(&["serve", "--config", without.to_str().unwrap()]));
        // A missing file fails the command before any source is opened.
        assert!(!may_read_git(&["prompt", "--config", "/no/such/skills.toml"]));
        // A file that exists but cannot be read as text might name one.
        let binary = dir.path().join("binary.toml");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        assert!(may_read_git(&["list", "--config", binary.to_str().unwrap()]));
    }
}

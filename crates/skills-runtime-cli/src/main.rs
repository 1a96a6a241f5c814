//! The `skills` command: list, inspect, validate, scaffold, watch and serve (MCP) Agent Skills
//! libraries, and show what a model sees of them.

#![allow(clippy::print_stdout, clippy::print_stderr)]

/// `println!` for the commands that write (add, sync, update, remove): a closed
/// standard output must not stop them halfway, so what cannot be printed is dropped.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stdout(), "{}", crate::terminal::visible(&text));
    }};
}

/// `eprintln!` for the commands that write: see [`say!`].
macro_rules! say_err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", crate::terminal::visible(&text));
    }};
}

/// `println!` of a line for a person: what would act on a terminal (a skill file's
/// control characters) shown as escapes ([`terminal::visible`]).
macro_rules! show {
    ($($arg:tt)*) => {{
        let text = format!($($arg)*);
        println!("{}", crate::terminal::visible(&text));
    }};
}

/// `eprintln!` of a line for a person: see [`show!`].
macro_rules! show_err {
    ($($arg:tt)*) => {{
        let text = format!($($arg)*);
        eprintln!("{}", crate::terminal::visible(&text));
    }};
}

mod cli;
mod commands;
mod git_use;
mod heap;
mod library;
mod mcp;
mod output;
mod progress;
mod signing;
mod terminal;

use std::process::ExitCode;

use clap::Parser;

/// Seconds a git remote may stay silent (connecting, or during a transfer) before the
/// clone or fetch fails; `SKILLS_GIT_TIMEOUT` overrides.
const DEFAULT_GIT_TIMEOUT_SECS: u64 = 30;

#[global_allocator]
static HEAP: heap::Heap = heap::Heap;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if matches!(cli.command, cli::Command::Serve { .. }) {
        heap::use_mimalloc();
    } else {
        heap::tune_for_one_shot();
    }
    // `serve` must outlive its sockets, and the commands that write must finish what they
    // started whoever reads their output (they print with `say!`).
    let writes = matches!(
        cli.command,
        cli::Command::Serve { .. }
            | cli::Command::Add { .. }
            | cli::Command::Sync { .. }
            | cli::Command::Update { .. }
            | cli::Command::Remove { .. }
    );
    quiet_on_closed_output(!writes);
    let git_timeout = match std::env::var("SKILLS_GIT_TIMEOUT") {
        Err(_) => DEFAULT_GIT_TIMEOUT_SECS,
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(secs) if secs > 0 => secs,
            _ => {
                show_err!("error: SKILLS_GIT_TIMEOUT must be a whole number of seconds above 0, not {text:?}");
                return ExitCode::from(cli::EXIT_SOURCE_ERROR);
            }
        },
    };
    let git_timeout = std::time::Duration::from_secs(git_timeout);
    // Only a command that may read a git source initializes libgit2, and the certificates
    // https trusts (about 25 ms of CPU) are loaded only by its first fetch.
    if git_use::may_read_git(&cli) {
        // SAFETY: libgit2's options are process globals; no other thread exists yet (the
        // runtime starts below), which is what setting them requires, and nothing used
        // libgit2 before.
        #[allow(unsafe_code)]
        let timeouts = unsafe {
            skills_runtime::git::load_certificates_on_first_fetch();
            skills_runtime::git::skip_hash_checks_on_reads();
            skills_runtime::git::set_network_timeouts(git_timeout, git_timeout)
        };
        if let Err(e) = timeouts {
            show_err!("error: {e}");
            return ExitCode::from(cli::EXIT_SOURCE_ERROR);
        }
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    // The machine's cores, asked once for the process (tokio would ask again, and the
    // answer reads cgroup files); tokio's own variable still decides when it is set.
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        builder.worker_threads(skills_runtime::blocking::cores());
    }
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            show_err!("error: cannot start the async runtime: {e}");
            return ExitCode::from(cli::EXIT_SOURCE_ERROR);
        }
    };
    let ran = runtime.block_on(commands::run(cli));
    if commands::NOTHING_LEFT_TO_DO.load(std::sync::atomic::Ordering::Relaxed) {
        // A kept answer was printed and nothing is being written: the process ends
        // without waiting for the runtime's threads to stop.
        std::mem::forget(runtime);
    }
    match ran {
        Ok(code) => code,
        Err(e) => {
            show_err!("error: {e:#}");
            ExitCode::from(cli::EXIT_SOURCE_ERROR)
        }
    }
}

/// A closed standard output ends a command quietly: `skills list | head` is a normal way
/// to use it. Rust ignores `SIGPIPE`, so a write to a closed pipe is an error, and
/// `println!` panics on it. Except for `serve` (whose sockets must not kill it), the
/// default action comes back: the process ends as other command-line tools do on a
/// closed pipe (status 141 in a shell). Any other failure to print (a closed file
/// descriptor) ends the process without a panic message, with exit status 2.
fn quiet_on_closed_output(default_sigpipe: bool) {
    #[cfg(unix)]
    if default_sigpipe {
        // SAFETY: called in main before any other thread exists; SIG_DFL is
        // a valid disposition for SIGPIPE.
        #[allow(unsafe_code)]
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    #[cfg(not(unix))]
    let _ = default_sigpipe;
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to std") {
            let broken_pipe = message.contains("Broken pipe");
            std::process::exit(if broken_pipe {
                0
            } else {
                i32::from(cli::EXIT_SOURCE_ERROR)
            });
        }
        default_hook(info);
    }));
}

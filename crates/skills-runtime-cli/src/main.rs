//! The `skills` command: list, inspect, validate, scaffold, watch and serve (MCP) Agent Skills
//! libraries, and show what a model sees of them.

#![allow(clippy::print_stdout, clippy::print_stderr)]

/// `println!` for the commands that write (add, sync, update, remove): a closed
/// standard output must not stop them halfway, so what cannot be printed is dropped.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!` for the commands that write: see [`say!`].
macro_rules! say_err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;
mod commands;
mod git_use;
mod library;
mod mcp;
mod output;
mod progress;
mod signing;

use std::process::ExitCode;

use clap::Parser;

/// Seconds a git remote may stay silent (connecting, or during a transfer) before the
/// clone or fetch fails; `SKILLS_GIT_TIMEOUT` overrides.
const DEFAULT_GIT_TIMEOUT_SECS: u64 = 30;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    tune_malloc(matches!(cli.command, cli::Command::Serve { .. }));
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
                eprintln!("error: SKILLS_GIT_TIMEOUT must be a whole number of seconds above 0, not {text:?}");
                return ExitCode::from(cli::EXIT_SOURCE_ERROR);
            }
        },
    };
    let git_timeout = std::time::Duration::from_secs(git_timeout);
    // Setting the timeouts initializes libgit2, which loads the system's certificate
    // store (about 25 ms of CPU): only a command that may read a git source pays for it.
    if git_use::may_read_git(&cli) {
        // SAFETY: libgit2's options are process globals; no other thread exists yet (the
        // runtime starts below), which is what setting them requires.
        #[allow(unsafe_code)]
        let timeouts = unsafe { skills_runtime::git::set_network_timeouts(git_timeout, git_timeout) };
        if let Err(e) = timeouts {
            eprintln!("error: {e}");
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

/// glibc gives each thread that allocates its own arena, up to eight per core, and an
/// arena keeps the memory it once held: discovery reads on the blocking pool's threads,
/// so each of them kept a few MiB of a large library's peak. Two arenas hold the peak
/// of `skills list` on a real 10,000-skill library from 39 to 35 MiB at no cost in time.
///
/// glibc also raises its threshold for mapping a block on its own each time such a block
/// is freed, so after the first large buffer is let go (a chunk of files, a list of
/// skills) the later ones are carved from the heap and leave holes in it. Kept at its
/// starting 128 KiB, the threshold maps every large block and unmaps it when freed:
/// 0.9-2.5 MiB less at the peak on real libraries of 2,800 to 40,000 skills, with no
/// difference in time over 25 interleaved runs.
///
/// A thread's arena grows a page at a time, one `mprotect` each (the main arena grows by
/// `brk` with room to spare): a warm start on a real library made 2,600 of those calls
/// whenever its busiest thread was not the main one, and each takes the lock the other
/// thread's page faults need. Grown once at start, the second arena keeps its pages
/// writable when a free gives their memory back (`MADV_DONTNEED`), so that start makes
/// about 40 calls and holds no more memory. Past the 32 MiB grown here it grows a page
/// at a time again (13,030 calls in a one-shot search of a 40,000-skill library); growing
/// more at start, a larger `M_TOP_PAD` or a single arena did not make such a process
/// measurably faster (docs/performance.md).
///
/// `skills serve` (`serve`) gets [`SERVE_ARENAS`]: at its start the walk of the sources,
/// the kept search index's decoding and the client's first requests allocate on four
/// threads at once, and with two arenas a sixth of their CPU time went to waiting for
/// an arena's lock and waking its waiters (`perf`, warm, on a 40,000-skill library). A
/// server gives what it freed back after its start ([`trim_heap`]); a one-shot command
/// keeps two, for its peak.
fn tune_malloc(serve: bool) {
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = serve;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called in main before any other thread exists; the settings
    // only bound how glibc allocates later; the one block is freed by the thread that
    // took it (a null pointer, if the allocation failed, is a no-op for `free`), and that
    // thread is joined before the threshold is set back.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, if serve { SERVE_ARENAS } else { 2 });
        // One block of 32 MiB, taken and given back on a thread of its own, makes the
        // second arena's heap writable at once (the threshold is raised so that the
        // block comes from the heap rather than a mapping of its own).
        // A thread the system refuses (a process limit) only leaves the arena as it was.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        let grown = std::thread::Builder::new().spawn(|| {
            let block = std::hint::black_box(libc::malloc(32 << 20));
            libc::free(block);
        });
        if let Ok(grown) = grown {
            let _ = grown.join();
        }
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// glibc's arenas for `skills serve` ([`tune_malloc`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const SERVE_ARENAS: libc::c_int = 4;

/// Hands the heap's free pages back to the system (glibc keeps them otherwise): a
/// long-running server calls it after work that allocated and freed a lot (discovery,
/// a page of manifests), so its resident memory follows what it holds, not what it
/// once held.
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of glibc's arenas to the system; it
    // may run at any time from any thread.
    #[allow(unsafe_code)]
    unsafe {
        libc::malloc_trim(0);
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

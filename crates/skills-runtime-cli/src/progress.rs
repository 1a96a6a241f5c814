//! A spinner on stderr for discovery that takes more than a moment (remote sources):
//! never in `--json` runs, never when stderr is not a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work may run before the spinner appears.
const DELAY: Duration = Duration::from_millis(400);

/// Shows `message` with a spinner once [`DELAY`] has passed; cleared when dropped.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A spinner if `json` is off and stderr is a terminal; otherwise nothing.
    pub fn start(json: bool, message: &str) -> Self {
        if !enabled(json, std::io::stderr().is_terminal()) {
            return Self(None);
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(message.to_owned());
        let shown = bar.clone();
        // Best effort: without the thread there is simply no spinner.
        let _ = std::thread::Builder::new()
            .name("skills-progress".into())
            .spawn(move || {
                std::thread::sleep(DELAY);
                if !shown.is_finished() {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(100));
                }
            });
        Self(Some(bar))
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Whether a spinner may be drawn.
fn enabled(json: bool, stderr_is_terminal: bool) -> bool {
    !json && stderr_is_terminal && std::env::var_os("NO_PROGRESS").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_on_a_terminal_and_never_with_json() {
        assert!(!enabled(true, true));
        assert!(!enabled(false, false));
        assert!(!enabled(true, false));
        // `enabled(false, true)` also depends on NO_PROGRESS; the default environment of
        // the test runner does not set it.
        if std::env::var_os("NO_PROGRESS").is_none() {
            assert!(enabled(false, true));
        }
    }

    #[test]
    fn a_disabled_progress_draws_nothing() {
        let progress = Progress::start(true, "reading");
        assert!(progress.0.is_none());
    }
}

//! [`run_blocking`]: blocking storage work (disk, a git object database) from async code,
//! for the backends that have such work.

/// Runs `work` on tokio's blocking pool when a runtime is running, and in place when
/// none is (a backend called from plain threads or `block_on` of another executor). If
/// the work cannot finish (the runtime shuts down, or the work panics), `failed` turns
/// the reason into the caller's error value instead of a panic.
///
/// `block_in_place` would be cheaper, but it panics on a current-thread runtime; a
/// backend must work on every runtime its callers use.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let answer: Result<u32, String> = skills_core::blocking::run_blocking(|| Ok(6 * 7), Err).await;
/// assert_eq!(answer, Ok(42));
/// # });
/// ```
pub async fn run_blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
    failed: impl FnOnce(String) -> T,
) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => match handle.spawn_blocking(work).await {
            Ok(value) => value,
            Err(e) => failed(format!("blocking task did not finish: {e}")),
        },
        Err(_) => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::run_blocking;

    #[test]
    fn runs_in_place_without_a_runtime() {
        let thread = std::thread::current().id();
        let ran_on =
            futures_util::FutureExt::now_or_never(run_blocking(move || std::thread::current().id(), |_| thread));
        assert_eq!(ran_on, Some(thread));
    }

    #[tokio::test]
    async fn a_panic_in_the_work_is_an_error_value() {
        let answer: Result<(), String> = run_blocking(|| panic!("boom"), Err).await;
        assert!(answer.unwrap_err().contains("did not finish"));
    }
}

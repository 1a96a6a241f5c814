//! [`run_blocking`]: blocking storage work (disk, a git object database) from async code,
//! for the backends that have such work.

/// How many threads this machine runs at once (at least 1), asked once per process: the
/// answer reads cgroup files on Linux, too slow to ask for every job spread over cores.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

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

/// Runs `work` over `items` split in order into shares, at most `threads` of them and
/// each of at least `min_per_share` items (one share for a small job), each share on
/// the blocking pool as [`run_blocking`] runs it: the answers in the items' order. Each
/// item of a share whose work did not finish answers `failed(item, why)`.
///
/// ```
/// # tokio::runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
/// use skills_core::blocking::run_in_shares;
/// let squares = run_in_shares((1..=100u64).collect(), 2, 10, |share: &[u64]| {
///     share.iter().map(|n| n * n).collect()
/// }, |_, _| 0).await;
/// assert_eq!(squares[9], 100);
/// assert_eq!(squares.len(), 100);
/// # });
/// ```
pub async fn run_in_shares<I, O>(
    items: Vec<I>,
    threads: usize,
    min_per_share: usize,
    work: impl Fn(&[I]) -> Vec<O> + Clone + Send + 'static,
    failed: impl Fn(&I, &str) -> O + Clone + Send + 'static,
) -> Vec<O>
where
    I: Send + Sync + 'static,
    O: Send + 'static,
{
    let runs = shares(items, threads, min_per_share).into_iter().map(|share| {
        let share: std::sync::Arc<[I]> = share.into();
        let kept = std::sync::Arc::clone(&share);
        let (work, failed) = (work.clone(), failed.clone());
        run_blocking(
            move || work(&share),
            move |why| kept.iter().map(|item| failed(item, &why)).collect(),
        )
    });
    futures_util::future::join_all(runs)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// `items` in order, in as many shares as `threads` allows with at least
/// `min_per_share` items each (one share for a small job, none for an empty one).
fn shares<T>(items: Vec<T>, threads: usize, min_per_share: usize) -> Vec<Vec<T>> {
    let threads = (items.len() / min_per_share.max(1)).clamp(1, threads.max(1));
    let per_share = items.len().div_ceil(threads).max(1);
    let mut shares = Vec::with_capacity(threads);
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        shares.push(items.by_ref().take(per_share).collect());
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::{run_blocking, run_in_shares, shares};

    #[test]
    fn large_jobs_are_shared_out_in_order_and_small_ones_are_not() {
        let sizes = |threads: usize, items: usize| -> Vec<usize> {
            let split = shares((0..items).collect::<Vec<_>>(), threads, 64);
            assert_eq!(split.concat(), (0..items).collect::<Vec<_>>(), "order kept");
            split.iter().map(Vec::len).collect()
        };
        assert_eq!(sizes(4, 300), [75, 75, 75, 75]);
        assert_eq!(sizes(2, 10_000), [5_000, 5_000]);
        assert_eq!(sizes(4, 130), [65, 65]); // at least 64 each
        assert_eq!(sizes(4, 100), [100]);
        assert_eq!(sizes(1, 10_000), [10_000]);
        assert!(sizes(4, 0).is_empty());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_share_whose_work_panics_answers_failed_for_each_of_its_items() {
        let answers = run_in_shares(
            (0..8u32).collect(),
            2,
            4,
            |share: &[u32]| {
                assert!(!share.contains(&6), "boom");
                share.to_vec()
            },
            |item, why| {
                assert!(why.contains("did not finish"));
                1000 + item
            },
        )
        .await;
        assert_eq!(answers, [0, 1, 2, 3, 1004, 1005, 1006, 1007]);
    }

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

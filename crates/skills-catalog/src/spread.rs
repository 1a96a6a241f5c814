//! [`spread`]: a map over many items shared out over the cores.

/// Skills below which [`spread`] stays on one thread: a thread costs more than the
/// entries of a small library.
const SPREAD_FROM: usize = 2_048;

/// `f` of each of `items`, in order, the work shared over the cores for a large library
/// (the entries of 40,304 skills took 0.2 s on one core).
pub(crate) fn spread<T: Send>(items: &[usize], f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if items.len() < SPREAD_FROM || cores == 1 {
        return items.iter().map(|&i| f(i)).collect();
    }
    let f = &f;
    let part = items.len().div_ceil(cores);
    std::thread::scope(|scope| {
        let parts: Vec<_> = items[part..]
            .chunks(part)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|&i| f(i)).collect::<Vec<T>>()))
            .collect();
        let mut all: Vec<T> = items[..part].iter().map(|&i| f(i)).collect();
        for part in parts {
            // A panic in a part is the panic of this call, as on one thread.
            all.extend(part.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        all
    })
}

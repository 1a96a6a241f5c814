//! [`spread`]: a map over many items shared out over the cores.

/// Items below which [`spread`] stays on one thread: a thread costs more than the
/// entries of a small library.
const SPREAD_FROM: usize = 2_048;

/// `f` of each of `items`, in order, the work shared over the cores for a large library
/// (the entries of 40,304 skills took 0.2 s on one core).
pub(crate) fn spread<T: Send>(items: &[usize], f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if items.len() < SPREAD_FROM {
        return items.iter().map(|&i| f(i)).collect();
    }
    spread_over(items, skills_core::blocking::cores(), f)
}

/// [`spread`] over `threads` threads (this one among them).
fn spread_over<T: Send>(items: &[usize], threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let f = &f;
    let part = items.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(part)
            .skip(1)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|&i| f(i)).collect::<Vec<T>>()))
            .collect();
        let mut all: Vec<T> = items.iter().take(part).map(|&i| f(i)).collect();
        for part in parts {
            // A panic in a part is the panic of this call, as on one thread.
            all.extend(part.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        all
    })
}

#[cfg(test)]
mod tests {
    /// Whatever the number of threads, the answers come in the items' order, one each.
    #[test]
    fn parts_are_joined_in_order() {
        let items: Vec<usize> = (0..1_001).rev().collect();
        for threads in [1, 2, 3, 7, 2_000] {
            let spread = super::spread_over(&items, threads, |i| i * 3);
            assert_eq!(
                spread,
                items.iter().map(|i| i * 3).collect::<Vec<_>>(),
                "{threads} threads"
            );
        }
        assert!(super::spread_over(&[], 4, |i| i).is_empty());
    }
}

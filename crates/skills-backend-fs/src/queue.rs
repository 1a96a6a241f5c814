//! Walks shared out directory by directory: threads take the next directory from one
//! queue, so a source whose folders differ wildly in size (one repository holding
//! thousands of skills next to ones holding one) keeps every thread busy to the end.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Directories still to visit, and how many are being visited: the walk is over when
/// both are zero.
pub(crate) struct WorkQueue<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

struct State<T> {
    waiting: VecDeque<T>,
    busy: usize,
    /// Threads waiting for an item or for the end of the walk.
    sleeping: usize,
}

/// Marks one taken item done when dropped, even when its visit panicked, so the other
/// threads do not wait for it forever.
struct Taken<'a, T> {
    queue: &'a WorkQueue<T>,
    found: Vec<T>,
}

impl<T> Drop for Taken<'_, T> {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        let found = !self.found.is_empty();
        state.waiting.extend(self.found.drain(..));
        state.busy -= 1;
        // A sleeping thread waits for new items or for the end; anything else would wake
        // it for nothing (a wake is a system call even when nobody sleeps: one per
        // skill folder of a walk, before).
        let wake = state.sleeping > 0 && (found || state.busy == 0);
        drop(state);
        if wake {
            self.queue.changed.notify_all();
        }
    }
}

impl<T> WorkQueue<T> {
    pub(crate) fn new(items: Vec<T>) -> Self {
        Self {
            state: Mutex::new(State {
                waiting: items.into(),
                busy: 0,
                sleeping: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Visits items until the queue is empty and no other thread can add to it:
    /// `visit` gets one item and a list to push the items it finds (sub-directories).
    pub(crate) fn work(&self, mut visit: impl FnMut(T, &mut Vec<T>)) {
        loop {
            let item = {
                let mut state = self.lock();
                loop {
                    if let Some(item) = state.waiting.pop_back() {
                        state.busy += 1;
                        break Some(item);
                    }
                    if state.busy == 0 {
                        break None;
                    }
                    state.sleeping += 1;
                    state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
                    state.sleeping -= 1;
                }
            };
            let Some(item) = item else {
                // Nothing left and nobody busy: whoever still sleeps is done too.
                self.changed.notify_all();
                return;
            };
            let mut taken = Taken {
                queue: self,
                found: Vec::new(),
            };
            visit(item, &mut taken.found);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::WorkQueue;

    #[test]
    fn every_item_and_everything_found_is_visited_once_across_threads() {
        // A tree: item n < 1,000 finds 2n+1 and 2n+2.
        let queue = Arc::new(WorkQueue::new(vec![0usize]));
        let seen: Arc<Vec<AtomicUsize>> = Arc::new((0..3_000).map(|_| AtomicUsize::new(0)).collect());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (queue, seen) = (Arc::clone(&queue), Arc::clone(&seen));
                std::thread::spawn(move || {
                    queue.work(|n, found| {
                        seen[n].fetch_add(1, Ordering::Relaxed);
                        if n < 1_000 {
                            found.extend([2 * n + 1, 2 * n + 2]);
                        }
                    });
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let counts: Vec<usize> = seen.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        assert!(counts[..2_001].iter().all(|&c| c == 1), "each visited once");
        assert!(counts[2_001..].iter().all(|&c| c == 0));
    }

    /// Works `items` off on `threads` threads with `visit` (a visit may panic: its thread
    /// stops), waiting for every thread to finish (a thread left waiting fails the test
    /// after 30 s instead of hanging it); how many visits began.
    fn visits_on_threads(
        items: Vec<usize>,
        threads: usize,
        visit: impl Fn(usize, &mut Vec<usize>) + Send + Sync + 'static,
    ) -> usize {
        let queue = Arc::new(WorkQueue::new(items));
        let (visited, visit) = (Arc::new(AtomicUsize::new(0)), Arc::new(visit));
        let (done, finished) = std::sync::mpsc::channel();
        let threads: Vec<_> = (0..threads)
            .map(|_| {
                let (queue, visited, visit, done) = (
                    Arc::clone(&queue),
                    Arc::clone(&visited),
                    Arc::clone(&visit),
                    done.clone(),
                );
                std::thread::spawn(move || {
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        queue.work(|n, found| {
                            visited.fetch_add(1, Ordering::Relaxed);
                            visit(n, found);
                        });
                    }));
                    done.send(()).unwrap();
                })
            })
            .collect();
        for _ in &threads {
            finished
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("a thread was left waiting");
        }
        for thread in threads {
            thread.join().unwrap();
        }
        visited.load(Ordering::Relaxed)
    }

    #[test]
    fn sleeping_threads_wake_for_items_found_late_and_for_the_end() {
        // A chain: each item finds the next, so all but one thread sleep most of the
        // time and must be woken for each new item and at the end.
        let visited = visits_on_threads(vec![0], 3, |n, found| {
            if n < 500 {
                found.push(n + 1);
            }
        });
        assert_eq!(visited, 501);
    }

    #[test]
    fn a_visit_that_panics_does_not_leave_the_others_waiting() {
        // Without the guard, the other thread would wait for the failed visit forever.
        let visited = visits_on_threads(vec![0, 1, 2, 3], 2, |n, _| assert_ne!(n, 2, "this visit fails"));
        // The thread whose visit panicked stopped; the other finished the queue.
        assert_eq!(visited, 4);
    }
}

//! The process's heap: which allocator serves it, and how.
//!
//! A one-shot command (`list`, `search`, `validate`...) allocates from the system's
//! allocator (glibc on Linux), tuned for a low peak ([`tune_for_one_shot`]): a user runs
//! it on a large library as often as they like, and its peak memory is what counts.
//! `skills serve` is started once per session by an MCP client, and the client waits
//! for its first answers: before its runtime starts it switches to mimalloc
//! ([`use_mimalloc`]), whose threads allocate and free without sharing an arena's lock.
//! The choice is per process, made in `main` before any other thread exists; blocks
//! taken from glibc before the switch are given back to glibc (decision 109 gives the
//! figures).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys as mi;

/// The allocator of the `skills` process: the system's until [`use_mimalloc`], then
/// mimalloc for every new block. A block is given back to the allocator it came from:
/// mimalloc answers whether a pointer is in its heap from its own page map, without
/// touching the block.
pub(crate) struct Heap;

/// Whether new blocks come from mimalloc. Set once, never cleared.
static MIMALLOC: AtomicBool = AtomicBool::new(false);

/// The alignment every block of `malloc` (and mimalloc's) already has.
const MIN_ALIGN: usize = 16;

// SAFETY: each method hands the layout's size and alignment to one allocator and gives
// a block back only to the allocator whose heap holds it: mimalloc's page map says so
// for its own blocks (and not for any other address), and it is consulted only once
// mimalloc was initialized (`use_mimalloc` allocates before it sets the flag, with
// release ordering, and every reader loads it with acquire ordering).
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !MIMALLOC.load(Ordering::Acquire) {
            // SAFETY: the caller's contract (a layout of non-zero size) is passed on.
            return unsafe { System.alloc(layout) };
        }
        // SAFETY: mimalloc takes any size and a power-of-two alignment.
        unsafe {
            if layout.align() <= MIN_ALIGN && layout.align() <= layout.size() {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !MIMALLOC.load(Ordering::Acquire) {
            // SAFETY: as in `alloc`.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: as in `alloc`.
        unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()).cast() }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_mimalloc(ptr) {
            // SAFETY: a block of mimalloc's heap, given back once (the caller's contract).
            unsafe { mi::mi_free(ptr.cast()) }
        } else {
            // SAFETY: not mimalloc's, so the system allocator gave it with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if in_mimalloc(ptr) {
            // SAFETY: a block of mimalloc's heap; the alignment is the block's own.
            unsafe { mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast() }
        } else {
            // SAFETY: a block of the system allocator's with this layout; it stays there.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

/// Whether `ptr` is a block of mimalloc's heap (never, before [`use_mimalloc`]).
fn in_mimalloc(ptr: *mut u8) -> bool {
    // SAFETY: the page map answers for any address once mimalloc is initialized, which
    // the flag's acquire load guarantees.
    #[allow(unsafe_code)]
    let ours = MIMALLOC.load(Ordering::Acquire) && unsafe { mi::mi_is_in_heap_region(ptr.cast()) };
    ours
}

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_t`, mimalloc.h): how
/// many milliseconds memory it freed stays committed (10 by default). [`settle`] sets
/// it to 0 once a server's start is over: at 0 from the start, the start lost part of
/// its gain; left at 10 ms, a server whose threads then idle kept about a fifth more
/// resident memory than with glibc (decision 109). `MIMALLOC_PURGE_DELAY` still decides
/// when it is set.
const PURGE_DELAY: mi::mi_option_t = 15;

/// From now on, new blocks come from mimalloc. For `skills serve`, called in `main`
/// before any other thread exists: at a warm start of a 40,304-skill library the walk,
/// the kept search index's decoding and the client's first requests allocate on every
/// core at once, and glibc's arenas made them wait for each other (decision 109).
pub(crate) fn use_mimalloc() {
    // SAFETY: a block taken and given back initializes mimalloc's process state (its
    // page map, and its options from `MIMALLOC_*` variables) before any thread can ask
    // it whether a pointer is its own.
    #[allow(unsafe_code)]
    unsafe {
        mi::mi_free(mi::mi_malloc(1));
    }
    MIMALLOC.store(true, Ordering::Release);
}

/// How many malloc arenas a one-shot command's threads share (see [`tune_for_one_shot`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ONE_SHOT_ARENAS: i32 = 4;

/// glibc gives each thread that allocates its own arena, up to eight per core, and an
/// arena keeps the memory it once held: discovery reads on the blocking pool's threads,
/// so each of them kept a few MiB of a large library's peak. `ONE_SHOT_ARENAS` bound
/// that: two held the peak of `skills list` on a real 10,000-skill library from 39 to 35
/// MiB, but left the walk's, the readers' and the runtime's threads waiting on each
/// other's arena lock; four, each grown at start (below), make a start that reads and
/// parses about a tenth faster for 1-2 MiB more at its peak (decision 054).
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
/// thread's page faults need. Grown once at start, an arena keeps its pages writable
/// when a free gives their memory back (`MADV_DONTNEED`), so that start makes about 40
/// calls; every arena but the main one is grown (with four arenas and only the second
/// grown, a warm start made 2,789 calls again). Past the 32 MiB grown here it grows a page
/// at a time again (13,030 calls in a one-shot search of a 40,000-skill library); growing
/// more at start, a larger `M_TOP_PAD` or a single arena did not make such a process
/// measurably faster (docs/performance.md).
pub(crate) fn tune_for_one_shot() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called in main before any other thread exists; the settings only bound how
    // glibc allocates later; each block is freed by the thread that took it (a null
    // pointer, if the allocation failed, is a no-op for `free`), and those threads are
    // joined before the threshold is set back.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, ONE_SHOT_ARENAS);
        // One block of 32 MiB per arena besides the main one, each taken on a thread of
        // its own while the others hold theirs (a thread gets a new arena only while no
        // other is free), makes every arena's heap writable at once; the threshold is
        // raised so that the blocks come from the heaps rather than mappings of their
        // own. A thread the system refuses (a process limit) only leaves an arena as it
        // was.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        grow_arenas(ONE_SHOT_ARENAS.unsigned_abs() as usize - 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Takes and gives back a 32 MiB block on each of `threads` threads that all hold
/// theirs at once, so each creates and grows an arena of its own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn grow_arenas(threads: usize) {
    let (ready, all_ready) = std::sync::mpsc::channel::<()>();
    let hold = std::sync::Arc::new(std::sync::Mutex::new(()));
    let held = hold.lock();
    let grown: Vec<_> = (0..threads)
        .filter_map(|_| {
            let (ready, hold) = (ready.clone(), std::sync::Arc::clone(&hold));
            std::thread::Builder::new()
                .spawn(move || {
                    // SAFETY: the block is freed below by this thread, or is null.
                    #[allow(unsafe_code)]
                    let block = std::hint::black_box(unsafe { libc::malloc(32 << 20) });
                    let _ = ready.send(());
                    drop(hold.lock());
                    // SAFETY: taken above by `malloc` on this thread, given back once.
                    #[allow(unsafe_code)]
                    unsafe {
                        libc::free(block);
                    }
                })
                .ok()
        })
        .collect();
    drop(ready);
    for _ in 0..grown.len() {
        let _ = all_ready.recv();
    }
    drop(held);
    for thread in grown {
        let _ = thread.join();
    }
}

/// A server's start is over: from now on, memory mimalloc frees goes back to the system
/// at once rather than after [`PURGE_DELAY`]'s default of 10 ms (a thread that then
/// idles would keep it), and what is free now goes back ([`trim`]).
pub(crate) fn settle() {
    if MIMALLOC.load(Ordering::Acquire) && std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc reads its options whenever it decides to purge; setting one
        // from any thread only changes later decisions.
        #[allow(unsafe_code)]
        unsafe {
            mi::mi_option_set(PURGE_DELAY, 0);
        }
    }
    trim();
}

/// Hands the heap's free pages back to the system (allocators keep them otherwise): a
/// long-running server calls it after work that allocated and freed a lot (discovery,
/// a page of manifests), so its resident memory follows what it holds, not what it
/// once held.
pub(crate) fn trim() {
    // SAFETY: `mi_collect` frees what mimalloc's heaps hold unused and `malloc_trim`
    // returns free memory of glibc's arenas to the system; both may run at any time
    // from any thread.
    #[allow(unsafe_code)]
    unsafe {
        if MIMALLOC.load(Ordering::Acquire) {
            mi::mi_collect(true);
        }
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size class and of large alignments, written end to end, read
    /// back, grown and shrunk, from whichever allocator is current.
    fn exercise(seed: u8) -> Vec<Vec<u8>> {
        let mut kept = Vec::new();
        for (i, size) in [1usize, 7, 16, 100, 4096, 70_000, 3 << 20].into_iter().enumerate() {
            let fill = seed.wrapping_add(i as u8);
            let mut block = vec![fill; size];
            block.extend_from_slice(&[fill; 33]);
            block.truncate(size / 2 + 1);
            block.shrink_to_fit();
            assert!(block.iter().all(|&b| b == fill));
            kept.push(block);
        }
        kept
    }

    #[repr(align(4096))]
    struct Page([u8; 4096]);

    #[test]
    fn blocks_from_before_the_switch_are_freed_and_grown_by_their_own_allocator() {
        let before = exercise(1);
        let aligned_before = Box::new(Page([3; 4096]));
        let mut grown_before = vec![5u8; 1000];
        use_mimalloc();
        assert!(MIMALLOC.load(Ordering::Acquire));
        let after = exercise(2);
        let aligned_after = Box::new(Page([4; 4096]));
        assert_eq!(std::ptr::from_ref(&*aligned_after).addr() % 4096, 0);
        assert!(in_mimalloc(after[3].as_ptr().cast_mut()));
        assert!(in_mimalloc(std::ptr::from_ref(&*aligned_after).cast::<u8>().cast_mut()));
        assert!(aligned_before.0.iter().all(|&b| b == 3) && aligned_after.0.iter().all(|&b| b == 4));
        // A block glibc gave is not mimalloc's, and grows where it is.
        assert!(!in_mimalloc(grown_before.as_mut_ptr()));
        grown_before.resize(1 << 20, 6);
        assert!(grown_before[..1000].iter().all(|&b| b == 5) && grown_before[1000..].iter().all(|&b| b == 6));
        // A thread's blocks freed on another, both ways.
        let from_thread = std::thread::spawn(|| exercise(7)).join().unwrap();
        std::thread::spawn(move || drop((before, from_thread, aligned_before)))
            .join()
            .unwrap();
        drop((after, aligned_after, grown_before));
        trim();
        assert!(exercise(9).iter().all(|b| !b.is_empty()));
    }
}

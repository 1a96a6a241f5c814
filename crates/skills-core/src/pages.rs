//! Memory about to be filled at once, made present in one call. A buffer of a few
//! hundred KiB or more that a read or a copy then fills takes a page fault for every
//! 4 KiB page it touches otherwise, and a fault is costly in a virtual machine: the
//! 1.7 MB kept answer of a 2,826-skill library took 425 of them (decision 125).
//!
//! ```
//! let mut buffer: Vec<u8> = Vec::with_capacity(1 << 20);
//! skills_core::pages::prefault(buffer.spare_capacity_mut());
//! buffer.extend_from_slice(&[7; 1 << 20]);
//! assert_eq!(buffer[12_345], 7);
//! ```

use std::mem::MaybeUninit;

/// Below this many whole pages a buffer is left to fault page by page (one call costs
/// about as much as a few faults).
const FEW_PAGES: usize = 8;

/// Asks the kernel to make the pages wholly inside `room` present and writable now
/// (`MADV_POPULATE_WRITE`, Linux 5.14 and later), typically the spare capacity of a
/// vector about to be filled. Nothing happens where that cannot be done, or for a room
/// of fewer than eight pages; the contents are not changed either way.
pub fn prefault<T>(room: &mut [MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = room.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = (start + std::mem::size_of_val(room)) / PAGE * PAGE;
        if end >= first + FEW_PAGES * PAGE {
            // SAFETY: the range lies within `room`, memory the caller holds mutably;
            // populating its pages changes neither its contents nor its mapping.
            #[allow(unsafe_code)]
            let _ = unsafe {
                rustix::mm::madvise(
                    first as *mut std::ffi::c_void,
                    end - first,
                    rustix::mm::Advice::LinuxPopulateWrite,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (room, FEW_PAGES);
}

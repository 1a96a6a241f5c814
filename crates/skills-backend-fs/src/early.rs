//! Early looks: while one thread reads a large source folder's names (about a third of
//! a microsecond per name in the kernel, a millisecond for 3,000 of them, with the other
//! core idle), a helper on the blocking pool looks up `<child>/SKILL.md` for each child
//! folder already named, in the order the directory gives them. The walk then records
//! what the helper found and looks up only the rest itself.
//!
//! A look made early is the same `stat` the walk would make a moment later, so it says
//! what the walk would have said; a walk that reads its files has the helper open and
//! read each one instead ([`SourceDir::look_reading`]), as it would itself. The helper
//! is told to stop once the names are in order; nothing waits for it, and what it finds
//! after that is not used.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use skills_core::{ReadAheadFile, path};

use crate::at::{Looked, SourceDir};
use crate::read_ahead::ReadAheadRoom;

/// How many names the helper is handed at a time.
const BATCH: usize = 64;

/// How many lookups the helper makes before it publishes them.
const PUBLISH: usize = 16;

/// Names handed to the helper at once: their text, and for each its place among the
/// names as the directory gave them and where it ends in the text.
#[derive(Default)]
struct Batch {
    text: String,
    ends: Vec<(u32, usize)>,
}

/// What the helper found for a child, by its place among the names: the look, and the
/// file read and parsed when the walk reads its files and the look could read it.
pub(crate) type EarlyFound = (u32, Looked, Option<ReadAheadFile>);

/// What the helper found so far; `None` once the walk took it.
type Found = Arc<Mutex<Option<Vec<EarlyFound>>>>;

/// A helper looking up the children's files while their names are still being read.
pub(crate) struct Early {
    batch: Batch,
    to_helper: mpsc::Sender<Batch>,
    /// The helper's work, put on the pool with the first whole batch: a folder of fewer
    /// child folders starts no helper.
    helper: Option<(tokio::runtime::Handle, Box<dyn FnOnce() + Send>)>,
    found: Found,
    stop: Arc<AtomicBool>,
    /// Told (by being dropped) when the helper is done.
    #[cfg(test)]
    done: mpsc::Receiver<()>,
}

impl Early {
    /// Starts a helper on the running runtime's blocking pool that looks up
    /// `<child>/<file_name>` in `source` for each child handed to it; `None` outside a
    /// runtime. With `read` (the source's backend path and the walk's room for parses),
    /// it reads and parses each file as the walk would.
    pub(crate) fn start(
        source: &Arc<SourceDir>,
        file_name: &str,
        read: Option<(String, Arc<ReadAheadRoom>)>,
    ) -> Option<Self> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (to_helper, handed) = mpsc::channel::<Batch>();
        let found: Found = Arc::new(Mutex::new(Some(Vec::new())));
        let stop = Arc::new(AtomicBool::new(false));
        let (source, file_name) = (Arc::clone(source), file_name.to_owned());
        let (helper_found, helper_stop) = (Arc::clone(&found), Arc::clone(&stop));
        #[cfg(test)]
        let (done_tx, done) = mpsc::channel::<()>();
        let work = Box::new(move || {
            #[cfg(test)]
            let _done = done_tx;
            let (mut rel, mut looked) = (String::new(), Vec::with_capacity(PUBLISH));
            let mut content = Vec::new();
            while let Ok(batch) = handed.recv() {
                let mut start = 0;
                for &(at, end) in &batch.ends {
                    if helper_stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let name = batch.text.get(start..end).unwrap_or_default();
                    start = end;
                    looked.push(match &read {
                        None => (at, source.look(name, &file_name, &mut rel), None),
                        Some((dir_path, room)) => {
                            let child_dir = path::join(dir_path, name);
                            let (found, parsed) =
                                source.look_reading((name, &file_name), &child_dir, (&mut rel, &mut content), room);
                            (at, found, parsed)
                        }
                    });
                    // Published a few at a time, never waiting for the lock.
                    if looked.len() >= PUBLISH
                        && let Ok(mut found) = helper_found.try_lock()
                    {
                        match found.as_mut() {
                            Some(found) => found.append(&mut looked),
                            None => return,
                        }
                    }
                }
            }
            // Every name handed was looked up (only a test waits for that).
            if let Some(found) = helper_found.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
                found.append(&mut looked);
            }
        });
        Some(Self {
            batch: Batch::default(),
            to_helper,
            helper: Some((runtime, work)),
            found,
            stop,
            #[cfg(test)]
            done,
        })
    }

    /// Hands the child folder `name`, at place `at` among the names as the directory
    /// gave them, to the helper (in batches).
    pub(crate) fn hand(&mut self, at: u32, name: &str) {
        self.batch.text.push_str(name);
        self.batch.ends.push((at, self.batch.text.len()));
        if self.batch.ends.len() == BATCH {
            self.send_batch();
        }
    }

    /// Hands the batch to the helper, started now if it was not.
    fn send_batch(&mut self) {
        if let Some((runtime, work)) = self.helper.take() {
            drop(runtime.spawn_blocking(work));
        }
        let _ = self.to_helper.send(std::mem::take(&mut self.batch));
    }

    /// Stops the helper, without waiting for it: what it found so far, by place, in the
    /// order it was handed the names (increasing places).
    pub(crate) fn finish(self) -> Vec<EarlyFound> {
        let taken = self.found.lock().unwrap_or_else(PoisonError::into_inner).take();
        taken.unwrap_or_default()
    }

    /// Waits for the helper to look up every name handed to it: what it found, as
    /// [`finish`](Self::finish) gives it. For tests, which need every lookup made early.
    #[cfg(test)]
    pub(crate) fn finish_all(mut self) -> Vec<EarlyFound> {
        if !self.batch.ends.is_empty() {
            self.send_batch();
        }
        // The helper ends once nothing more can be handed to it (and never starts if
        // it was handed nothing).
        self.helper = None;
        self.to_helper = mpsc::channel().0;
        let _ = self.done.recv();
        self.finish()
    }
}

impl Drop for Early {
    /// The helper stops at its next lookup: whatever it finds now is not used.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Where among what the helper found (`found`, by increasing place) the name at place
/// `at` is, if it got to it.
pub(crate) fn found_at(found: &[(u32, Looked)], at: u32) -> Option<usize> {
    found.binary_search_by_key(&at, |(place, _)| *place).ok()
}

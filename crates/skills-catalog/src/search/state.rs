//! The catalog's search state: one [`SkillIndex`] shared by every thread, built from a
//! snapshot, kept up to date by reloads, and given each skill's instructions by a reader
//! that runs after the index is built and after each reload that changed skills.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use skills_core::parse::MAX_SKILL_FILE_SIZE;

use super::{SkillIndex, Unread, opening};
use crate::snapshot::{CatalogChange, CatalogSnapshot};

/// The snapshot a catalog serves, shared with the reader of instructions.
pub(crate) type Current = Arc<RwLock<Arc<CatalogSnapshot>>>;

/// Skills whose instructions are read in one round: one `download_files` call per
/// source, then one short hold of the index's lock to add them. Small, as a round's
/// files are held whole until each is cut to its opening.
const ROUND: usize = 64;

/// What a reload does to the snapshot a catalog serves, for its search index.
pub(crate) enum Swap<'a> {
    /// Nothing changed: the snapshot stays.
    Kept,
    /// The snapshot is served from now on; the index follows the changes.
    Changed(Arc<CatalogSnapshot>, &'a [CatalogChange]),
    /// The snapshot of a first discovery that listed no changes is served from now on:
    /// an index built before it (`warm_search`) is built again.
    Rebuilt(Arc<CatalogSnapshot>),
}

/// Where the index of a catalog's first snapshot is kept between processes.
#[derive(Debug)]
pub(crate) struct StoredIndex {
    pub(crate) file: std::path::PathBuf,
    pub(crate) key: String,
    /// The index file of the same sources kept by starts that vouched for their files
    /// the other way (by digest, or by each file's etag): a start whose own file is
    /// missing brings the index in it to its library.
    pub(crate) sibling: Option<std::path::PathBuf>,
    /// Whether the file holds the index with every skill's instructions.
    pub(crate) complete: bool,
}

/// A kept index being read on the blocking pool from `file`: the key it was kept under
/// and the index (`None` when the file held none whole). Dropped, it stops the read.
pub(crate) struct Prefetched {
    pub(crate) file: std::path::PathBuf,
    pub(crate) index: std::sync::mpsc::Receiver<Option<(String, SkillIndex)>>,
    pub(crate) wanted: Arc<AtomicBool>,
}

impl Drop for Prefetched {
    fn drop(&mut self) {
        self.wanted.store(false, Ordering::Relaxed);
    }
}

impl Prefetched {
    /// The key the index was kept under and the index, once decoded.
    pub(crate) fn take(&self) -> Option<(String, SkillIndex)> {
        self.index.recv().ok().flatten()
    }
}

/// A catalog's search index, and the one reader of instructions at a time.
#[derive(Default)]
pub(crate) struct SearchState {
    pub(super) index: RwLock<Option<SkillIndex>>,
    /// Where the index is kept between processes, while it is the first snapshot's
    /// (a reload that changes the snapshot lets go of it).
    pub(crate) stored: std::sync::Mutex<Option<StoredIndex>>,
    reading: tokio::sync::Mutex<()>,
    /// The index reads no instructions
    /// ([`SkillCatalog::with_search_instructions`](crate::SkillCatalog::with_search_instructions)).
    without_instructions: AtomicBool,
    /// The kept index is read during the first discovery
    /// ([`SkillCatalog::with_search_prefetch`](crate::SkillCatalog::with_search_prefetch)).
    pub(crate) prefetch: AtomicBool,
    /// The kept index being read meanwhile.
    pub(crate) prefetched: std::sync::Mutex<Option<Prefetched>>,
}

impl std::fmt::Debug for SearchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchState")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl SearchState {
    /// Whether the index reads each skill's instructions (default: yes).
    pub(crate) fn set_instructions(&self, read: bool) {
        self.without_instructions.store(!read, Ordering::Relaxed);
    }

    /// Whether the index reads each skill's instructions.
    pub(crate) fn reads_instructions(&self) -> bool {
        !self.without_instructions.load(Ordering::Relaxed)
    }

    /// Whether the index is built and, unless it reads none, holds every skill's
    /// instructions.
    pub(super) fn ready(&self) -> bool {
        self.index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|index| !self.reads_instructions() || index.all_instructions_read())
    }

    /// Serves the snapshot a reload made ([`Swap`]), bringing a built index up to date,
    /// both under the index's lock so that no search sees one without the other; and
    /// marks unread the instructions of the skills
    /// whose `SKILL.md` was read again because it changed (`reread`: source and path),
    /// though their frontmatter may be the same (no change then). Skills the index holds
    /// without their instructions are read in the background, on the tokio runtime if
    /// there is one (else by the next
    /// [`SkillCatalog::prepare_search`](crate::SkillCatalog::prepare_search)).
    pub(crate) fn publish(self: &Arc<Self>, current: &Current, swap: Swap<'_>, reread: &[(usize, String)]) {
        if matches!(swap, Swap::Kept) && reread.is_empty() {
            // A poll that found nothing: searches are not held up.
            return;
        }
        let mut index = self.index.write().unwrap_or_else(PoisonError::into_inner);
        if let Swap::Changed(next, _) | Swap::Rebuilt(next) = &swap {
            *current.write().unwrap_or_else(PoisonError::into_inner) = Arc::clone(next);
            *self.stored.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
        let Some(index) = index.as_mut() else {
            return;
        };
        match swap {
            Swap::Kept => {}
            Swap::Changed(next, changes) => update_index(index, &next, changes),
            Swap::Rebuilt(next) => *index = SkillIndex::build(next.skills()),
        }
        if !reread.is_empty() {
            let snapshot = current.read().unwrap_or_else(PoisonError::into_inner).clone();
            let reread: HashSet<(usize, &str)> = reread.iter().map(|(i, path)| (*i, path.as_str())).collect();
            for (skill, source) in snapshot.skills().iter().zip(snapshot.skill_sources()) {
                if reread.contains(&(*source, skill.path.as_str())) {
                    index.forget_instructions(&skill.name);
                }
            }
        }
        if !index.all_instructions_read() {
            self.start_reader(current);
        }
    }

    /// Reads the instructions the index lacks, in the background on the tokio runtime if
    /// there is one.
    fn start_reader(self: &Arc<Self>, current: &Current) {
        if !self.reads_instructions() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (search, current) = (Arc::clone(self), Arc::clone(current));
            runtime.spawn(async move { search.read_instructions(&current, false).await });
        }
    }

    /// Gives the index the instructions of every skill it holds without them, reading
    /// each skill's `SKILL.md` through its source's backend; returns when none is left.
    /// A file that cannot be read, or that a frozen lock does not hold, gives no words.
    /// With `keep`, returns the words of each file read (source, path of its
    /// `SKILL.md`, words one per line), for a cache that keeps them.
    pub(super) async fn read_instructions(&self, current: &Current, keep: bool) -> Vec<ReadWords> {
        let mut kept = Vec::new();
        if !self.reads_instructions() {
            return kept;
        }
        let _one_reader = self.reading.lock().await;
        let mut read = 0;
        loop {
            let (unread, snapshot) = {
                let index = self.index.read().unwrap_or_else(PoisonError::into_inner);
                let Some(index) = index.as_ref() else {
                    return kept;
                };
                let snapshot = current.read().unwrap_or_else(PoisonError::into_inner).clone();
                (index.unread_instructions(ROUND), snapshot)
            };
            if unread.is_empty() {
                // After a whole library (not after a reload's few skills), the lists'
                // growth room goes.
                if read > ROUND
                    && let Some(index) = self.index.write().unwrap_or_else(PoisonError::into_inner).as_mut()
                {
                    index.shrink();
                }
                return kept;
            }
            read += unread.len();
            let texts = read_texts(&snapshot, &unread).await;
            // Split into words under the read lock (searches go on), added under the
            // write lock.
            let words: Vec<Vec<String>> = {
                let index = self.index.read().unwrap_or_else(PoisonError::into_inner);
                let Some(index) = index.as_ref() else {
                    return kept;
                };
                texts
                    .iter()
                    .map(|text| index.instruction_words(text.as_ref().map_or("", |(_, _, text)| text)))
                    .collect()
            };
            if keep {
                for (text, words) in texts.iter().zip(&words) {
                    if let Some((source, path, _)) = text {
                        kept.push((*source, path.clone(), Arc::from(words.join("\n"))));
                    }
                }
            }
            let mut index = self.index.write().unwrap_or_else(PoisonError::into_inner);
            let Some(index) = index.as_mut() else {
                return kept;
            };
            for (skill, words) in unread.iter().zip(&words) {
                index.set_instruction_words(&skill.name, skill.generation, words);
            }
        }
    }
}

/// The words read for one skill's instructions: its source, the path of its `SKILL.md`,
/// and the words one per line.
pub(crate) type ReadWords = (usize, String, Arc<str>);

/// The opening of the instructions ([`opening`]) of each `unread` skill's `SKILL.md` in
/// `snapshot`, in order, with the skill's source and path; `None` for one that is gone,
/// cannot be read, is over the size limit, is not UTF-8 or does not match the snapshot's
/// lock.
async fn read_texts(snapshot: &CatalogSnapshot, unread: &[Unread]) -> Vec<Option<(usize, String, String)>> {
    let mut texts = vec![None; unread.len()];
    // The skills by source, for one read per source.
    let mut by_source: BTreeMap<usize, Vec<(usize, &str)>> = BTreeMap::new();
    for (at, skill) in unread.iter().enumerate() {
        if let (Some(source), Some(metadata)) = (snapshot.source_of(&skill.name), snapshot.get(&skill.name)) {
            by_source.entry(source).or_default().push((at, metadata.path.as_str()));
        }
    }
    for (at_source, skills) in by_source {
        let Some(source) = snapshot.sources().get(at_source) else {
            continue;
        };
        let paths: Vec<String> = skills.iter().map(|(_, path)| (*path).to_owned()).collect();
        let responses = source.backend().download_files(&paths).await;
        for ((at, path), response) in skills.iter().zip(responses) {
            let Some(content) = response.content else {
                continue;
            };
            let name = &unread[*at].name;
            // The skill file's own name: `SKILL.md`, or a folder's lowercase `skill.md`.
            let file = skills_core::path::file_name(path);
            let held = snapshot.lock().is_none_or(|lock| lock.holds(name, file, &content));
            if content.len() as u64 <= MAX_SKILL_FILE_SIZE
                && held
                && let Ok(text) = String::from_utf8(content)
            {
                texts[*at] = Some((at_source, (*path).to_owned(), opening(&text).to_owned()));
            }
        }
    }
    texts
}

/// Brings a search index up to date with the skills a reload changed.
fn update_index(index: &mut SkillIndex, snapshot: &CatalogSnapshot, changes: &[CatalogChange]) {
    for change in changes {
        match change {
            CatalogChange::Added { name } | CatalogChange::Changed { name } => match snapshot.get(name) {
                Some(skill) => index.upsert(skill),
                None => {
                    index.remove(name);
                }
            },
            CatalogChange::Removed { name } => {
                index.remove(name);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::channel;

    use super::{Prefetched, SkillIndex};

    #[test]
    fn a_prefetched_index_is_taken_with_its_key_and_stopped_when_dropped() {
        let prefetched = || {
            let (tell, index) = channel();
            let wanted = Arc::new(AtomicBool::new(true));
            let prefetched = Prefetched {
                file: "kept.index".into(),
                index,
                wanted: Arc::clone(&wanted),
            };
            (tell, prefetched, wanted)
        };
        // Dropped unread (a start that does not search): the decoding is told to stop.
        let (_tell, dropped, wanted) = prefetched();
        drop(dropped);
        assert!(!wanted.load(Ordering::Relaxed), "the decoding is told to stop");

        let (tell, taken, _) = prefetched();
        let index = SkillIndex::build::<skills_core::SkillMetadata>(&[]);
        tell.send(Some(("these skills".to_owned(), index))).unwrap();
        let (key, index) = taken.take().unwrap();
        assert_eq!((key.as_str(), index.len()), ("these skills", 0));

        // A file that held no whole index, or a reader that ended without a word (its
        // sender gone): nothing is taken, and nothing is waited for.
        let (tell, damaged, _) = prefetched();
        tell.send(None).unwrap();
        assert!(damaged.take().is_none());
        let (tell, gone, _) = prefetched();
        drop(tell);
        assert!(gone.take().is_none());
    }
}

//! Answers kept between processes: what a one-shot program made of a catalog's first
//! snapshot (the text `skills list` printed, say), kept in the [`PersistentCache`]
//! under the question asked and the digests of the files each source's walk found. A
//! later process whose walks find the very same files gets the same bytes back without
//! decoding a listing, building a snapshot or formatting anything: a warm start is then
//! one walk (a `stat` per `SKILL.md` on disk) and one read (decision 124).
//!
//! The answer is as trustworthy as the catalog's kept listings, and for the same
//! reasons: it is kept only when every source's listing says only what its files say
//! (no failed read, no stale backend, no limit cut, no lock), under the same digests of
//! the same files' paths and etags, so a file edited, replaced, added or removed since
//! (or changed within the racy window) is another question's answer.
//!
//! [`PersistentCache`]: crate::PersistentCache

use std::fmt::Write as _;
use std::io::{Read as _, Seek as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use crate::cache_file::{CacheFileWriter, MAX_CACHE_FILE_BYTES, WhileWanted, open_payload};
use crate::catalog::SkillCatalog;
use crate::first_look::FirstLook;
use crate::kept_listing::says_only_its_files;
use crate::persist::{PersistentCache, prune};
use crate::snapshot::CatalogSnapshot;
use crate::source::SkillSource;

/// What [`SkillCatalog::load_or_answer`] found.
#[derive(Debug)]
pub enum FirstLoad {
    /// The answer kept for the question and for the very files the sources hold now,
    /// as [`AnswerWriter`] was given it; the catalog was not loaded.
    Answered(Vec<u8>),
    /// No answer holds: the catalog is loaded, as [`SkillCatalog::ensure_loaded`]
    /// loads it, and this is its snapshot.
    Loaded(Arc<CatalogSnapshot>),
}

/// An answer being kept ([`SkillCatalog::answer_writer`]): the bytes go to a temporary
/// file beside the cache's other files as they are written, and [`finish`](Self::finish)
/// puts the file in place. Dropped unfinished, it leaves nothing behind. A write that
/// fails (a full disk, an answer over [`MAX_CACHE_FILE_BYTES`]) is told by `finish`.
pub struct AnswerWriter {
    writer: CacheFileWriter,
    dir: PathBuf,
}

impl std::fmt::Debug for AnswerWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerWriter").field("file", &self.writer.file).finish()
    }
}

impl AnswerWriter {
    /// Puts the answer in place for the next process, and gives it back to be read
    /// from its start: the bytes written, from the file written, whatever another
    /// process puts in its place meanwhile.
    pub fn finish(self) -> std::io::Result<impl std::io::Read> {
        let file = self.writer.file.clone();
        let written = finish_readable(self.writer)?;
        prune(&self.dir, &file);
        Ok(written)
    }
}

impl std::io::Write for AnswerWriter {
    /// Takes `buf` whole; a failure is kept for [`finish`](AnswerWriter::finish).
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SkillCatalog {
    /// The answer a process kept for `question` ([`answer_writer`](Self::answer_writer))
    /// when every source's walk finds the very files it was kept for, without loading
    /// the catalog; the catalog loaded otherwise, as [`ensure_loaded`](Self::ensure_loaded)
    /// loads it (the walks are not made twice).
    ///
    /// `question` names what the answer is (the command and every setting of its own
    /// that changes it): the sources, the limits and the program's version are added to
    /// it here. Without a [persistent cache](Self::with_persistent_cache), with a lock,
    /// with resources listed at discovery, or once loaded, this is `ensure_loaded`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
    /// use std::io::{Read as _, Write as _};
    /// use std::sync::Arc;
    /// use skills_catalog::{FirstLoad, PersistentCache, SkillCatalog, SkillSource};
    /// use skills_core::MemoryBackend;
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// backend.insert("/skills/web/SKILL.md", "---\nname: web\ndescription: Search the web\n---\n")?;
    /// let dir = tempfile::tempdir()?;
    /// let catalog = || {
    ///     let source = SkillSource::new(backend.clone(), "/skills").with_spec("memory");
    ///     SkillCatalog::new(vec![source])
    ///         .with_resources(false)
    ///         .with_persistent_cache(PersistentCache::new(dir.path()))
    /// };
    /// // The first process loads its catalog and keeps what it made of it.
    /// let first = catalog();
    /// let FirstLoad::Loaded(snapshot) = first.load_or_answer("names").await else { panic!() };
    /// let mut writer = first.answer_writer("names").await.expect("the files vouch for it");
    /// writer.write_all(snapshot.skills()[0].name.as_bytes())?;
    /// let mut printed = String::new();
    /// writer.finish()?.read_to_string(&mut printed)?;
    /// assert_eq!(printed, "web");
    /// // The next one finds the same files: the same answer, nothing loaded.
    /// let next = catalog();
    /// let FirstLoad::Answered(answer) = next.load_or_answer("names").await else { panic!() };
    /// assert_eq!((answer.as_slice(), next.snapshot().version()), (&b"web"[..], 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn load_or_answer(&self, question: &str) -> FirstLoad {
        let kept = self
            .persistent_cache()
            .filter(|_| self.snapshot().version() == 0 && !self.discovers_resources())
            .and_then(|persist| persist.answer_file(self.sources(), &self.limits, question));
        // An answer kept for these sources and this question, whichever files: its
        // header only, before anything is walked.
        let payload = kept.and_then(|(file, prefix)| {
            let payload = open_payload(&file, &|key| key.starts_with(&prefix)).ok()?;
            Some((payload, prefix))
        });
        let (Some((mut payload, prefix)), Some(persist)) = (payload, self.persistent_cache()) else {
            return FirstLoad::Loaded(self.ensure_loaded().await);
        };
        let mut guard = self.work.lock().await;
        if guard.is_some() {
            drop(guard);
            return FirstLoad::Loaded(self.ensure_loaded().await);
        }
        // The answer is read while the sources are walked (a walk's first step, reading
        // a folder's names, leaves the other core idle); it stops reading once the walks
        // find other files.
        let kept_for = std::mem::take(&mut payload.key);
        let wanted = Arc::new(AtomicBool::new(true));
        let still = Arc::clone(&wanted);
        let answer = tokio::task::spawn_blocking(move || {
            payload.decoded(|read, len| {
                let mut answer = Vec::with_capacity(usize::try_from(len).ok()?);
                skills_core::pages::prefault(answer.spare_capacity_mut());
                WhileWanted(read, &still).read_to_end(&mut answer).ok()?;
                Some(answer)
            })
        });
        // Every source walked (or vouched for by its revision), nothing read: the
        // digests of the files found.
        let mut walked = self.first_walks(false).await;
        let now = SystemTime::now();
        let mut key = Some(prefix + FILES);
        for (look, source) in walked.iter().zip(self.sources().iter()) {
            let digest = match look {
                Some((FirstLook::Unmoved { digest }, _)) => Some(*digest),
                Some((FirstLook::Walked { walked, revision }, _)) => walked
                    .as_ref()
                    .ok()
                    .filter(|_| says_only_its_files(&**source.backend()))
                    .and_then(|w| persist.listing_file(source, &self.limits, w, now, revision.as_deref()))
                    .map(|file| file.digest),
                None => None,
            };
            key = key.zip(digest).map(|(mut key, digest)| {
                let _ = write!(key, " {digest:032x}");
                key
            });
        }
        if key.as_deref() == Some(kept_for.as_str()) {
            let answer = answer.await.ok().flatten();
            if let Some(answer) = answer {
                return FirstLoad::Answered(answer);
            }
        } else {
            wanted.store(false, Ordering::Relaxed);
        }
        // Another question's files: the first discovery goes on from these walks, each
        // source's kept listing read now (it was not, in case the answer held).
        for (look, source) in walked.iter_mut().zip(self.sources().iter()) {
            if let Some((_, kept @ None)) = look {
                *kept = self.read_kept_listing(source);
            }
        }
        self.discover_walked(&mut guard, &[], false, walked).await;
        drop(guard);
        FirstLoad::Loaded(self.snapshot())
    }

    /// A writer of the answer to `question` (see [`load_or_answer`](Self::load_or_answer))
    /// made of this catalog's first snapshot, kept for the files its first discovery
    /// found; `None` when those files cannot vouch for it: no persistent cache or a
    /// lock, a reload since, a source whose listing says more than its files (a failed
    /// read, a limit's cut, a stale backend, no skill folder), or a cache folder that
    /// cannot be written.
    pub async fn answer_writer(&self, question: &str) -> Option<AnswerWriter> {
        let persist = self.persistent_cache()?;
        // Reloads publish under this lock: the snapshot stays the first one meanwhile.
        let work = self.work.lock().await;
        let work = work.as_ref()?;
        if self.snapshot().version() != 1 {
            return None;
        }
        let (file, mut key) = persist.answer_file(self.sources(), &self.limits, question)?;
        key.push_str(FILES);
        for state in work {
            let _ = write!(key, " {:032x}", state.files_digest?);
        }
        let writer = CacheFileWriter::create(&file, &key, MAX_CACHE_FILE_BYTES).ok()?;
        Some(AnswerWriter {
            writer,
            dir: persist.dir().to_owned(),
        })
    }
}

impl PersistentCache {
    /// Where the answer to `question` made of a catalog of `sources` is kept (see
    /// [`SkillCatalog::load_or_answer`](crate::SkillCatalog::load_or_answer)), and the
    /// start of its key: the question, then each source's key (spec, path, depth,
    /// limits, program), label and location; the digests of the files follow. One file
    /// per question and list of sources, whichever files it was kept for. `None` when a
    /// source has no spec.
    pub(crate) fn answer_file(
        &self,
        sources: &[SkillSource],
        limits: &skills_core::DiscoveryLimits,
        question: &str,
    ) -> Option<(PathBuf, String)> {
        let mut key = format!("answer\n{question}\n");
        for source in sources {
            key.push_str(&self.file_of(source, limits)?.1);
            key.push_str(&format!("\n{:?} {:?}\n", source.label(), source.location()));
        }
        let name = xxhash_rust::xxh3::xxh3_128(key.as_bytes()) >> 32;
        Some((self.dir().join(format!("{name:024x}.answer")), key))
    }
}

/// [`CacheFileWriter::finish`], and the payload as it was written, to be read from its
/// start: from the file the writer wrote, whatever another process renames over its
/// place meanwhile.
fn finish_readable(writer: CacheFileWriter) -> std::io::Result<std::io::Take<std::fs::File>> {
    let mut written = std::fs::File::open(&writer.temporary)?;
    let (header, len) = (writer.header, writer.written - writer.header);
    writer.finish()?;
    written.seek(std::io::SeekFrom::Start(header))?;
    Ok(written.take(len))
}

/// Where an answer's key turns from the question and the sources to the files' digests.
const FILES: &str = "\nfiles";

//! A walk that reads its files ([`child_files_read`]): each child's `SKILL.md` opened,
//! looked at and read once by the thread that finds it, and parsed there, within a room
//! for the parses it may hold.
//!
//! [`child_files_read`]: skills_core::BackendProtocol::child_files_read

use std::sync::atomic::{AtomicI64, Ordering};

use skills_core::{ReadAheadFile, path};

use crate::at::{Looked, SourceDir};

/// How much a walk that reads its files may hold of their parses until discovery takes
/// them ([`SourceDir::look_reading`]): the parses of a source are held whole only
/// when the walk ends, so past this the walk only looks at each file (it is read after the
/// walk, with the reads of discovery's usual pipeline) and a large source's start keeps
/// its peak memory.
#[derive(Debug)]
pub(crate) struct ReadAheadRoom {
    left: AtomicI64,
    /// The backend's size limit: a larger file is not read.
    max_file_size: u64,
}

/// The parses, encoded, one walk holds at most (a few more while its threads finish):
/// thereisnotime's 7,338 take 7.2 MB, AgentWorkers' 13,328 11.9 MB.
pub(crate) const READ_AHEAD_BYTES: i64 = 4 << 20;

impl ReadAheadRoom {
    /// Room for `bytes` of parses, of files of at most `max_file_size` bytes.
    pub(crate) fn new(bytes: i64, max_file_size: u64) -> Self {
        Self {
            left: AtomicI64::new(bytes),
            max_file_size,
        }
    }
}

impl SourceDir {
    /// [`look_and_read`](Self::look_and_read) of `<child>/<file_name>`, the file parsed
    /// at its backend path below `child_dir` while `room` has room for it: the look,
    /// and the parse when the file was read. Past the room, a [`look`](Self::look) only
    /// (the file is read after the walk).
    pub(crate) fn look_reading(
        &self,
        (child, file_name): (&str, &str),
        child_dir: &str,
        (rel, content): (&mut String, &mut Vec<u8>),
        room: &ReadAheadRoom,
    ) -> (Looked, Option<ReadAheadFile>) {
        if room.left.load(Ordering::Relaxed) <= 0 {
            return (self.look(child, file_name, rel), None);
        }
        let (looked, read) = self.look_and_read((child, file_name), rel, room.max_file_size, content);
        let parsed = read.then(|| ReadAheadFile::parse(path::join(child_dir, file_name), content));
        if let Some(parsed) = &parsed {
            let spent = i64::try_from(parsed.encoded_len()).unwrap_or(i64::MAX);
            room.left.fetch_sub(spent, Ordering::Relaxed);
        }
        (looked, parsed)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly.

    use skills_core::{BackendProtocol, Discovery};

    use crate::FilesystemBackend;

    /// Past its room for parses, a walk only looks at the files: it holds fewer parses,
    /// says the same of every file, and discovery reads the rest after it, listing what
    /// it lists without reading ahead.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_its_room_the_walk_only_looks() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..200 {
            let skill = dir.path().join(format!("src/skill-{i:03}"));
            std::fs::create_dir_all(&skill).unwrap();
            let text = format!("---\nname: skill-{i:03}\ndescription: {}\n---\n", "d".repeat(100));
            std::fs::write(skill.join("SKILL.md"), text).unwrap();
        }
        let roomy = FilesystemBackend::new(dir.path()).unwrap();
        let (walk, all) = roomy.child_files_read("/src", "SKILL.md", 1000).await.unwrap();
        assert_eq!(all.len(), 200);
        let narrow = roomy.with_inner(|inner| inner.read_ahead_bytes = 4000);
        let (narrow_walk, some) = narrow.child_files_read("/src", "SKILL.md", 1000).await.unwrap();
        assert_eq!(narrow_walk, walk);
        // Each parse takes under two hundred bytes: a score or so fit, with what the threads
        // had started when the room ran out.
        assert!((1..50).contains(&some.len()), "{} read ahead", some.len());
        let read_after = Discovery::new(&narrow, "/src").run().await.unwrap();
        let read_ahead = Discovery::new(&narrow, "/src").read_ahead(true).run().await.unwrap();
        assert_eq!(read_ahead, read_after);
        assert_eq!(read_ahead.skills.len(), 200);
    }
}

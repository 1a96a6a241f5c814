//! One installing run at a time per skills folder: [`InstallLock`].

use std::io;
use std::path::{Path, PathBuf};

use crate::write::{WriteError, io_error, work_dir};

/// How long [`InstallLock::take`] waits for another run to finish.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// One installing run at a time per skills folder: a file in its work folder created
/// exclusively, holding the process id of the run, removed when the guard is dropped.
/// A lock whose run is gone (killed) is taken over.
#[derive(Debug)]
pub struct InstallLock {
    path: PathBuf,
    /// The folders taking the lock created (the work folder, and `.agents` above it):
    /// removed again when the run leaves them empty.
    created: Vec<PathBuf>,
}

impl InstallLock {
    /// Takes the lock of the skills folder `dir`, waiting up to [`LOCK_WAIT`] for a run
    /// that holds it (`waiting` is called once with its process id when it starts to
    /// wait), or says which run holds it.
    pub fn take(dir: &Path, waiting: impl FnOnce(Option<u32>)) -> Result<Self, WriteError> {
        Self::take_within(dir, LOCK_WAIT, waiting)
    }

    /// [`take`](Self::take), waiting at most `wait`.
    pub fn take_within(
        dir: &Path,
        wait: std::time::Duration,
        waiting: impl FnOnce(Option<u32>),
    ) -> Result<Self, WriteError> {
        let work = work_dir(dir);
        let created: Vec<PathBuf> = work
            .ancestors()
            .take(2)
            .filter(|d| !d.exists())
            .map(Path::to_path_buf)
            .collect();
        let path = work.join("lock");
        let started = std::time::Instant::now();
        let mut waiting = Some(waiting);
        let draft = Draft::write(&work)?;
        let mut recreated = 0;
        loop {
            match draft.link_as(&path) {
                Ok(()) => {
                    drop(draft);
                    remove_dead_drafts(&work);
                    return Ok(Self { path, created });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                // The run that held it removed the folder it had created: again.
                Err(e) if e.kind() == io::ErrorKind::NotFound && recreated < 100 => {
                    recreated += 1;
                    draft.rewrite()?;
                    continue;
                }
                Err(source) => return Err(WriteError::Io { path, source }),
            }
            let holder = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok());
            let gone = match holder {
                Some(pid) => !process_alive(pid),
                // No process id in it: left by a run killed between creating the file
                // and writing it (where hard links are missing, or by an older version).
                None => std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|at| at.elapsed().ok())
                    .is_some_and(|age| age >= UNNAMED_LOCK_AGE),
            };
            if gone {
                // Its run was killed: the next pass takes it.
                let _ = std::fs::remove_file(&path);
                continue;
            }
            if started.elapsed() >= wait {
                return Err(WriteError::Busy(path));
            }
            if let Some(waiting) = waiting.take() {
                waiting(holder);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// How old a lock without a process id must be to be taken as left by a killed run.
const UNNAMED_LOCK_AGE: std::time::Duration = std::time::Duration::from_secs(5);

/// The name of the draft a run writes its process id into before linking it as the lock.
const DRAFT: &str = "lock.draft-";

/// This run's process id in a file beside the lock, written once and hard-linked as the
/// lock to take it: the lock never exists without the id (a run killed in between leaves
/// a draft, which the next run to take the lock removes). Removed when dropped.
struct Draft {
    path: PathBuf,
    pid: String,
}

impl Draft {
    /// Writes the draft in the work folder `work`, creating the folder.
    fn write(work: &Path) -> Result<Self, WriteError> {
        let pid = std::process::id().to_string();
        let draft = Self {
            path: work.join(format!("{DRAFT}{pid}")),
            pid,
        };
        draft.rewrite()?;
        Ok(draft)
    }

    /// Writes the draft again, and its folder if it is gone.
    fn rewrite(&self) -> Result<(), WriteError> {
        let work = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(work).map_err(io_error(work))?;
        std::fs::write(&self.path, &self.pid).map_err(io_error(&self.path))
    }

    /// Takes the lock `lock`, or fails with `AlreadyExists` while a run holds it (and
    /// `NotFound` when the folder went); where hard links are refused, the lock is
    /// created and then written.
    fn link_as(&self, lock: &Path) -> io::Result<()> {
        match std::fs::hard_link(&self.path, lock) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists && e.kind() != io::ErrorKind::NotFound => {
                use std::io::Write;
                let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(lock)?;
                file.write_all(self.pid.as_bytes())
            }
            linked => linked,
        }
    }
}

impl Drop for Draft {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the drafts of runs killed while taking the lock.
fn remove_dead_drafts(work: &Path) {
    let Ok(entries) = std::fs::read_dir(work) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(DRAFT))
            .and_then(|p| p.parse().ok());
        if pid.is_some_and(|pid| !process_alive(pid)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether the process `pid` runs (Linux: it has a `/proc` entry; elsewhere every
/// process is taken to run, so a lock left by a killed run is removed by hand).
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

impl Drop for InstallLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        // Deepest first; a folder with anything in it stays.
        for dir in &self.created {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_at_a_time_holds_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        let first = InstallLock::take(&skills, |_| {}).unwrap();
        let now = std::time::Duration::ZERO;
        assert!(matches!(
            InstallLock::take_within(&skills, now, |_| {}),
            Err(WriteError::Busy(_))
        ));
        drop(first);
        assert!(InstallLock::take_within(&skills, now, |_| {}).is_ok());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_lock_of_a_run_that_is_gone_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        std::fs::create_dir_all(work_dir(&skills)).unwrap();
        // A process id no process has (above the kernel's largest).
        std::fs::write(work_dir(&skills).join("lock"), "4194305").unwrap();
        let lock = InstallLock::take_within(&skills, std::time::Duration::ZERO, |_| {}).unwrap();
        let pid = std::fs::read_to_string(work_dir(&skills).join("lock")).unwrap();
        assert_eq!(pid, std::process::id().to_string());
        drop(lock);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lock_without_a_process_id_is_taken_over_once_it_is_old_and_dead_drafts_go() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join(".agents/skills");
        let work = work_dir(&skills);
        std::fs::create_dir_all(&work).unwrap();
        // As a run killed between creating the lock and writing its id into it.
        let lock = std::fs::File::create(work.join("lock")).unwrap();
        let draft = work.join(format!("{DRAFT}4194305"));
        std::fs::write(&draft, "4194305").unwrap();
        let now = std::time::Duration::ZERO;
        assert!(matches!(
            InstallLock::take_within(&skills, now, |_| {}),
            Err(WriteError::Busy(_))
        ));
        let mine = work.join(format!("{DRAFT}{}", std::process::id()));
        assert!(!mine.exists(), "a run that gave up leaves no draft");
        let old = std::time::SystemTime::now() - UNNAMED_LOCK_AGE;
        lock.set_modified(old).unwrap();
        drop(lock);
        let taken = InstallLock::take_within(&skills, now, |_| {}).unwrap();
        let pid = std::fs::read_to_string(work.join("lock")).unwrap();
        assert_eq!(pid, std::process::id().to_string());
        assert!(!draft.exists());
        assert!(!mine.exists());
        drop(taken);
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    }
}

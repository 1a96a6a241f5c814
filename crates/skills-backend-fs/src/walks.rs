//! Walks spread over threads: [`two_stage`](FilesystemBackend::two_stage) for one
//! directory tree, [`walk_many`](FilesystemBackend::walk_many) for many at once. Both
//! take directories from one [`WorkQueue`].

use std::sync::Arc;

use futures_util::future::join_all;
use skills_core::blocking::run_blocking;
use skills_core::{BackendError, FileInfo, Walk};

use crate::listing::Dir;
use crate::queue::WorkQueue;
use crate::{FilesystemBackend, Inner, MIN_PER_THREAD};

impl FilesystemBackend {
    /// Lists the directory at `path` (the first `max_depth` level), then hands its
    /// sub-directories to `visit` on up to [`parallelism`](Self::parallelism) threads,
    /// which take them, and the sub-directories `visit` finds below, from one queue; the
    /// result is sorted by path, without the first level's entries when there are at most
    /// `listed_over` of them (0: always with them).
    pub(crate) async fn two_stage(
        &self,
        path: &str,
        max_depth: usize,
        listed_over: usize,
        visit: impl Fn(&Inner, Dir, &mut Walk, &mut Vec<Dir>) + Clone + Send + Sync + 'static,
    ) -> Result<Walk, BackendError> {
        let failed = |message| BackendError::Other {
            path: path.to_owned(),
            message,
        };
        let (inner, owned) = (Arc::clone(&self.inner), path.to_owned());
        let first = move || inner.walk_first(&owned, max_depth, listed_over);
        let (mut walk, dirs) = run_blocking(first, |m| Err(failed(m))).await?;
        // Below the first level the work per directory is unknown: every thread helps
        // once there are two directories. A lookup in each directory alone is not worth
        // a thread below `MIN_PER_THREAD` directories each.
        let threads = if max_depth > 2 {
            dirs.len().min(self.inner.parallelism)
        } else {
            (dirs.len() / MIN_PER_THREAD).clamp(1, self.inner.parallelism)
        };
        let queue = Arc::new(WorkQueue::new(dirs));
        let parts = (0..threads).map(|_| {
            let (inner, queue, visit) = (Arc::clone(&self.inner), Arc::clone(&queue), visit.clone());
            let failed = |message| Walk {
                errors: vec![failed(message)],
                ..Walk::default()
            };
            run_blocking(
                move || {
                    let mut walk = Walk::default();
                    queue.work(|dir, below| visit(&inner, dir, &mut walk, below));
                    // Each thread sorts its part: what is left is merging sorted runs.
                    walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                    walk
                },
                failed,
            )
        });
        let parts = join_all(parts).await;
        walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut runs = vec![std::mem::take(&mut walk.entries)];
        for part in parts {
            runs.push(part.entries);
            walk.errors.extend(part.errors);
        }
        walk.entries = merge_sorted(runs);
        walk.errors.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(walk)
    }

    /// [`BackendProtocol::walk_each`](skills_core::BackendProtocol::walk_each): the first levels of all the walks, and every
    /// directory below them, from one queue shared by the threads.
    pub(crate) async fn walk_many(&self, paths: &[String], max_depth: usize) -> Vec<Result<Walk, BackendError>> {
        let paths: Arc<[String]> = paths.into();
        let queue = Arc::new(WorkQueue::new((0..paths.len()).map(Job::Root).collect()));
        let threads = paths.len().clamp(1, self.inner.parallelism);
        let parts = (0..threads).map(|_| {
            let (inner, queue, paths) = (Arc::clone(&self.inner), Arc::clone(&queue), Arc::clone(&paths));
            run_blocking(
                move || {
                    let mut found = Found::default();
                    queue.work(|job, below| inner.walk_job(job, &paths, max_depth, &mut found, below));
                    Some(found)
                },
                |_| None,
            )
        });
        let parts = join_all(parts).await;
        let mut walks: Vec<Result<Walk, BackendError>> = paths.iter().map(|_| Ok(Walk::default())).collect();
        for part in parts {
            let Some(found) = part else {
                let failed = |path: &String| BackendError::Other {
                    path: path.clone(),
                    message: "a thread of the walk did not finish".into(),
                };
                return paths.iter().map(|path| Err(failed(path))).collect();
            };
            for (i, error) in found.failed {
                walks[i] = Err(error);
            }
            for (i, entry) in found.entries {
                if let Ok(walk) = &mut walks[i] {
                    walk.entries.push(entry);
                }
            }
            for (i, error) in found.errors {
                if let Ok(walk) = &mut walks[i] {
                    walk.errors.push(error);
                }
            }
        }
        for walk in walks.iter_mut().flatten() {
            walk.entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            walk.errors.sort_by(|a, b| a.path().cmp(b.path()));
        }
        walks
    }
}

/// Runs of entries each sorted by path, merged into one sorted list: on the caller's
/// thread only the merge is left (a sort of the whole walk there took 8-12 ms of a
/// 9,000-skill library's discovery), and without a sort's scratch space. It merges from
/// the last path down, taking each entry from the end of its run and giving a run's
/// memory back as it empties (runs and merged list held whole at once were 12 MB of a
/// warm start's peak at 61,000 files), then turns the list around.
fn merge_sorted(mut runs: Vec<Vec<FileInfo>>) -> Vec<FileInfo> {
    let mut merged = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    // Few runs (one per thread): the largest tail is found by looking at each. Of equal
    // paths the later run's goes first, so that the earlier run's comes first in the end.
    while let Some(at) = (0..runs.len())
        .filter_map(|i| runs[i].last().map(|tail| (i, tail)))
        .max_by(|a, b| a.1.path.cmp(&b.1.path))
        .map(|(i, _)| i)
    {
        let run = &mut runs[at];
        merged.extend(run.pop());
        if run.len() < run.capacity() / 2 {
            run.shrink_to_fit();
        }
    }
    merged.reverse();
    merged
}

/// One step of [`walk_each`](skills_core::BackendProtocol::walk_each): the first level of the walk of
/// one path (by its index), or a directory below it.
enum Job {
    Root(usize),
    Dir(usize, Dir),
}

/// What one thread of [`walk_each`](skills_core::BackendProtocol::walk_each) found, by path index.
#[derive(Default)]
struct Found {
    entries: Vec<(usize, FileInfo)>,
    errors: Vec<(usize, BackendError)>,
    /// Paths whose walk failed as a whole.
    failed: Vec<(usize, BackendError)>,
}

impl Inner {
    fn walk_job(&self, job: Job, paths: &[String], max_depth: usize, found: &mut Found, below: &mut Vec<Job>) {
        let (i, walk, dirs) = match job {
            Job::Root(i) => match self.walk_first(&paths[i], max_depth, 0) {
                Ok((walk, dirs)) => (i, walk, dirs),
                Err(error) => {
                    found.failed.push((i, error));
                    return;
                }
            },
            Job::Dir(i, dir) => {
                let (mut walk, mut dirs) = (Walk::default(), Vec::new());
                self.walk_dir(dir, max_depth, &mut walk, &mut dirs);
                (i, walk, dirs)
            }
        };
        found.entries.extend(walk.entries.into_iter().map(|e| (i, e)));
        found.errors.extend(walk.errors.into_iter().map(|e| (i, e)));
        below.extend(dirs.into_iter().map(|d| Job::Dir(i, d)));
    }
}

#[cfg(test)]
mod tests {
    use skills_core::FileInfo;

    #[test]
    fn sorted_runs_merge_into_one_sorted_list() {
        let run = |paths: &[&str]| paths.iter().map(|p| FileInfo::directory(*p)).collect::<Vec<_>>();
        let merged = super::merge_sorted(vec![
            run(&["/s/b", "/s/d/SKILL.md", "/s/f"]),
            run(&[]),
            run(&["/s/a", "/s/c", "/s/d/A", "/s/g"]),
            run(&["/s/e"]),
        ]);
        let paths: Vec<&str> = merged.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/s/a",
                "/s/b",
                "/s/c",
                "/s/d/A",
                "/s/d/SKILL.md",
                "/s/e",
                "/s/f",
                "/s/g"
            ]
        );
        assert!(super::merge_sorted(vec![run(&[]), run(&[])]).is_empty());
    }

    #[test]
    fn equal_paths_keep_the_order_of_their_runs() {
        let entry = |path: &str, size: u64| FileInfo {
            size,
            ..FileInfo::directory(path)
        };
        let merged = super::merge_sorted(vec![
            vec![entry("/s/a", 1), entry("/s/b", 1)],
            vec![entry("/s/a", 2), entry("/s/b", 2), entry("/s/b", 3)],
        ]);
        let got: Vec<(&str, u64)> = merged.iter().map(|e| (e.path.as_str(), e.size)).collect();
        assert_eq!(got, [("/s/a", 1), ("/s/a", 2), ("/s/b", 1), ("/s/b", 2), ("/s/b", 3)]);
    }
}

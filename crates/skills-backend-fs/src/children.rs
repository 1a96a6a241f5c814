//! The walk discovery asks of a local source at every start: the `SKILL.md` of each child
//! folder ([`child_files_only`](skills_core::BackendProtocol::child_files_only)) when the
//! source's own entries are not wanted. It is asked straight from the directory's names,
//! without the general walk's entry per child folder (a backend path, a host path and a
//! directory entry each, sorted and then dropped): each child folder costs one `stat`
//! relative to the source folder held open, and its file's entry, made in path order.
//! Children are handed out in blocks, so a thread held up by other work leaves its share
//! to the others.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::join_all;
use skills_core::blocking::run_blocking;
use skills_core::{BackendError, FileInfo, ReadAheadFile, Walk};

use crate::at::{Kind, SourceDir};
use crate::early::{Early, found_at};
use crate::names::Names;
use crate::read_ahead::ReadAheadRoom;
use crate::resolve::map_io_error;
use crate::{FilesystemBackend, Inner, MIN_PER_THREAD};

/// One child whose file is asked for.
enum Ask {
    /// A sub-directory, by its position among the names.
    Dir(usize),
    /// A link to a directory within the root: its backend path and its target.
    Followed(String, PathBuf),
}

/// A source folder's children, read and put in the order of their files' paths.
struct Children {
    /// The folder's backend path and its path on the host.
    dir_path: String,
    host: PathBuf,
    names: Names,
    asks: Vec<Ask>,
    left_out: Vec<String>,
    /// What was found early ([`Early`]) by place among the names as the directory gave
    /// them.
    early: Vec<(u32, crate::at::Looked)>,
    /// The files the helper read, beside its looks (each taken by the walk).
    early_read: Vec<Mutex<Option<ReadAheadFile>>>,
    /// Room for the parses of a walk that reads its files.
    room: Option<Arc<ReadAheadRoom>>,
}

impl FilesystemBackend {
    /// `child_files_only(path, file_name, listed_over)` answered from the folder's names,
    /// or `None` when it must be answered by the general walk: the folder's entries are
    /// wanted (more than `listed_over` of them), or it cannot be held open. With `read`,
    /// each child's file is read and parsed as it is found (`child_files_read`): those
    /// parses, by path, come with the walk.
    pub(crate) async fn files_of_children_only(
        &self,
        path: &str,
        file_name: &str,
        listed_over: usize,
        read: bool,
    ) -> Option<Result<(Walk, Vec<ReadAheadFile>), BackendError>> {
        let failed = |message| BackendError::Other {
            path: path.to_owned(),
            message,
        };
        let (inner, owned) = (Arc::clone(&self.inner), path.to_owned());
        let file = file_name.to_owned();
        let listed = run_blocking(
            move || inner.children(&owned, &file, listed_over, read),
            |m| Err(failed(m)),
        )
        .await;
        let (mut children, source) = match listed {
            Ok(Some(read)) => read,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        let mut walk = Walk {
            left_out: std::mem::take(&mut children.left_out),
            ..Walk::default()
        };
        let children = Arc::new(children);
        let blocks = children.asks.len().div_ceil(MIN_PER_THREAD);
        let threads = (children.asks.len() / MIN_PER_THREAD).clamp(1, self.inner.parallelism);
        let next = Arc::new(AtomicUsize::new(0));
        let parts = (0..threads).map(|_| {
            let (inner, children, source, next) = (
                Arc::clone(&self.inner),
                Arc::clone(&children),
                Arc::clone(&source),
                Arc::clone(&next),
            );
            let file_name = file_name.to_owned();
            run_blocking(
                move || {
                    let mut done = Vec::new();
                    let mut errors = Vec::new();
                    let (mut rel, mut dir_path) = (String::new(), String::new());
                    // Room for each file read, kept from file to file.
                    let mut content = Vec::new();
                    loop {
                        let block = next.fetch_add(1, Ordering::Relaxed);
                        let Some(asks) = children.asks.chunks(MIN_PER_THREAD).nth(block) else {
                            break;
                        };
                        let mut walk = Walk {
                            entries: Vec::with_capacity(asks.len()),
                            ..Walk::default()
                        };
                        let mut parsed = Vec::new();
                        for ask in asks {
                            inner.ask_child(
                                &children,
                                &source,
                                ask,
                                &file_name,
                                (&mut rel, &mut dir_path),
                                &mut walk,
                                read.then_some((&mut parsed, &mut content)),
                            );
                        }
                        errors.append(&mut walk.errors);
                        done.push((block, walk.entries, parsed));
                    }
                    Ok((done, errors))
                },
                |m| Err(failed(m)),
            )
        });
        let mut found: Vec<Option<Vec<FileInfo>>> = (0..blocks).map(|_| None).collect();
        let mut read: Vec<Vec<ReadAheadFile>> = (0..blocks).map(|_| Vec::new()).collect();
        for part in join_all(parts).await {
            let (done, errors) = match part {
                Ok(part) => part,
                Err(e) => return Some(Err(e)),
            };
            for (block, entries, parsed) in done {
                found[block] = Some(entries);
                read[block] = parsed;
            }
            walk.errors.extend(errors);
        }
        walk.entries = Vec::with_capacity(found.iter().flatten().map(Vec::len).sum());
        skills_core::pages::prefault(walk.entries.spare_capacity_mut());
        for entries in found.into_iter().flatten() {
            walk.entries.extend(entries);
        }
        // Made in path order (each child's file sorts where `<name>/` does); checked, as a
        // walk's entries are sorted whatever its parts say.
        if !walk.entries.is_sorted_by(|a, b| a.path <= b.path) {
            walk.entries.sort_by(|a, b| a.path.cmp(&b.path));
        }
        walk.errors.sort_by(|a, b| a.path().cmp(b.path()));
        // In path order too, as the entries are.
        Some(Ok((walk, read.into_iter().flatten().collect())))
    }
}

impl Inner {
    /// The folder at `asked` held open and its children to ask, in the order of their
    /// files' paths; `None` when it has more than `listed_over` names (its entries are
    /// then wanted) or cannot be held open. A walk that will `read` its files looks
    /// the files up early as it would itself: it reads them.
    fn children(
        &self,
        asked: &str,
        file_name: &str,
        listed_over: usize,
        read: bool,
    ) -> Result<Option<(Children, Arc<SourceDir>)>, BackendError> {
        let (dir_path, host) = self.resolve_dir(asked)?;
        let Some(source) = SourceDir::open(&host) else {
            return Ok(None);
        };
        let source = Arc::new(source);
        // The other cores look up the child folders' files while the names are read.
        let room = read.then(|| Arc::new(ReadAheadRoom::new(self.read_ahead_bytes, self.max_file_size)));
        let read = room.as_ref().map(|room| (dir_path.clone(), Arc::clone(room)));
        let mut early = (self.parallelism > 1)
            .then(|| Early::start(&source, file_name, read))
            .flatten();
        let mut left_out = Vec::new();
        let names = Names::read_seeing(
            &host,
            &dir_path,
            |_| true,
            &mut left_out,
            |at, name, kind| {
                if let (Some(early), Kind::Dir) = (&mut early, kind) {
                    early.hand(at, name);
                }
            },
        );
        let names = match names {
            Ok(names) => names,
            // Dropped, the helper stops.
            Err(e) => return Err(map_io_error(e, &dir_path)),
        };
        if names.iter().len() > listed_over {
            return Ok(None);
        }
        let mut asks = Vec::with_capacity(names.iter().len());
        skills_core::pages::prefault(asks.spare_capacity_mut());
        for (i, (name, kind)) in names.iter().enumerate() {
            let kind = match kind {
                Kind::Unknown => match names.stat(name, &host.join(name)) {
                    Some(stated) => stated.kind,
                    None => continue,
                },
                kind => kind,
            };
            match kind {
                Kind::Dir => asks.push(Ask::Dir(i)),
                Kind::Link => {
                    let path = skills_core::path::join(&dir_path, name);
                    if let Some(entry) = self.followed(host.join(name), path, &mut left_out) {
                        let (path, target, is_dir) = entry.into_parts();
                        if is_dir {
                            asks.push(Ask::Followed(path, target));
                        }
                    }
                }
                Kind::Other => left_out.push(format!(
                    "{}: not a regular file",
                    skills_core::path::join(&dir_path, name)
                )),
                Kind::File | Kind::Unknown => {}
            }
        }
        // Each child's file is `<name>/<file>`: in the order of `<name>/`, as `a-b/` sorts
        // before `a/`.
        asks.sort_by(|a, b| a.slashed(&names).cmp(b.slashed(&names)));
        let found = early.map(|early| self.early_found(early)).unwrap_or_default();
        let (early, early_read) = found
            .into_iter()
            .map(|(at, looked, read)| ((at, looked), Mutex::new(read)))
            .unzip();
        let children = Children {
            dir_path,
            host,
            names,
            asks,
            left_out,
            early,
            early_read,
            room,
        };
        Ok(Some((children, source)))
    }

    /// What the helper looking up the children early found ([`Early::finish`]; a test
    /// can ask it to look up every child first).
    fn early_found(&self, early: Early) -> Vec<crate::early::EarlyFound> {
        #[cfg(test)]
        if self.early_waits {
            return early.finish_all();
        }
        early.finish()
    }

    /// Adds the file `file_name` (or its lowercase form) of the child `ask` to `walk`;
    /// with `read`, a file opened to be looked at is read and parsed too, its parse
    /// added to `read` ([`SourceDir::look_and_read`]).
    #[allow(clippy::too_many_arguments)] // The walk's state, kept from child to child.
    fn ask_child(
        &self,
        children: &Children,
        source: &SourceDir,
        ask: &Ask,
        file_name: &str,
        (rel, dir_path): (&mut String, &mut String),
        walk: &mut Walk,
        mut read: Option<(&mut Vec<ReadAheadFile>, &mut Vec<u8>)>,
    ) {
        match ask {
            Ask::Dir(i) => {
                // Never an empty name: `/<file>` would be asked of the host's root.
                let Some(name) = children.names.name(*i) else { return };
                // `path::join(dir_path, name)`, in room kept from child to child.
                dir_path.clear();
                dir_path.push_str(children.dir_path.trim_end_matches('/'));
                dir_path.push('/');
                dir_path.push_str(name);
                // Looked up early, if the helper got to it (`SKILL.md` only; its
                // lowercase form, asked when it is not there, is looked up now).
                let early = children.names.at(*i).and_then(|at| found_at(&children.early, at));
                self.skill_file_of(file_name, walk, |file, walk| {
                    let looked = match (early.filter(|_| file == file_name), read.as_mut()) {
                        (Some(at), read) => {
                            // What the helper read, in this walk's order.
                            let taken = children.early_read.get(at).and_then(|r| r.lock().ok()?.take());
                            if let (Some(read), Some(parsed)) = (read, taken) {
                                read.0.push(parsed);
                            }
                            children
                                .early
                                .get(at)
                                .map_or(crate::at::Looked::Usual, |(_, looked)| *looked)
                        }
                        (None, None) => source.look(name, file, rel),
                        (None, Some((read, content))) => match &children.room {
                            Some(room) => {
                                let (looked, parsed) =
                                    source.look_reading((name, file), dir_path, (rel, content), room);
                                read.extend(parsed);
                                looked
                            }
                            None => source.look(name, file, rel),
                        },
                    };
                    match looked.record(dir_path, file, walk) {
                        Some(found) => found,
                        None => self.one_child_file(dir_path, &children.host.join(name), file, walk),
                    }
                });
            }
            Ask::Followed(dir_path, target) => {
                self.child_file(Some(source), dir_path, target, file_name, walk);
            }
        }
    }
}

impl Ask {
    /// The child's name in its folder.
    fn name<'a>(&'a self, names: &'a Names) -> &'a str {
        match self {
            Ask::Dir(i) => names.name(*i).unwrap_or_default(),
            Ask::Followed(path, _) => skills_core::path::file_name(path),
        }
    }

    /// The bytes of its name with a slash after it.
    fn slashed<'a>(&'a self, names: &'a Names) -> impl Iterator<Item = u8> + 'a {
        self.name(names).bytes().chain(std::iter::once(b'/'))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly.

    use skills_core::BackendProtocol;

    use crate::FilesystemBackend;

    /// The walk by name answers within the limit (and only there), and says what the
    /// general walk says: the integration tests compare the two through
    /// `child_files_only`, which would pass as well if the general walk answered both.
    #[tokio::test]
    async fn within_the_limit_the_children_are_asked_by_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "a-b", "b", "no-skill"] {
            std::fs::create_dir_all(dir.path().join("src").join(name)).unwrap();
        }
        for name in ["a", "a-b", "b"] {
            std::fs::write(dir.path().join("src").join(name).join("SKILL.md"), "x").unwrap();
        }
        std::os::unix::fs::symlink("a", dir.path().join("src/a-link")).unwrap();
        let backend = FilesystemBackend::new(dir.path()).unwrap();
        let by_name = backend.files_of_children_only("/src", "SKILL.md", 100, false).await;
        let (by_name, _) = by_name.expect("answered by name").unwrap();
        let paths: Vec<&str> = by_name.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/src/a-b/SKILL.md",
                "/src/a-link/SKILL.md",
                "/src/a/SKILL.md",
                "/src/b/SKILL.md"
            ]
        );
        // Over 0 entries the general walk answers, with the folder's own entries.
        let mut general = backend.child_files_only("/src", "SKILL.md", 0).await.unwrap();
        general.entries.retain(|e| skills_core::path::parent(&e.path) != "/src");
        let etags = |w: &skills_core::Walk| {
            w.entries
                .iter()
                .map(|e| (e.path.clone(), e.etag.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(etags(&by_name), etags(&general));
        // Over the limit the folder's own entries are wanted: the general walk answers.
        assert!(
            backend
                .files_of_children_only("/src", "SKILL.md", 4, false)
                .await
                .is_none()
        );
    }

    /// Children looked up early, while the folder's names were read, give the walk
    /// what it finds looking them up itself: each child's own file (every one has its
    /// own size, so an answer given to the wrong child shows in its etag), in path
    /// order, with the lowercase form, a missing file, a folder named `SKILL.md` and
    /// links to a file or a folder each as the usual lookup says; a walk that reads its
    /// files reads the same ones whether the helper or the walk opened them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn children_looked_up_early_are_what_the_walk_finds_itself() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        // Made out of order, so the directory's order is not the names' order.
        let mut names: Vec<String> = (0..300).map(|i| format!("skill-{}", (i * 7919) % 300)).collect();
        names.extend(["a", "a-b", "a.b", "lower", "empty", "folder", "linked-file"].map(String::from));
        for (i, name) in names.iter().enumerate() {
            let child = src.join(name);
            std::fs::create_dir_all(&child).unwrap();
            match name.as_str() {
                "lower" => std::fs::write(child.join("skill.md"), "lower").unwrap(),
                "empty" => {}
                "folder" => std::fs::create_dir(child.join("SKILL.md")).unwrap(),
                "linked-file" => std::os::unix::fs::symlink("../a/SKILL.md", child.join("SKILL.md")).unwrap(),
                _ => std::fs::write(child.join("SKILL.md"), "x".repeat(i + 1)).unwrap(),
            }
        }
        std::os::unix::fs::symlink("a", src.join("a-link")).unwrap();
        for read in [false, true] {
            let waiting = FilesystemBackend::new(dir.path())
                .unwrap()
                .with_inner(|inner| inner.early_waits = true);
            let (children, _) = waiting
                .inner
                .children("/src", "SKILL.md", usize::MAX, read)
                .unwrap()
                .unwrap();
            assert_eq!(children.early.len(), names.len(), "every child folder looked up early");
            let (early, early_read) = waiting
                .files_of_children_only("/src", "SKILL.md", usize::MAX, read)
                .await
                .unwrap()
                .unwrap();
            let alone = FilesystemBackend::new(dir.path()).unwrap().with_parallelism(1);
            let (children, _) = alone
                .inner
                .children("/src", "SKILL.md", usize::MAX, read)
                .unwrap()
                .unwrap();
            assert!(children.early.is_empty(), "one thread: nothing looked up early");
            let (looked_up_late, read_late) = alone
                .files_of_children_only("/src", "SKILL.md", usize::MAX, read)
                .await
                .unwrap()
                .unwrap();
            let read_paths =
                |files: &[skills_core::ReadAheadFile]| files.iter().map(|f| f.path().to_owned()).collect::<Vec<_>>();
            assert_eq!(read_paths(&early_read), read_paths(&read_late));
            // Every plain file (not the folder, the link, or the linked folder's), in path order.
            assert_eq!(early_read.len(), if read { 304 } else { 0 });
            assert!(read_paths(&early_read).is_sorted());
            assert_same_walk(&early, &looked_up_late, names.len());
        }
    }

    /// `early` and `looked_up_late` say the same of each child, in path order, and hold
    /// what the fixture of `children_looked_up_early_are_what_the_walk_finds_itself` holds.
    fn assert_same_walk(early: &skills_core::Walk, looked_up_late: &skills_core::Walk, children: usize) {
        let entries = |w: &skills_core::Walk| {
            w.entries
                .iter()
                .map(|e| (e.path.clone(), e.etag.clone(), e.is_dir))
                .collect::<Vec<_>>()
        };
        assert_eq!(entries(early), entries(looked_up_late));
        let paths: Vec<&str> = early.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            &paths[..5],
            [
                "/src/a-b/SKILL.md",
                "/src/a-link/SKILL.md",
                "/src/a.b/SKILL.md",
                "/src/a/SKILL.md",
                "/src/folder/SKILL.md"
            ]
        );
        assert!(paths.contains(&"/src/lower/skill.md") && paths.contains(&"/src/linked-file/SKILL.md"));
        assert!(!paths.iter().any(|p| p.starts_with("/src/empty/")));
        assert_eq!(paths.len(), children, "every child but the empty one, and the link");
        let sizes: Vec<u64> = early
            .entries
            .iter()
            .filter(|e| e.path.contains("/skill-"))
            .map(|e| e.size)
            .collect();
        let mut distinct = sizes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 300);
    }
}

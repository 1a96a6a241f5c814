//! Test infrastructure (feature `test-support`): repositories built with git2 in temp
//! directories, and a real `git daemon` on 127.0.0.1.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use git2::{Oid, Repository, Signature};

/// A bare repository whose commits are built from an in-memory file map: edit the map
/// with [`write`](Self::write) / [`remove`](Self::remove), then [`commit`](Self::commit)
/// it onto a branch.
#[derive(Debug)]
pub struct TestRepo {
    dir: tempfile::TempDir,
    files: BTreeMap<String, Vec<u8>>,
    /// Paths of `files` committed as symbolic links (their content is the target).
    links: BTreeSet<String>,
}

impl TestRepo {
    /// An empty bare repository (`<tmp>/repo.git`) whose `HEAD` names `main`.
    ///
    /// # Panics
    /// On I/O or git errors, as tests want.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let repo = Repository::init_bare(dir.path().join("repo.git")).expect("a bare repository");
        repo.set_head("refs/heads/main").expect("HEAD -> main");
        Self {
            dir,
            files: BTreeMap::new(),
            links: BTreeSet::new(),
        }
    }

    /// The repository's directory.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("repo.git")
    }

    /// The directory holding the repository (what `git daemon --base-path` serves).
    pub fn base(&self) -> &Path {
        self.dir.path()
    }

    /// The repository, opened.
    ///
    /// # Panics
    /// When it cannot be opened.
    pub fn repo(&self) -> Repository {
        Repository::open_bare(self.path()).expect("the test repository")
    }

    /// Sets a file of the next commit.
    pub fn write(&mut self, path: &str, content: impl Into<Vec<u8>>) -> &mut Self {
        self.files
            .insert(path.trim_start_matches('/').to_owned(), content.into());
        self
    }

    /// Sets a symbolic link of the next commit (mode `120000`, pointing at `target`).
    pub fn link(&mut self, path: &str, target: &str) -> &mut Self {
        let path = path.trim_start_matches('/').to_owned();
        self.links.insert(path.clone());
        self.files.insert(path, target.as_bytes().to_vec());
        self
    }

    /// Removes a file, or every file under a directory, from the next commit.
    pub fn remove(&mut self, path: &str) -> &mut Self {
        let path = path.trim_matches('/');
        let dir = format!("{path}/");
        self.files.retain(|p, _| p != path && !p.starts_with(&dir));
        self.links.retain(|p| p != path && !p.starts_with(&dir));
        self
    }

    /// Commits the file map onto `branch` (its tip is the parent, if any); returns the id.
    ///
    /// # Panics
    /// On git errors.
    pub fn commit(&self, branch: &str, message: &str) -> Oid {
        let repo = self.repo();
        let tree = build_tree(&repo, &self.files, &self.links, "");
        let tree = repo.find_tree(tree).expect("the tree just written");
        let refname = format!("refs/heads/{branch}");
        let parent = repo.find_reference(&refname).and_then(|r| r.peel_to_commit()).ok();
        let parents: Vec<_> = parent.iter().collect();
        let me = Signature::now("Skills Test", "test@example.com").expect("a signature");
        repo.commit(Some(&refname), &me, &me, message, &tree, &parents)
            .expect("a commit")
    }

    /// Packs every object reachable from `branch` into one pack file and deletes the
    /// loose objects, as `git gc` leaves a repository (and as a clone is).
    ///
    /// # Panics
    /// On git or I/O errors.
    pub fn pack(&self, branch: &str) {
        let repo = self.repo();
        let tip = repo
            .find_reference(&format!("refs/heads/{branch}"))
            .and_then(|r| r.peel_to_commit())
            .expect("the branch to pack");
        let mut walk = repo.revwalk().expect("a revwalk");
        walk.push(tip.id()).expect("the tip");
        let mut builder = repo.packbuilder().expect("a pack builder");
        builder.insert_walk(&mut walk).expect("the history");
        let objects = self.path().join("objects");
        builder.write(&objects.join("pack"), 0).expect("the pack");
        for entry in std::fs::read_dir(&objects).expect("the object directory") {
            let path = entry.expect("an entry").path();
            let loose = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.len() == 2 && n.chars().all(|c| c.is_ascii_hexdigit()));
            if loose {
                std::fs::remove_dir_all(&path).expect("loose objects removed");
            }
        }
    }

    /// Commits the file map as a root commit (no parent), replacing `branch`: a
    /// force-push of an unrelated history.
    ///
    /// # Panics
    /// On git errors.
    pub fn commit_unrelated(&self, branch: &str, message: &str) -> Oid {
        let repo = self.repo();
        let tree = build_tree(&repo, &self.files, &self.links, "");
        let tree = repo.find_tree(tree).expect("the tree just written");
        let me = Signature::now("Skills Test", "test@example.com").expect("a signature");
        let id = repo.commit(None, &me, &me, message, &tree, &[]).expect("a commit");
        repo.reference(&format!("refs/heads/{branch}"), id, true, "force")
            .expect("the branch moved");
        id
    }

    /// Creates (or moves) a lightweight tag.
    ///
    /// # Panics
    /// On git errors.
    pub fn tag(&self, name: &str, commit: Oid) {
        self.repo()
            .reference(&format!("refs/tags/{name}"), commit, true, "tag")
            .expect("a tag");
    }

    /// Deletes a branch.
    ///
    /// # Panics
    /// When it does not exist.
    pub fn delete_branch(&self, branch: &str) {
        self.repo()
            .find_reference(&format!("refs/heads/{branch}"))
            .and_then(|mut r| r.delete())
            .expect("the branch deleted");
    }
}

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes the tree of the files under `prefix`, recursively; returns its id.
fn build_tree(repo: &Repository, files: &BTreeMap<String, Vec<u8>>, links: &BTreeSet<String>, prefix: &str) -> Oid {
    let mut builder = repo.treebuilder(None).expect("a tree builder");
    let mut subdirs = Vec::new();
    for (path, content) in files
        .range(prefix.to_owned()..)
        .take_while(|(p, _)| p.starts_with(prefix))
    {
        let rest = &path[prefix.len()..];
        match rest.split_once('/') {
            None => {
                let blob = repo.blob(content).expect("a blob");
                let mode = if links.contains(path) { 0o120000 } else { 0o100644 };
                builder.insert(rest, blob, mode).expect("a tree entry");
            }
            Some((dir, _)) if subdirs.last() != Some(&dir) => subdirs.push(dir),
            Some(_) => {}
        }
    }
    for dir in subdirs {
        let id = build_tree(repo, files, links, &format!("{prefix}{dir}/"));
        builder.insert(dir, id, 0o040000).expect("a tree entry");
    }
    builder.write().expect("a tree")
}

/// `git daemon` serving a directory read-only on a free 127.0.0.1 port; stopped when
/// dropped.
#[derive(Debug)]
pub struct GitDaemon {
    port: u16,
    base: PathBuf,
    child: Option<Child>,
}

impl GitDaemon {
    /// Serves every repository under `base` and waits until the port answers.
    ///
    /// # Panics
    /// When `git daemon` does not start.
    pub fn start(base: &Path) -> Self {
        let mut last = String::new();
        for _ in 0..3 {
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let mut daemon = Self {
                port,
                base: base.to_path_buf(),
                child: None,
            };
            match daemon.spawn() {
                Ok(()) => return daemon,
                Err(error) => last = error,
            }
        }
        panic!("cannot start git daemon: {last}");
    }

    /// `git://127.0.0.1:PORT/<name>`.
    pub fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}", self.port)
    }

    /// Stops the daemon (the remote becomes unreachable).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port.
    ///
    /// # Panics
    /// When it does not come back.
    pub fn restart(&mut self) {
        self.stop();
        let deadline = Instant::now() + Duration::from_secs(20);
        while let Err(error) = self.spawn() {
            assert!(Instant::now() < deadline, "cannot restart git daemon: {error}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn spawn(&mut self) -> Result<(), String> {
        // `git daemon` would run `git-daemon` as a child of its own, which killing `git`
        // leaves running: start the program itself.
        let exec_path = Command::new("git")
            .arg("--exec-path")
            .output()
            .map_err(|e| format!("git --exec-path: {e}"))?;
        let exec_path = String::from_utf8_lossy(&exec_path.stdout).trim().to_owned();
        let mut child = Command::new(Path::new(&exec_path).join("git-daemon"))
            .arg("--reuseaddr")
            .arg("--listen=127.0.0.1")
            .arg(format!("--port={}", self.port))
            .arg(format!("--base-path={}", self.base.display()))
            .arg("--export-all")
            .arg("--informative-errors")
            .arg(&self.base)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("git daemon: {e}"))?;
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited with {status}"));
            }
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                self.child = Some(child);
                return Ok(());
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err("not listening after 20 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        self.stop();
    }
}

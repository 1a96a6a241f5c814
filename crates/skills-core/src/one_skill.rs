//! [`OneSkill`]: a skill folder read as a source that holds that one skill.
//!
//! A source is a folder of skill folders; a repository that is one skill (its `SKILL.md`
//! at its root) or a sub-folder that is one (`skills/pdf` of a collection) is not. The
//! adapter shows such a folder as a source whose only child is the skill folder, named
//! as the skill names itself, so discovery, loading, caches, locks and installs read it
//! as they read any source.

use std::sync::Arc;

use async_trait::async_trait;

use crate::backend::{BackendProtocol, Walk};
use crate::error::BackendError;
use crate::file::{FileDownloadResponse, FileErrorKind, FileInfo};
use crate::watch::{ChangeEvent, ChangeSink, Watch, WatchGuard};
use crate::{SKILL_FILE, path};

/// The skill folder `folder` of a backend, shown as a source that holds it alone.
///
/// - A folder below the backend's root (a local folder, whose paths are the disk's) is
///   shown where it is: the source is read at its parent folder, and nothing of that
///   parent but the skill folder is served (the inner backend is never asked for it).
/// - The backend's root itself (a repository that is one skill, a bucket prefix) is
///   shown as `/<name>`: `<name>` is the `name` its `SKILL.md` declares when that is a
///   valid skill name, else the name given when it was made (the repository's name),
///   read on first use.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use skills_core::{BackendProtocol, MemoryBackend, OneSkill};
/// let repo = MemoryBackend::new();
/// repo.insert("/SKILL.md", "---\nname: pdf\ndescription: Read PDFs.\n---\n").unwrap();
/// repo.insert("/scripts/fill.py", "print()").unwrap();
/// let source = OneSkill::new(Arc::new(repo), "/", "pdf-skill");
/// assert_eq!(source.root(), "/");
/// let top: Vec<String> = source.ls_info("/").await.unwrap().into_iter().map(|e| e.path).collect();
/// assert_eq!(top, ["/pdf"]);
/// let inside: Vec<String> = source.ls_info("/pdf").await.unwrap().into_iter().map(|e| e.path).collect();
/// assert_eq!(inside, ["/pdf/SKILL.md", "/pdf/scripts"]);
/// # });
/// ```
#[derive(Debug)]
pub struct OneSkill {
    inner: Arc<dyn BackendProtocol>,
    /// The path the source is read at.
    root: String,
    /// The skill folder, as the inner backend names it.
    folder: String,
    fallback: String,
    /// The skill folder, as this backend shows it.
    shown: tokio::sync::OnceCell<String>,
}

impl OneSkill {
    /// The skill folder `folder` of `inner`; at the backend's root, named `fallback`
    /// unless its `SKILL.md` declares a valid name. A `folder` that is not a valid path
    /// is read as `/`.
    pub fn new(inner: Arc<dyn BackendProtocol>, folder: &str, fallback: impl Into<String>) -> Self {
        let folder = path::normalize(folder).unwrap_or_else(|_| "/".to_owned());
        let (root, shown) = if folder == "/" {
            (folder.clone(), None)
        } else {
            (path::parent(&folder).to_owned(), Some(folder.clone()))
        };
        Self {
            inner,
            root,
            folder,
            fallback: fallback.into(),
            shown: tokio::sync::OnceCell::new_with(shown),
        }
    }

    /// The path the source is read at: the skill folder's parent, or `/`.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The skill folder's path as this backend shows it.
    pub async fn skill_dir(&self) -> &str {
        self.shown
            .get_or_init(|| async { path::join(&self.root, &self.declared_name().await) })
            .await
    }

    /// The name its `SKILL.md` declares, when valid; else the fallback made a name.
    async fn declared_name(&self) -> String {
        let fallback = || plain_name(&self.fallback);
        for file in [SKILL_FILE, crate::LOWERCASE_SKILL_FILE] {
            let at = path::join(&self.folder, file);
            let Some(answer) = self.inner.download_files(std::slice::from_ref(&at)).await.pop() else {
                continue;
            };
            let Some(content) = answer.content.as_deref() else {
                continue;
            };
            let declared = crate::parse_skill_file(&at, content).skill.map(|skill| skill.name);
            return declared
                .filter(|name| crate::validate_skill_name(name, name).is_ok())
                .unwrap_or_else(fallback);
        }
        fallback()
    }

    /// The inner path `path` stands for: `None` for the root (the made-up folder that
    /// holds the skill), an error for anything else outside the skill folder.
    async fn inner_path(&self, path: &str) -> Result<Option<String>, BackendError> {
        let path = path::normalize(path)?;
        if path == self.root {
            return Ok(None);
        }
        let dir = self.skill_dir().await;
        match path.strip_prefix(dir) {
            Some("") => Ok(Some(self.folder.clone())),
            Some(rest) if rest.starts_with('/') && !is_repository_data(rest) => {
                Ok(Some(path::join(&self.folder, rest)))
            }
            _ => Err(BackendError::NotFound { path }),
        }
    }

    /// The path an inner path is shown as.
    fn outer_path(&self, dir: &str, inner: &str) -> String {
        match inner.strip_prefix(self.folder.as_str()) {
            Some("") => dir.to_owned(),
            Some(rest) if rest.starts_with('/') || self.folder == "/" => path::join(dir, rest),
            _ => inner.to_owned(),
        }
    }

    /// `walk` with its paths shown as this backend shows them.
    fn outer_walk(&self, dir: &str, mut walk: Walk) -> Walk {
        walk.entries = self.outer_entries(dir, walk.entries);
        walk
    }

    /// Entries of the inner backend as this backend shows them, without the folder's
    /// repository data.
    fn outer_entries(&self, dir: &str, mut entries: Vec<FileInfo>) -> Vec<FileInfo> {
        entries.retain_mut(|entry| {
            entry.path = self.outer_path(dir, &entry.path);
            entry
                .path
                .strip_prefix(dir)
                .is_none_or(|rest| !is_repository_data(rest))
        });
        entries
    }

    /// The made-up folder's entry.
    fn dir_entry(dir: String) -> FileInfo {
        FileInfo {
            path: dir,
            is_dir: true,
            size: 0,
            modified_at: None,
            etag: None,
            changed_at: None,
        }
    }
}

/// Whether `rest` (a path below the skill folder, from its `/`) lies in the `.git`
/// folder of a working tree that is the skill: what the repository keeps about itself is
/// no file of the skill (a skill kept in a repository has none).
fn is_repository_data(rest: &str) -> bool {
    rest == "/.git" || rest.starts_with("/.git/")
}

/// `text` made into a skill name (lowercase letters, digits and hyphens), or `skill`.
fn plain_name(text: &str) -> String {
    let text = text.trim_end_matches(".git");
    let mut name = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_end_matches('-');
    if name.is_empty() {
        "skill".to_owned()
    } else {
        name.chars().take(64).collect()
    }
}

/// The inner backend's watch of the skill folder, whatever path is asked: each change it
/// reports is a rescan (the paths it names are the inner backend's, and the whole
/// source is one skill folder).
impl Watch for OneSkill {
    fn watch(&self, _path: &str, sink: ChangeSink) -> Result<WatchGuard, BackendError> {
        let Some(inner) = self.inner.as_watch() else {
            return Err(BackendError::Other {
                path: self.folder.clone(),
                message: "the backend cannot watch".into(),
            });
        };
        let rescan: ChangeSink = Arc::new(move |event| {
            let reason = match event {
                ChangeEvent::Changed(_) => "the skill folder changed".to_owned(),
                ChangeEvent::Rescan { reason } => reason,
            };
            sink(ChangeEvent::Rescan { reason });
        });
        inner.watch(&self.folder, rescan)
    }
}

#[async_trait]
impl BackendProtocol for OneSkill {
    async fn ls_info(&self, path: &str) -> Result<Vec<FileInfo>, BackendError> {
        let dir = self.skill_dir().await;
        match self.inner_path(path).await? {
            None => {
                // The root answers as the skill folder does when that cannot be read.
                self.inner.ls_info(&self.folder).await?;
                Ok(vec![Self::dir_entry(dir.to_owned())])
            }
            Some(inner) => {
                let entries = self.inner.ls_info(&inner).await?;
                Ok(self.outer_entries(dir, entries))
            }
        }
    }

    async fn download_files(&self, paths: &[String]) -> Vec<FileDownloadResponse> {
        let mut asked = Vec::with_capacity(paths.len());
        let mut answers: Vec<Option<FileDownloadResponse>> = Vec::with_capacity(paths.len());
        for path in paths {
            match self.inner_path(path).await {
                Ok(Some(inner)) => {
                    asked.push(inner);
                    answers.push(None);
                }
                Ok(None) => answers.push(Some(FileDownloadResponse::err(
                    path.clone(),
                    FileErrorKind::IsDirectory,
                    "is a directory",
                ))),
                Err(e) => answers.push(Some(FileDownloadResponse::err(
                    path.clone(),
                    FileErrorKind::FileNotFound,
                    e.to_string(),
                ))),
            }
        }
        let mut read = self.inner.download_files(&asked).await.into_iter();
        answers
            .into_iter()
            .zip(paths)
            .map(|(answer, path)| {
                let mut answer = answer.or_else(|| read.next()).unwrap_or_else(|| {
                    FileDownloadResponse::err(path.clone(), FileErrorKind::Other, "the backend gave no answer")
                });
                answer.path.clone_from(path);
                answer
            })
            .collect()
    }

    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size()
    }

    fn as_watch(&self) -> Option<&dyn Watch> {
        self.inner.as_watch().map(|_| self as &dyn Watch)
    }

    fn stale(&self) -> Option<String> {
        self.inner.stale()
    }

    fn revision(&self) -> Option<String> {
        self.inner.revision()
    }

    fn withheld(&self) -> Vec<String> {
        self.inner.withheld()
    }

    fn read_settings(&self) -> String {
        self.inner.read_settings()
    }

    async fn walk(&self, path: &str, max_depth: usize) -> Result<Walk, BackendError> {
        let dir = self.skill_dir().await;
        match self.inner_path(path).await? {
            None if max_depth == 0 => {
                self.inner.ls_info(&self.folder).await?;
                Ok(Walk::default())
            }
            None => {
                let mut walk = self.outer_walk(dir, self.inner.walk(&self.folder, max_depth - 1).await?);
                walk.entries.insert(0, Self::dir_entry(dir.to_owned()));
                Ok(walk)
            }
            Some(inner) => Ok(self.outer_walk(dir, self.inner.walk(&inner, max_depth).await?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Discovery, MemoryBackend};

    fn repo() -> MemoryBackend {
        let repo = MemoryBackend::new();
        repo.insert(
            "/SKILL.md",
            "---\nname: pdf\ndescription: Read PDFs.\n---\nRun scripts/fill.py.\n",
        )
        .unwrap();
        repo.insert("/scripts/fill.py", "print()").unwrap();
        repo
    }

    #[tokio::test]
    async fn discovery_finds_the_one_skill_under_its_declared_name() {
        let source = OneSkill::new(Arc::new(repo()), "/", "pdf-skill");
        let listing = Discovery::new(&source, "/").resources(true).run().await.unwrap();
        let names: Vec<&str> = listing.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["pdf"]);
        assert_eq!(listing.skills[0].path, "/pdf/SKILL.md");
        assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
        let read = source.download_files(&["/pdf/scripts/fill.py".to_owned()]).await;
        assert_eq!(read[0].content.as_deref(), Some(&b"print()"[..]));
        assert_eq!(read[0].path, "/pdf/scripts/fill.py");
    }

    #[tokio::test]
    async fn a_name_the_file_does_not_give_comes_from_the_folder() {
        let repo = MemoryBackend::new();
        repo.insert("/SKILL.md", "---\nname: Not A Slug\ndescription: d\n---\n")
            .unwrap();
        let source = OneSkill::new(Arc::new(repo), "/", "My_Skill.git");
        assert_eq!(source.skill_dir().await, "/my-skill");
        assert_eq!(plain_name("..."), "skill");
    }

    #[tokio::test]
    async fn nothing_outside_the_skill_folder_is_served() {
        let source = OneSkill::new(Arc::new(repo()), "/", "x");
        assert!(matches!(
            source.ls_info("/other").await,
            Err(BackendError::NotFound { .. })
        ));
        assert!(source.ls_info("/pdfx").await.is_err());
        assert!(source.ls_info("/pdf/../etc").await.is_err());
        let read = source
            .download_files(&["/SKILL.md".to_owned(), "/pdf/SKILL.md".to_owned(), "/".to_owned()])
            .await;
        assert_eq!(read.len(), 3);
        assert!(read[0].content.is_none() && read[2].content.is_none());
        assert!(read[1].content.is_some());
        let walk = source.walk("/", 3).await.unwrap();
        let paths: Vec<&str> = walk.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["/pdf", "/pdf/SKILL.md", "/pdf/scripts", "/pdf/scripts/fill.py"]);
    }

    #[tokio::test]
    async fn a_folder_below_the_root_is_shown_where_it_is_and_its_parent_is_not_served() {
        let disk = MemoryBackend::new();
        disk.insert("/home/me/pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n")
            .unwrap();
        disk.insert("/home/me/secret.txt", "no").unwrap();
        disk.insert("/home/me/pdf/.git/config", "[core]").unwrap();
        disk.insert("/home/me/pdf/.gitignore", "*.pyc").unwrap();
        disk.insert("/home/me/other/SKILL.md", "---\nname: other\ndescription: d\n---\n")
            .unwrap();
        let source = OneSkill::new(Arc::new(disk), "/home/me/pdf/", "ignored");
        assert_eq!(source.root(), "/home/me");
        let listing = Discovery::new(&source, "/home/me").run().await.unwrap();
        let paths: Vec<&str> = listing.skills.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["/home/me/pdf/SKILL.md"]);
        let read = source.download_files(&["/home/me/secret.txt".to_owned()]).await;
        assert!(read[0].content.is_none());
        let walk = source.walk("/home/me", 4).await.unwrap();
        let paths: Vec<&str> = walk.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/home/me/pdf", "/home/me/pdf/.gitignore", "/home/me/pdf/SKILL.md"]
        );
        let git = source.download_files(&["/home/me/pdf/.git/config".to_owned()]).await;
        assert!(git[0].content.is_none(), "the working tree's repository is not served");
        assert!(source.ls_info("/home/me/other").await.is_err());
        assert!(source.ls_info("/home").await.is_err());
    }

    #[tokio::test]
    async fn a_missing_folder_is_an_error_of_the_root() {
        let source = OneSkill::new(Arc::new(MemoryBackend::new()), "/gone", "gone");
        assert!(source.ls_info("/").await.is_err());
        assert!(Discovery::new(&source, "/").run().await.is_err());
    }
}

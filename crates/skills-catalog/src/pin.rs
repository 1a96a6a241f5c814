//! Pinning a catalog: the [`Lock`] of what it serves now, and freezing one on a lock.

use std::sync::Arc;

use skills_core::index::{IndexedFile, IndexedSkill, LibraryIndex};

use crate::catalog::SkillCatalog;
use crate::lock::{Drift, Lock, LockedSkill, LockedSource, files_of};
use crate::manifest::DigestCache;

impl SkillCatalog {
    /// Freezes the catalog on `lock`: a skill is served only when every file of its
    /// folder has the digest the lock holds, and the lock names it; the others are
    /// withheld with a `lock-mismatch` diagnostic naming the files, and a locked skill
    /// that is gone is reported. `load_skill` checks the `SKILL.md` it reads against the
    /// lock too, so a file changed after discovery is refused, not served. Reloads check
    /// again: a change withdraws the skill (a git source opened at the locked commit
    /// keeps serving the locked content).
    pub fn with_lock(mut self, lock: Lock) -> Self {
        self.lock = Some(Arc::new(lock));
        self
    }

    /// The lock the catalog is frozen on, if any.
    pub fn lock(&self) -> Option<&Arc<Lock>> {
        self.lock.as_ref()
    }

    /// The digests of the files the catalog read for its lock or its manifests, shared
    /// with the faces that publish manifests (an MCP server).
    pub fn digests(&self) -> &DigestCache {
        &self.digests
    }

    /// The lock of the current snapshot: every skill's files read and digested (the
    /// digests are kept for the next pin and for manifests), every source resolved. The skills whose folder cannot
    /// be read come back as [`Drift::Unreadable`] and are not locked.
    pub async fn pin(&self) -> (Lock, Vec<Drift>) {
        self.pin_where(|_| true).await
    }

    /// [`pin`](Self::pin) for the skills `names` only (every source is resolved): what a
    /// lock of installed skills needs, without reading the rest of their sources. A
    /// name the catalog does not serve is left out.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use skills_catalog::{SkillCatalog, SkillSource};
    /// use skills_core::MemoryBackend;
    ///
    /// let backend = Arc::new(MemoryBackend::new());
    /// for name in ["pdf", "web"] {
    ///     backend.insert(&format!("/s/{name}/SKILL.md"), format!("---\nname: {name}\ndescription: d\n---\n"))?;
    /// }
    /// let catalog = SkillCatalog::new(vec![SkillSource::new(backend, "/s")]);
    /// let (lock, problems) = catalog.pin_only(&["web".to_owned(), "gone".to_owned()]).await;
    /// assert!(problems.is_empty());
    /// assert_eq!(lock.skills.keys().collect::<Vec<_>>(), ["web"]);
    /// assert_eq!(lock.sources.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn pin_only(&self, names: &[String]) -> (Lock, Vec<Drift>) {
        let names: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        self.pin_where(|name| names.contains(name)).await
    }

    async fn pin_where(&self, wanted: impl Fn(&str) -> bool) -> (Lock, Vec<Drift>) {
        let snapshot = self.ensure_loaded().await;
        let digests = self.digests();
        let mut lock = Lock::default();
        let mut problems = Vec::new();
        for skill in snapshot.skills().iter().filter(|s| wanted(&s.name)) {
            let (Some(index), Some(source)) = (snapshot.source_of(&skill.name), snapshot.source_for(&skill.name))
            else {
                continue;
            };
            match digests.manifest(source.backend().as_ref(), index, skill).await {
                Ok(manifest) => {
                    let locked = LockedSkill {
                        source: source.label().to_owned(),
                        files: files_of(&manifest.files),
                    };
                    lock.skills.insert(skill.name.clone(), locked);
                }
                Err(reason) => problems.push(Drift::Unreadable {
                    skill: skill.name.clone(),
                    reason,
                }),
            }
        }
        for (priority, source) in snapshot.sources().iter().enumerate() {
            let resolved = match source.backend().revision() {
                Some(revision) => revision,
                None => lock.content_digest(source.label()),
            };
            let locked = LockedSource {
                location: source.location().to_owned(),
                resolved,
                spec: source.spec().map(str::to_owned),
                depth: source.depth(),
                priority,
            };
            lock.sources.insert(source.label().to_owned(), locked);
        }
        (lock, problems)
    }
}

impl SkillCatalog {
    /// The published index of source `source` (its position in the catalog): every
    /// skill it serves with its frontmatter and its files' digests, paths relative to
    /// the source's root; what `skills publish` writes as `skills-index.json`. The
    /// skills whose folder cannot be read come back as [`Drift::Unreadable`] and are
    /// left out.
    pub async fn library_index(&self, source: usize) -> (LibraryIndex, Vec<Drift>) {
        let snapshot = self.ensure_loaded().await;
        let Some(spec) = snapshot.sources().get(source) else {
            return (LibraryIndex::new(Vec::new()), Vec::new());
        };
        let root = spec.path().trim_end_matches('/').to_owned();
        let mut skills = Vec::new();
        let mut problems = Vec::new();
        for skill in snapshot.skills() {
            if snapshot.source_of(&skill.name) != Some(source) {
                continue;
            }
            let manifest = match self.digests().manifest(spec.backend().as_ref(), source, skill).await {
                Ok(manifest) => manifest,
                Err(reason) => {
                    problems.push(Drift::Unreadable {
                        skill: skill.name.clone(),
                        reason,
                    });
                    continue;
                }
            };
            let dir = skill
                .dir()
                .strip_prefix(&root)
                .unwrap_or(skill.dir())
                .trim_start_matches('/');
            let files = manifest
                .files
                .iter()
                .map(|f| IndexedFile {
                    path: if dir.is_empty() {
                        f.rel.clone()
                    } else {
                        format!("{dir}/{}", f.rel)
                    },
                    digest: f.digest.clone(),
                    size: f.size,
                })
                .collect();
            skills.push(IndexedSkill {
                name: skill.name.clone(),
                description: skill.description.clone(),
                frontmatter: manifest.frontmatter.as_deref().cloned().unwrap_or_default(),
                files,
            });
        }
        (LibraryIndex::new(skills), problems)
    }
}

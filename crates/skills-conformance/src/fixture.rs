//! The canonical fixture tree every backend's conformance tests store, and [`Fixture`],
//! what a backend's setup hands to the stamped tests.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use skills_core::{BackendProtocol, DEFAULT_MAX_FILE_SIZE};

pub(crate) const ALPHA_MD: &str = "---\nname: alpha\ndescription: Alpha skill for conformance tests\nlicense: MIT\nallowed-tools: Read Grep\n---\n# Alpha\n\nUse the script.\n";
pub(crate) const BETA_MD: &str = "---\nname: beta\ndescription: Beta skill\n---\n";
const GAMMA_MD: &str = "---\nname: gamma-renamed\ndescription: Its name differs from its directory\n---\n";

/// The canonical fixture tree: relative paths and contents. Every file a case reads is
/// here; the 10 MiB + 1 byte `huge/SKILL.md` exercises the size limit.
pub fn fixture() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "skills/README.md",
            b"Not a skill: a file at the source level.\n".to_vec(),
        ),
        ("skills/alpha/SKILL.md", ALPHA_MD.into()),
        ("skills/alpha/assets/logo.txt", b"ALPHA\n".to_vec()),
        ("skills/alpha/notes.md", b"Notes next to SKILL.md.\n".to_vec()),
        ("skills/alpha/references/guide.md", b"# Guide\n".to_vec()),
        ("skills/alpha/scripts/run.sh", b"#!/bin/sh\necho alpha\n".to_vec()),
        ("skills/beta/SKILL.md", BETA_MD.into()),
        ("skills/broken/SKILL.md", b"# No frontmatter here\n".to_vec()),
        ("skills/gamma/SKILL.md", GAMMA_MD.into()),
        ("skills/huge/SKILL.md", huge_skill()),
        ("skills/no-skill/README.md", b"A directory without SKILL.md.\n".to_vec()),
        // A source whose skill files are named as some folders name them.
        (
            "cased/both/SKILL.md",
            b"---\nname: both\ndescription: Upper case wins\n---\n".to_vec(),
        ),
        (
            "cased/both/skill.md",
            b"---\nname: both\ndescription: Lower case loses\n---\n".to_vec(),
        ),
        (
            "cased/lower/skill.md",
            b"---\nname: lower\ndescription: Read from skill.md\n---\n".to_vec(),
        ),
        ("other/deep/a/b/c.txt", b"deep\n".to_vec()),
        ("other/top.txt", b"top\n".to_vec()),
    ]
}

/// The relative paths of the fixture's directories.
pub(crate) const FIXTURE_DIRS: &[&str] = &[
    "cased",
    "cased/both",
    "cased/lower",
    "other",
    "other/deep",
    "other/deep/a",
    "other/deep/a/b",
    "skills",
    "skills/alpha",
    "skills/alpha/assets",
    "skills/alpha/references",
    "skills/alpha/scripts",
    "skills/beta",
    "skills/broken",
    "skills/gamma",
    "skills/huge",
    "skills/no-skill",
];

fn huge_skill() -> Vec<u8> {
    let mut content = b"---\nname: huge\ndescription: Too large to read\n---\n".to_vec();
    let size = usize::try_from(DEFAULT_MAX_FILE_SIZE).expect("10 MiB fits in usize") + 1;
    content.resize(size, b'x');
    content
}

/// Writes one file of the fixture's storage: a relative path (`skills/alpha/notes.md`)
/// and its new content. For the watch behaviours, which change the storage under a
/// running watch.
pub type Writer = dyn Fn(String, Vec<u8>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync;

/// A backend holding [`fixture`] under [`root`](Self::root), and whatever must live as
/// long as the test (a temp directory, a server).
pub struct Fixture {
    /// The backend under test.
    pub backend: Arc<dyn BackendProtocol>,
    /// Where the fixture tree is inside the backend (`/`, or a sub-directory).
    pub root: String,
    /// How the storage is changed, for the watch behaviours.
    writer: Option<Arc<Writer>>,
    /// How long the backend may take to report a change (debounce, poll interval).
    quiet: Duration,
    _keep: Vec<Box<dyn Any + Send + Sync>>,
}

impl Fixture {
    /// The fixture of `backend`, whose [`fixture`] tree is under `root`.
    pub fn new(backend: Arc<dyn BackendProtocol>, root: impl Into<String>) -> Self {
        Self {
            backend,
            root: root.into(),
            writer: None,
            quiet: Duration::from_secs(1),
            _keep: Vec::new(),
        }
    }

    /// Keeps `value` (a temp directory, a server guard) alive as long as the fixture.
    pub fn keep(mut self, value: impl Any + Send + Sync) -> Self {
        self._keep.push(Box::new(value));
        self
    }

    /// How the watch behaviours change the storage, and how long a change may take to be
    /// reported (the backend's debounce or poll interval, with room to spare).
    pub fn writer<F, Fut>(mut self, quiet: Duration, write: F) -> Self
    where
        F: Fn(String, Vec<u8>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.writer = Some(Arc::new(move |rel, content| Box::pin(write(rel, content))));
        self.quiet = quiet;
        self
    }

    /// Writes `rel` (relative to the root) through the fixture's writer.
    ///
    /// # Panics
    ///
    /// When the fixture has no writer: only watchable backends' setups give one.
    pub async fn write(&self, rel: &str, content: &[u8]) {
        let writer = self.writer.as_ref().expect("the watch behaviours need Fixture::writer");
        writer(rel.to_owned(), content.to_vec()).await;
    }

    /// How long a change may take to be reported.
    pub fn quiet(&self) -> Duration {
        self.quiet
    }
}

impl fmt::Debug for Fixture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fixture")
            .field("backend", &self.backend)
            .field("root", &self.root)
            .field("quiet", &self.quiet)
            .finish_non_exhaustive()
    }
}

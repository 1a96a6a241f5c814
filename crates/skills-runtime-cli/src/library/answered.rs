//! A command whose output is made of its catalog's first snapshot only (`skills list`)
//! asks for the answer a process kept for the same question of the same files, and
//! keeps its own.

use skills_runtime::{AnswerWriter, FirstLoad};

use super::{Library, Need, library_of, lock_settings, new_catalog, open_pinned};
use crate::cli::SourceArgs;
use crate::progress::Progress;

/// A command's library, or the answer a process made of the same library to the same
/// question ([`catalog_or_answer`]).
#[derive(Debug)]
pub enum Opened {
    /// The bytes kept for the question, for the very files the sources hold now.
    Answered(Vec<u8>),
    /// The library, loaded: no answer holds.
    Library(Library),
}

/// [`catalog`](super::catalog), for a command whose output is made of its catalog's
/// first snapshot only, asked as `question` (the command and its own flags): the answer
/// a process kept for the same question of the same files, when one was kept (see
/// [`SkillCatalog::load_or_answer`](skills_runtime::SkillCatalog::load_or_answer)). The
/// views of the skills.toml read are part of the question.
pub async fn catalog_or_answer(args: &SourceArgs, need: Need, quiet: bool, question: &str) -> anyhow::Result<Opened> {
    let progress = Progress::start(quiet, "reading skill sources");
    let settings = lock_settings(args)?;
    let lock = settings.frozen.then(|| settings.read()).transpose()?;
    let (sources, settings) = open_pinned(args, lock.as_ref())?;
    let question = format!(
        "{question}\nallow partial {}\nviews {:?}",
        args.discovery.allow_partial, settings.views
    );
    let catalog = new_catalog(sources, &settings, lock, args, need);
    let snapshot = match catalog.load_or_answer(&question).await {
        FirstLoad::Answered(answer) => return Ok(Opened::Answered(answer)),
        FirstLoad::Loaded(snapshot) => snapshot,
    };
    drop(progress);
    let mut library = library_of(catalog, &snapshot, settings, args, need).await?;
    library.question = Some(question);
    Ok(Opened::Library(library))
}

impl Library {
    /// Where to keep the answer to the question the library was opened for
    /// ([`catalog_or_answer`]), when its files can vouch for one.
    pub async fn answer_writer(&self) -> Option<AnswerWriter> {
        self.catalog.answer_writer(self.question.as_deref()?).await
    }
}

//! skills-install: Agent Skills written where coding agents read them.
//!
//! [`agents`] is the table of agents and the folders they read (project and global);
//! [`plan`] decides what installing a skill does ([`plan::plan_skill`]: install,
//! update, unchanged, or keep a local edit); [`write`](mod@write) writes a skill atomically (a
//! staging copy renamed into place, the old version moved aside and removed last, a
//! killed run recovered by [`write::recover`]); [`link`] makes an installed skill
//! visible in an agent's own folder by a relative link or a copy; [`lock`] keeps one
//! installing run at a time per folder (a lock left by a killed run is taken over).
//!
//! The design choice a newcomer would not guess: installed skills live once, in the
//! canonical `.agents/skills` folder that most agents read, and every other agent's
//! folder links to it, so an update is one atomic rename, not one per agent.
//!
//! ```
//! use skills_install::plan::{Action, plan_skill};
//! use skills_install::write::{SkillFile, replace};
//!
//! let project = tempfile::tempdir()?;
//! let skills = skills_install::agents::canonical_dir(project.path());
//! let files = vec![SkillFile { rel: "SKILL.md".into(), bytes: b"---\nname: web\ndescription: d\n---\n".to_vec() }];
//! let step = plan_skill(&skills, "web", &files, None, false)?;
//! assert_eq!(step.action, Action::Install);
//! replace(&skills, "web", &files, None)?;
//! assert_eq!(plan_skill(&skills, "web", &files, None, false)?.action, Action::Unchanged);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod agents;
pub mod link;
pub mod lock;
pub mod plan;
pub mod write;

//! The git backend of agent-skills: a `BackendProtocol` over the tree of a git ref.
//!
//! **Status: not implemented yet.** This crate holds the place the workspace reserves for
//! it so the facade's `git` feature resolves; it exports nothing, and enabling the
//! feature gives no git support until the backend lands. Use the local-disk backend
//! meanwhile.

#![warn(missing_docs)]

//! The S3 backend of agent-skills: a [`BackendProtocol`](https://docs.rs/skills-core)
//! over object storage.
//!
//! **Status: not implemented yet.** This crate holds the place the workspace reserves for
//! it so the facade's `s3` feature resolves; it exports nothing, and enabling the feature
//! gives no S3 support until the backend lands. Use the local-disk backend meanwhile.

#![warn(missing_docs)]

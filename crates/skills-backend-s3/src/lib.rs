//! The object-storage backend of agent-skills: a
//! [`BackendProtocol`](skills_core::BackendProtocol) over S3, S3-compatible servers and
//! any other [`object_store`] store, built for team skill libraries that many agent
//! processes read.
//!
//! - [`ObjectStoreBackend`] wraps any `Arc<dyn ObjectStore>`; a whole source costs one
//!   paginated listing plus one GET per file that changed.
//! - [`S3BackendBuilder`] builds one from `s3://bucket/prefix` and the `AWS_*`
//!   environment.
//! - It [watches](skills_core::Watch) by polling the listing's ETags, so a live catalog
//!   follows the bucket without downloading anything that did not change.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use object_store::{memory::InMemory, ObjectStoreExt, path::Path};
//! use skills_backend_s3::ObjectStoreBackend;
//! use skills_core::list_skills;
//!
//! let store = Arc::new(InMemory::new());
//! let skill = "---\nname: web\ndescription: Search the web\n---\n";
//! store.put(&Path::from("library/web/SKILL.md"), skill.into()).await.unwrap();
//!
//! let backend = ObjectStoreBackend::new(store).with_prefix("library").unwrap();
//! let listing = list_skills(&backend, "/").await.unwrap();
//! assert_eq!(listing.skills[0].name, "web");
//! assert_eq!(listing.skills[0].path, "/web/SKILL.md");
//! # });
//! ```

#![warn(missing_docs)]

mod backend;
#[cfg(feature = "test-server")]
pub mod counting;
mod index;
mod indexed;
mod poll;
mod s3;
mod seen;
#[cfg(feature = "test-server")]
pub mod test_server;

pub use backend::{DEFAULT_CONCURRENCY, DEFAULT_POLL_INTERVAL, ObjectStoreBackend};
pub use index::publish_index;
pub use object_store;
pub use s3::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, S3BackendBuilder, S3Error, S3Location};

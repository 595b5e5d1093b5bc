//! The embedded [`agora_store::DocumentStore`]: one SQLite database file (WAL mode) per
//! database, the default store for local runs.
//!
//! **One file per database** ([`EmbeddedStore::open_in`]: `<dir>/<database name>.sqlite`), not a
//! table prefix in one shared file: each database then has its own writer (SQLite locks a whole
//! file for a write, so services and exchanges never queue behind each other's commits), its own
//! WAL and checkpoints, and its own counters table; tables keep their collection names, so the
//! files of earlier versions open unchanged; and dropping an exchange is deleting its file. Two
//! databases with the same collections thus share nothing but the directory.
//!
//! Each collection is a table of `(seq, id, doc)` rows: insertion order, the key, and the
//! document as the caller wrote it, plus one column per indexed or unique field, written by the store
//! (the layout is described in `schema.rs`); documents of 256 KiB and more are stored
//! LZ4-compressed (a report of a million votes shrinks from 250 MB to a fraction of it, which is
//! what SQLite then copies, pages and logs). Filters run half in SQLite, half in Rust: their
//! top-level equalities on the key and indexed fields become `WHERE` conditions on those columns,
//! and whatever remains is matched against the parsed documents. When nothing remains, the
//! stored text is handed back untouched.
//!
//! Writes go through one writer connection that commits concurrent writes together; reads through
//! a small pool of connections, on the calling thread when small and on tokio's blocking pool when
//! large (see `store.rs`).

mod connection;
mod document;
mod error;
mod schema;
mod sql;
mod store;
mod stream;
mod writer;

pub use store::EmbeddedStore;

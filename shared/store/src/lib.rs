//! The storage trait every service shares, and every adapter implements: collections of JSON
//! documents keyed by one of their own fields, with atomic multi-document inserts, unique
//! constraints, conditional updates and the MongoDB-style filters of the query routes.
//!
//! Documents cross this boundary as JSON text ([`Json`]), exactly as the entity's `to_dict()`
//! wrote it, so that reading a million votes costs one parse into typed entities, not two.

pub mod document;

use agora_filter::Filter;
use async_trait::async_trait;
use serde_json::value::RawValue;

/// A document as JSON text: always a JSON object.
pub type Json = Box<RawValue>;

/// One collection: its name, the field that keys it, the field sets that must be unique across
/// its documents, and the fields the hot paths look up by (adapters index them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectionSpec {
    pub name: &'static str,
    /// The document's own id field; `get`, `update` and `delete` work on it.
    pub key: &'static str,
    /// Each entry is a set of fields whose values together are unique (besides `key`).
    pub unique: &'static [&'static [&'static str]],
    /// Scalar fields (strings, numbers or booleans in every document) that queries filter on
    /// by equality; adapters index them.
    pub indexed: &'static [&'static str],
}

/// The collections of one service's database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatabaseSpec {
    pub name: &'static str,
    pub collections: &'static [CollectionSpec],
}

impl DatabaseSpec {
    pub fn collection(&self, name: &str) -> Option<&'static CollectionSpec> {
        self.collections.iter().find(|c| c.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// An insert would break the key or a unique constraint. `fields` names the constraint:
    /// the key field, or the unique field set joined by `,`.
    #[error("a {collection} document with the same {fields} already exists")]
    Duplicate { collection: String, fields: String },
    #[error("unknown collection {0}")]
    UnknownCollection(String),
    /// A document that is not a JSON object or lacks its key field.
    #[error("invalid document for {collection}: {reason}")]
    InvalidDocument { collection: String, reason: String },
    /// The backend failed (I/O, connection, corruption). The message is for logs.
    #[error("store backend error: {0}")]
    Backend(String),
}

/// A document store. Every method is atomic on its own; `insert` is atomic across all the
/// documents it is given.
#[async_trait]
pub trait DocumentStore: Send + Sync + 'static {
    /// Inserts new documents, all or none. Fails with [`StoreError::Duplicate`] when any would
    /// break its collection's key or a unique constraint, leaving nothing written.
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError>;

    /// The document whose key field equals `id`.
    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError>;

    /// Every document matching `filter`, oldest insert first where the backend knows the order.
    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError>;

    /// How many documents match `filter`, counting no further than `limit` when given
    /// (a trigger only needs to know whether a threshold is reached).
    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError>;

    /// Sets the top-level fields of `set` (a JSON object) on the document keyed `id`, if it
    /// exists and matches `condition`. Returns whether it was changed. The key field cannot be set.
    async fn update(&self, collection: &str, id: &str, condition: &Filter, set: &Json) -> Result<bool, StoreError>;

    /// Deletes the document keyed `id` if it matches `condition`. Returns whether it did.
    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError>;
    /// Adds `by` to the counter named `counter` (a missing counter counts from 0) and returns
    /// its new value, atomically: concurrent increments each see a value of their own. Counters
    /// live beside the collections, never in them: no `get`, `find` or API sees them.
    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError>;
}

/// Serializes a value into a [`Json`] document.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Json {
    serde_json::value::to_raw_value(value).expect("documents always serialize")
}

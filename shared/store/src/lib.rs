//! The storage trait every service shares, and every adapter implements: collections of JSON
//! documents keyed by one of their own fields, with atomic multi-document inserts, unique
//! constraints, conditional updates (dotted sets and array appends, [`Change`]) and the
//! MongoDB-style filters of the query routes; on it, the platform's leased once-only
//! [`claims`], counters split over shards so that none is a hot key ([`sharded`]), and an
//! in-memory store ([`memory`]) for fast flow tests.
//!
//! Documents cross this boundary as JSON text ([`Json`]), exactly as the entity's `to_dict()`
//! wrote it, so that reading a million votes costs one parse into typed entities, not two.
//!
//! A store holds one database ([`DatabaseSpec`]): its name (which may come from configuration,
//! `exchange_<id>`) and its collections. Several databases, even with the same collection names,
//! live side by side on one backend without seeing each other's documents, counters or claims.

pub mod change;
pub mod claims;
pub mod conditions;
pub mod document;
pub mod memory;
pub mod page;
pub mod sharded;

use agora_filter::Filter;
use async_trait::async_trait;
use serde_json::value::RawValue;
use std::borrow::Cow;

pub use change::{Change, ChangeError};
pub use page::{DocStream, Page};

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

/// One database: its name and its collections. The collections are fixed by the service; the
/// name may be chosen at run time ([`DatabaseSpec::named`]: a database per exchange).
///
/// A name is 1 to [`MAX_DATABASE_NAME`] ASCII letters, digits, `_` or `-` ([`DatabaseSpec::check`]),
/// so that it is a valid MongoDB database name, file name and DynamoDB key prefix alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseSpec {
    pub name: Cow<'static, str>,
    pub collections: &'static [CollectionSpec],
}

/// The longest database name (MongoDB allows 63 bytes).
pub const MAX_DATABASE_NAME: usize = 63;

impl DatabaseSpec {
    /// A database named `name` holding `collections` (for `const` specs).
    pub const fn new(name: &'static str, collections: &'static [CollectionSpec]) -> DatabaseSpec {
        DatabaseSpec { name: Cow::Borrowed(name), collections }
    }

    /// The same collections in the database named `name` (e.g. `exchange_<EXCHANGE_ID>`).
    pub fn named(&self, name: impl Into<Cow<'static, str>>) -> DatabaseSpec {
        DatabaseSpec { name: name.into(), collections: self.collections }
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn collection(&self, name: &str) -> Option<&'static CollectionSpec> {
        self.collections.iter().find(|c| c.name == name)
    }

    /// Fails ([`StoreError::Backend`], as for any spec an adapter cannot carry) unless the name
    /// is 1 to [`MAX_DATABASE_NAME`] ASCII letters, digits, `_` or `-`, and no two collections
    /// share a name. Adapters call it when they open a database.
    pub fn check(&self) -> Result<(), StoreError> {
        let name = self.name();
        let valid = !name.is_empty()
            && name.len() <= MAX_DATABASE_NAME
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(StoreError::Backend(format!(
                "database name {name:?} is not 1 to {MAX_DATABASE_NAME} ASCII letters, digits, '_' or '-'"
            )));
        }
        for (i, c) in self.collections.iter().enumerate() {
            if self.collections[..i].iter().any(|other| other.name == c.name) {
                return Err(StoreError::Backend(format!("database {name}: collection {} is listed twice", c.name)));
            }
        }
        Ok(())
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

/// What [`DocumentStore::insert_counted`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The documents are stored and the counter raised; its value after this insert (on
    /// DynamoDB read right after the commit, so it may include inserts that committed since).
    Stored(i64),
    /// The counter had reached its limit: nothing was written.
    Full,
}

/// What [`DocumentStore::delete_counted`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncounted {
    /// The document is deleted and the counter lowered; its value after this delete (on
    /// DynamoDB read right after the commit, so it may include writes that committed since).
    Deleted(i64),
    /// There is no such document: nothing was written.
    Missing,
    /// The counter had reached its limit: nothing was written.
    Full,
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

    /// The `page` of the documents matching `filter`, as a stream: the same documents in the
    /// same order as [`find`](DocumentStore::find), read from the backend a batch at a time, so
    /// that memory stays flat in the number of documents. What `find` would refuse at once (an
    /// unknown collection, a filter the backend cannot take) is refused here too, before any
    /// document; a failure met while reading is the stream's last item.
    ///
    /// Each batch is read consistently, the whole stream is not one snapshot: a document written
    /// while the stream runs may or may not be in it, but none comes twice and every document
    /// left alone meanwhile comes, in order. A stream holds no lock or transaction between
    /// batches, so the store serves other calls (writes included) while it is read.
    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError>;

    /// How many documents match `filter`, counting no further than `limit` when given
    /// (a trigger only needs to know whether a threshold is reached).
    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError>;

    /// Applies `change` (dotted sets and array appends, see [`change`]) to the document keyed
    /// `id`, if it exists and matches `condition`, atomically: no other write comes between the
    /// check and the change. Returns whether the document matched (an empty change then writes
    /// nothing). The key field cannot be changed; a change the document cannot take (a path
    /// through a string, an append to a non-array) is [`StoreError::InvalidDocument`] naming the
    /// path, and writes nothing.
    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError>;

    /// Deletes the document keyed `id` if it matches `condition`. Returns whether it did.
    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError>;

    /// Inserts `docs` as [`DocumentStore::insert`] does and adds 1 to the counter `counter` in
    /// the same atomic write: both or neither, so that no crash can leave the documents stored
    /// and not counted (or counted and not stored). With `limit`, nothing is written when the
    /// counter is already at `limit` or above ([`Counted::Full`]). When the documents are
    /// duplicates and the counter is full, the duplicate is reported.
    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError>;

    /// The mirror of [`DocumentStore::insert_counted`]: deletes the document keyed `id` of
    /// `collection` as [`DocumentStore::delete`] does and subtracts 1 from the counter `counter`
    /// in the same atomic write, both or neither. With `limit`, nothing is written when the
    /// counter is at `limit` or above ([`Uncounted::Full`]: a counter fenced past its limit
    /// keeps its documents). A missing document is [`Uncounted::Missing`], reported before a
    /// full counter, and leaves the counter as it is. A counter never raised counts down from 0,
    /// as [`DocumentStore::increment`] does.
    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError>;

    /// Adds `by` to the counter named `counter` (a missing counter counts from 0) and returns
    /// its new value, atomically: concurrent increments each see a value of their own. Counters
    /// live beside the collections, never in them: no `get`, `find` or API sees them; each
    /// database has its own.
    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError>;

    /// The counter's value (0 when it was never raised), read without changing it. Adapters
    /// whose `increment` by 0 would be a write override it with a read.
    async fn counter(&self, counter: &str) -> Result<i64, StoreError> {
        self.increment(counter, 0).await
    }
}

impl StoreError {
    /// What kind of failure this is, as one snake_case word (a metric's label: the services count
    /// the store errors they meet by it).
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::Duplicate { .. } => "duplicate",
            StoreError::UnknownCollection(_) => "unknown_collection",
            StoreError::InvalidDocument { .. } => "invalid_document",
            StoreError::Backend(_) => "backend",
        }
    }

    /// The [`StoreError::InvalidDocument`] of a change `collection` refuses.
    pub fn invalid_change(collection: &str, e: ChangeError) -> StoreError {
        StoreError::InvalidDocument { collection: collection.to_string(), reason: e.to_string() }
    }

    /// The reason of the store's refusal of a document ([`StoreError::InvalidDocument`]) that
    /// caused `e`, directly or down its chain of sources, if one did. Such a refusal is the
    /// input's fault, never the store's: the services' APIs answer a request that met one with a
    /// 400 saying why (a request's own checks refuse what a store would, by field, before this).
    pub fn refused_document_in<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e str> {
        let mut at = Some(e);
        while let Some(error) = at {
            if let Some(StoreError::InvalidDocument { reason, .. }) = error.downcast_ref::<StoreError>() {
                return Some(reason);
            }
            at = error.source();
        }
        None
    }
}

/// Serializes a value into a [`Json`] document.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Json {
    serde_json::value::to_raw_value(value).expect("documents always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a source, as the services wrap a store's error.
    #[derive(Debug, thiserror::Error)]
    #[error("the store failed")]
    struct Wrapped(#[source] StoreError);

    #[test]
    fn a_refused_document_is_found_down_the_chain_of_causes() {
        let refused = StoreError::InvalidDocument { collection: "bids".into(), reason: "field name \"a\\u0000\" holds a NUL".into() };
        assert_eq!(StoreError::refused_document_in(&refused), Some("field name \"a\\u0000\" holds a NUL"));
        let wrapped = Wrapped(refused);
        assert_eq!(StoreError::refused_document_in(&wrapped), Some("field name \"a\\u0000\" holds a NUL"));
        assert_eq!(StoreError::refused_document_in(&Wrapped(StoreError::Backend("down".into()))), None);
        assert_eq!(StoreError::refused_document_in(&StoreError::UnknownCollection("x".into())), None);
    }
}

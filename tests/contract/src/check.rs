//! Small helpers the cases share: writing and reading documents, and asserting outcomes.

use crate::SharedStore;
use agora_filter::Filter;
use agora_store::{to_json, Change, Json, StoreError};
use serde_json::Value;

/// Inserts one document, panicking on failure.
pub async fn put(store: &SharedStore, collection: &'static str, doc: &Value) {
    store.insert(vec![(collection, to_json(doc))]).await.unwrap_or_else(|e| panic!("insert into {collection} failed: {e}"));
}

/// Inserts several documents of one collection, one call each, in order.
pub async fn put_all(store: &SharedStore, collection: &'static str, docs: &[Value]) {
    for doc in docs {
        put(store, collection, doc).await;
    }
}

/// Parses a stored document.
pub fn value(doc: &Json) -> Value {
    serde_json::from_str(doc.get()).expect("stored documents are JSON")
}

/// The stored document keyed `id`, parsed.
pub async fn get_value(store: &SharedStore, collection: &str, id: &str) -> Option<Value> {
    store.get(collection, id).await.unwrap_or_else(|e| panic!("get {collection}/{id} failed: {e}")).map(|doc| value(&doc))
}

/// The stored text of the document keyed `id`.
pub async fn get_text(store: &SharedStore, collection: &str, id: &str) -> Option<String> {
    store.get(collection, id).await.unwrap_or_else(|e| panic!("get {collection}/{id} failed: {e}")).map(|doc| doc.get().to_string())
}

/// The top-level field names of an object, in order.
pub fn keys(doc: &Value) -> Vec<String> {
    doc.as_object().expect("an object").keys().cloned().collect()
}

/// The `key` fields of the documents matching `filter`, in the order `find` returns them.
pub async fn find_keys(store: &SharedStore, collection: &str, key: &str, filter: Value) -> Vec<String> {
    let filter = Filter::parse(&filter).unwrap_or_else(|e| panic!("bad filter {filter}: {e}"));
    let docs = store.find(collection, &filter).await.unwrap_or_else(|e| panic!("find in {collection} failed: {e}"));
    docs.iter().map(|doc| value(doc)[key].as_str().unwrap_or_else(|| panic!("document without {key}: {}", doc.get())).to_string()).collect()
}

/// `count` with a filter document.
pub async fn count(store: &SharedStore, collection: &str, filter: Value, limit: Option<u64>) -> u64 {
    let filter = Filter::parse(&filter).unwrap_or_else(|e| panic!("bad filter {filter}: {e}"));
    store.count(collection, &filter, limit).await.unwrap_or_else(|e| panic!("count in {collection} failed: {e}"))
}

/// Asserts `result` is [`StoreError::Duplicate`] on `collection` naming `fields`.
pub fn assert_duplicate<T: std::fmt::Debug>(result: Result<T, StoreError>, collection: &str, fields: &str) {
    match result {
        Err(StoreError::Duplicate { collection: c, fields: f }) => {
            assert_eq!((c.as_str(), f.as_str()), (collection, fields), "wrong duplicate");
        }
        other => panic!("expected Duplicate {{ {collection}, {fields} }}, got {other:?}"),
    }
}

/// Asserts `result` is [`StoreError::InvalidDocument`] on `collection`.
pub fn assert_invalid<T: std::fmt::Debug>(result: Result<T, StoreError>, collection: &str) {
    match result {
        Err(StoreError::InvalidDocument { collection: c, .. }) => assert_eq!(c, collection),
        other => panic!("expected InvalidDocument on {collection}, got {other:?}"),
    }
}

/// Asserts `result` is [`StoreError::UnknownCollection`] naming `collection`.
pub fn assert_unknown<T: std::fmt::Debug>(result: Result<T, StoreError>, collection: &str) {
    match result {
        Err(StoreError::UnknownCollection(c)) => assert_eq!(c, collection),
        other => panic!("expected UnknownCollection({collection}), got {other:?}"),
    }
}

/// A filter from JSON, panicking when invalid.
pub fn filter(v: Value) -> Filter {
    Filter::must(v)
}

/// A change setting the fields of `v` (keys may be dotted paths).
pub fn set(v: Value) -> Change {
    Change::set(&v)
}

/// Asserts `result` is [`StoreError::InvalidDocument`] on `collection` whose reason mentions
/// `words`.
pub fn assert_invalid_naming<T: std::fmt::Debug>(result: Result<T, StoreError>, collection: &str, words: &str) {
    match result {
        Err(StoreError::InvalidDocument { collection: c, reason }) => {
            assert_eq!(c, collection);
            assert!(reason.contains(words), "the reason {reason:?} does not name {words:?}");
        }
        other => panic!("expected InvalidDocument on {collection} naming {words}, got {other:?}"),
    }
}

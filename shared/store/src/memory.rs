//! [`MemoryStore`]: a [`DocumentStore`] in the process's memory, for fast flow tests. It passes
//! the whole store contract suite: keys and unique constraints, all-or-none inserts, atomic
//! conditional updates (the same [`change`](crate::change) rules as every adapter), counters,
//! filters ([`agora_filter`]'s matcher, as the embedded store uses for what SQLite does not
//! check), insertion order. Its streaming finds collect the page asked for (the documents are
//! in memory already).
//!
//! Every call takes the database's one lock for its whole duration, which is what makes each
//! call atomic; nothing is awaited while it is held. A [`MemoryBackend`] holds several databases
//! by name, as a server would: opening a name again shares its documents; other names, even with
//! the same collections, see nothing of each other.
//!
//! Unique sets constrain only documents whose fields in the set all hold strings, numbers or
//! booleans (numbers by value: `1` equals `1.0`), as the embedded and DynamoDB stores do.

use crate::change::apply;
use crate::{Change, CollectionSpec, Counted, DatabaseSpec, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use agora_filter::Filter;
use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// Databases by name, as one server holds them. Cheap to clone: clones share the databases.
#[derive(Debug, Clone, Default)]
pub struct MemoryBackend {
    databases: Arc<Mutex<HashMap<String, Arc<Database>>>>,
}

impl MemoryBackend {
    pub fn new() -> MemoryBackend {
        MemoryBackend::default()
    }

    /// The database `spec` names, created empty the first time; collections the spec lists and
    /// the database lacks are added.
    pub fn open(&self, spec: DatabaseSpec) -> Result<MemoryStore, StoreError> {
        spec.check()?;
        let db = Arc::clone(lock(&self.databases).entry(spec.name().to_string()).or_default());
        {
            let mut state = lock(&db.state);
            for c in spec.collections {
                state.collections.entry(c.name).or_insert_with(|| Collection::new(c));
            }
        }
        Ok(MemoryStore { spec, db })
    }
}

/// One database in memory. Cheap to clone: clones share the documents.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    spec: DatabaseSpec,
    db: Arc<Database>,
}

impl MemoryStore {
    /// An empty database of its own (on a backend of its own).
    pub fn new(spec: DatabaseSpec) -> Result<MemoryStore, StoreError> {
        MemoryBackend::new().open(spec)
    }

    /// The database this store holds.
    pub fn spec(&self) -> &DatabaseSpec {
        &self.spec
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.db.state)
    }
}

#[derive(Debug, Default)]
struct Database {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    collections: HashMap<&'static str, Collection>,
    counters: HashMap<String, i64>,
    /// The insertion order of the next document.
    next_seq: u64,
}

/// One collection: its documents in insertion order, and the indexes of its key and unique sets.
#[derive(Debug)]
struct Collection {
    spec: &'static CollectionSpec,
    docs: BTreeMap<u64, Stored>,
    keys: HashMap<String, u64>,
    /// Per unique set of the spec: the encoded values of each document that has them all, and
    /// the key of that document.
    unique: Vec<HashMap<String, String>>,
}

#[derive(Debug)]
struct Stored {
    text: Json,
    value: Value,
    /// The encoded values of each unique set (`None`: not constrained).
    unique: Vec<Option<String>>,
}

impl Collection {
    fn new(spec: &'static CollectionSpec) -> Collection {
        Collection { spec, docs: BTreeMap::new(), keys: HashMap::new(), unique: vec![HashMap::new(); spec.unique.len()] }
    }

    fn get(&self, id: &str) -> Option<(u64, &Stored)> {
        let seq = *self.keys.get(id)?;
        self.docs.get(&seq).map(|doc| (seq, doc))
    }

    fn invalid(&self, reason: impl Into<String>) -> StoreError {
        StoreError::InvalidDocument { collection: self.spec.name.to_string(), reason: reason.into() }
    }

    fn duplicate(&self, fields: &str) -> StoreError {
        StoreError::Duplicate { collection: self.spec.name.to_string(), fields: fields.to_string() }
    }

    /// Reads a document to insert: an object with a string key field.
    fn read(&self, doc: &RawValue) -> Result<(String, Value, Vec<Option<String>>), StoreError> {
        let value: Value = serde_json::from_str(doc.get()).map_err(|e| self.invalid(format!("not a JSON object: {e}")))?;
        let Value::Object(fields) = &value else { return Err(self.invalid("not a JSON object")) };
        let key = match fields.get(self.spec.key) {
            Some(Value::String(key)) => key.clone(),
            Some(_) => return Err(self.invalid(format!("key field {} is not a string", self.spec.key))),
            None => return Err(self.invalid(format!("missing key field {}", self.spec.key))),
        };
        let unique = self.unique_values(&value);
        Ok((key, value, unique))
    }

    fn unique_values(&self, value: &Value) -> Vec<Option<String>> {
        self.spec
            .unique
            .iter()
            .map(|set| {
                let encoded: Option<Vec<String>> = set.iter().map(|f| value.get(*f).and_then(encode_scalar)).collect();
                encoded.map(|parts| parts.join("\u{0}"))
            })
            .collect()
    }
}

/// A scalar as the unique indexes compare it: its type kept apart, numbers by value.
fn encode_scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(format!("s:{s}")),
        Value::Bool(b) => Some(format!("b:{b}")),
        Value::Number(n) => Some(match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => format!("n:{i}"),
            (None, Some(u), _) => format!("n:{u}"),
            (None, None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e38 => format!("n:{}", f as i128),
            (None, None, Some(f)) => format!("n:{f}"),
            (None, None, None) => format!("n:{n}"),
        }),
        _ => None,
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl State {
    fn collection(&self, name: &str) -> Result<&Collection, StoreError> {
        self.collections.get(name).ok_or_else(|| StoreError::UnknownCollection(name.to_string()))
    }

    fn collection_mut(&mut self, name: &str) -> Result<&mut Collection, StoreError> {
        self.collections.get_mut(name).ok_or_else(|| StoreError::UnknownCollection(name.to_string()))
    }
}

impl State {
    /// Inserts `docs`, all or none, raising `counted`'s counter with them (within its limit).
    fn insert(&mut self, docs: Vec<(&'static str, Json)>, counted: Option<(&str, Option<i64>)>) -> Result<Counted, StoreError> {
        let mut prepared = Vec::with_capacity(docs.len());
        for (collection, doc) in docs {
            let c = self.collection(collection)?;
            let (key, value, unique) = c.read(&doc)?;
            prepared.push((collection, key, doc, value, unique));
        }
        let mut keys: HashSet<(&str, &str)> = HashSet::new();
        let mut uniques: HashSet<(&str, usize, &str)> = HashSet::new();
        for (collection, key, _, _, unique) in &prepared {
            let c = self.collection(collection)?;
            if c.keys.contains_key(key) || !keys.insert((collection, key)) {
                return Err(c.duplicate(c.spec.key));
            }
            for (i, encoded) in unique.iter().enumerate() {
                let Some(encoded) = encoded else { continue };
                if c.unique[i].contains_key(encoded) || !uniques.insert((collection, i, encoded)) {
                    return Err(c.duplicate(&c.spec.unique[i].join(",")));
                }
            }
        }
        let count = match counted {
            None => None,
            Some((counter, limit)) => match self.add_within(counter, 1, limit) {
                Some(value) => Some(value),
                None => return Ok(Counted::Full),
            },
        };
        for (collection, key, text, value, unique) in prepared {
            let seq = self.next_seq;
            self.next_seq += 1;
            let c = self.collection_mut(collection)?;
            for (i, encoded) in unique.iter().enumerate() {
                if let Some(encoded) = encoded {
                    c.unique[i].insert(encoded.clone(), key.clone());
                }
            }
            c.keys.insert(key, seq);
            c.docs.insert(seq, Stored { text, value, unique });
        }
        Ok(count.map_or(Counted::Stored(0), Counted::Stored))
    }

    /// Adds `by` to the counter unless it is at `limit` or above; its new value, `None` when full.
    fn add_within(&mut self, counter: &str, by: i64, limit: Option<i64>) -> Option<i64> {
        let value = self.counters.entry(counter.to_string()).or_insert(0);
        if limit.is_some_and(|l| *value >= l) {
            return None;
        }
        *value += by;
        Some(*value)
    }

    /// Deletes the document keyed `id` if it matches `condition`, lowering `counted`'s counter
    /// with it (unless at its limit). `Deleted(0)` when no counter is given.
    fn delete(
        &mut self,
        collection: &str,
        id: &str,
        condition: &Filter,
        counted: Option<(&str, Option<i64>)>,
    ) -> Result<Uncounted, StoreError> {
        let c = self.collection(collection)?;
        match c.get(id) {
            Some((_, doc)) if condition.matches(&doc.value) => {}
            _ => return Ok(Uncounted::Missing),
        }
        let count = match counted {
            None => 0,
            Some((counter, limit)) => match self.add_within(counter, -1, limit) {
                Some(value) => value,
                None => return Ok(Uncounted::Full),
            },
        };
        let c = self.collection_mut(collection)?;
        let seq = c.keys.remove(id).expect("found above");
        let old = c.docs.remove(&seq).expect("found above");
        for (i, encoded) in old.unique.iter().enumerate() {
            if let Some(encoded) = encoded {
                c.unique[i].remove(encoded);
            }
        }
        Ok(Uncounted::Deleted(count))
    }
}

#[async_trait]
impl DocumentStore for MemoryStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        self.state().insert(docs, None).map(|_| ())
    }

    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        self.state().insert(docs, Some((counter, limit)))
    }

    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        let state = self.state();
        Ok(state.collection(collection)?.get(id).map(|(_, doc)| doc.text.clone()))
    }

    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        let state = self.state();
        let c = state.collection(collection)?;
        Ok(c.docs.values().filter(|doc| filter.matches(&doc.value)).map(|doc| doc.text.clone()).collect())
    }

    /// The page is collected under the lock (the lock is never held across an await), so the
    /// memory it takes is the page's, not the collection's.
    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        let state = self.state();
        let c = state.collection(collection)?;
        let skip = usize::try_from(page.skip).unwrap_or(usize::MAX);
        let limit = page.limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let docs: Vec<Json> =
            c.docs.values().filter(|doc| filter.matches(&doc.value)).skip(skip).take(limit).map(|doc| doc.text.clone()).collect();
        Ok(Page::ALL.of_vec(docs))
    }

    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        let state = self.state();
        let c = state.collection(collection)?;
        let limit = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        Ok(c.docs.values().filter(|doc| filter.matches(&doc.value)).take(limit).count() as u64)
    }

    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        let mut state = self.state();
        let c = state.collection_mut(collection)?;
        let plan = change.plan(c.spec.key, id).map_err(|e| StoreError::invalid_change(collection, e))?;
        let Some((seq, doc)) = c.get(id) else { return Ok(false) };
        if !condition.matches(&doc.value) {
            return Ok(false);
        }
        if plan.is_empty() {
            return Ok(true);
        }
        let text = apply(doc.text.get(), &plan)
            .map_err(|e| StoreError::invalid_change(collection, e))?
            .to_text()
            .map_err(|reason| c.invalid(reason))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| c.invalid(e.to_string()))?;
        let unique = c.unique_values(&value);
        for (i, encoded) in unique.iter().enumerate() {
            if let Some(owner) = encoded.as_ref().and_then(|e| c.unique[i].get(e)) {
                if owner != id {
                    return Err(c.duplicate(&c.spec.unique[i].join(",")));
                }
            }
        }
        let text = RawValue::from_string(text).map_err(|e| c.invalid(e.to_string()))?;
        let old = c.docs.remove(&seq).expect("found above");
        for (i, encoded) in old.unique.iter().enumerate() {
            if let Some(encoded) = encoded {
                c.unique[i].remove(encoded);
            }
        }
        for (i, encoded) in unique.iter().enumerate() {
            if let Some(encoded) = encoded {
                c.unique[i].insert(encoded.clone(), id.to_string());
            }
        }
        c.docs.insert(seq, Stored { text, value, unique });
        Ok(true)
    }

    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        Ok(self.state().delete(collection, id, condition, None)? != Uncounted::Missing)
    }

    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        self.state().delete(collection, id, &Filter::all(), Some((counter, limit)))
    }

    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        let mut state = self.state();
        let value = state.counters.entry(counter.to_string()).or_insert(0);
        *value += by;
        Ok(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::to_json;
    use serde_json::json;

    const ITEMS: CollectionSpec = CollectionSpec { name: "items", key: "id", unique: &[&["a", "b"]], indexed: &["a"] };
    const DB: DatabaseSpec = DatabaseSpec::new("db", &[ITEMS]);

    #[tokio::test]
    async fn one_backend_shares_a_name_and_separates_others() {
        let backend = MemoryBackend::new();
        let first = backend.open(DB).expect("open");
        let again = backend.open(DB).expect("open again");
        let other = backend.open(DB.named("db_other")).expect("open another");
        first.insert(vec![("items", to_json(&json!({"id": "x", "a": 1, "b": 2})))]).await.expect("insert");
        assert!(again.get("items", "x").await.expect("get").is_some());
        assert!(other.get("items", "x").await.expect("get").is_none());
        assert_eq!(first.increment("n", 2).await.expect("increment"), 2);
        assert_eq!(other.increment("n", 1).await.expect("increment"), 1);
        assert!(matches!(backend.open(DB.named("bad name")), Err(StoreError::Backend(_))));
    }

    #[tokio::test]
    async fn unique_numbers_compare_by_value() {
        let store = MemoryStore::new(DB).expect("open");
        store.insert(vec![("items", to_json(&json!({"id": "x", "a": 1, "b": "s"})))]).await.expect("insert");
        let clash = store.insert(vec![("items", to_json(&json!({"id": "y", "a": 1.0, "b": "s"})))]).await;
        assert!(matches!(clash, Err(StoreError::Duplicate { fields, .. }) if fields == "a,b"));
        store.insert(vec![("items", to_json(&json!({"id": "z", "a": true, "b": "s"})))]).await.expect("true is not 1");
    }
}

//! [`MongoStore`]: the [`DocumentStore`] over one MongoDB database.

use crate::convert::{to_json, ID_FIELD};
use crate::deployment::MongoDeployment;
use crate::document::{change_pipeline, filter_document, insert_document, keyed_filter};
use crate::error::{backend, is_duplicate_key, write_error, NO_TRANSACTIONS};
use crate::indexes;
use agora_filter::Filter;
use agora_store::change::{apply, Plan};
use agora_store::{Change, CollectionSpec, Counted, DatabaseSpec, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use async_trait::async_trait;
use bson::{doc, Document, RawDocumentBuf};
use futures::StreamExt;
use mongodb::error::{Error, TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use mongodb::{Client, ClientSession, Collection, Database};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a multi-document insert keeps retrying a transaction that failed for a transient
/// reason (a write conflict with a concurrent transaction, a primary stepping down).
const TRANSACTION_RETRY_TIME: Duration = Duration::from_secs(30);

/// The environment variable holding the connection string (see [`MongoStore::connect_from_env`]).
pub const MONGODB_URI_ENV: &str = "MONGODB_URI";

/// The spec's name for the connection string (orcade-2-schema.md §2.4), read when
/// [`MONGODB_URI_ENV`] is unset.
pub const MONGO_URL_ENV: &str = "MONGO_URL";

/// The spec's default connection string, which the local server uses when neither variable is set.
pub const DEFAULT_MONGO_URL: &str = "mongodb://localhost:27017";

/// The connection string from the environment: `MONGODB_URI`, else `MONGO_URL` (blank values
/// count as unset); `None` when neither is set.
pub fn uri_from_env() -> Option<String> {
    agora_support::env::var(MONGODB_URI_ENV).or_else(|| agora_support::env::var(MONGO_URL_ENV))
}

/// A [`DocumentStore`] in one MongoDB database. Cheap to clone: clones share the client and its
/// connection pool.
///
/// Each collection of the [`DatabaseSpec`] is a MongoDB collection of the same name holding the
/// documents exactly as written (same fields, same order, same JSON numbers; see
/// [`crate::convert`]), plus the `_id` ObjectId the driver generates. `_id` orders the documents
/// (`find` answers sorted by it) and never leaves the store: every read projects it away.
#[derive(Clone)]
pub struct MongoStore {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    database: Database,
    spec: DatabaseSpec,
    collections: Vec<Coll>,
    /// [`COUNTERS`]: `{_id: <counter name>, value: <i64>}`.
    counters: Collection<Document>,
    /// Counted inserts of one counter in this process take turns ([`counter_turn`]).
    turns: Vec<tokio::sync::Mutex<()>>,
}

/// How many turn locks counted inserts share, by their counter's hash.
const TURNS: usize = 64;

/// The collection of counters ([`DocumentStore::increment`]): beside the collections of the
/// spec, read by no query.
pub const COUNTERS: &str = "_agora_counters";

/// The collections the store keeps for itself, beside those of the spec.
const RESERVED: [&str; 2] = [COUNTERS, indexes::RECORD];

/// What [`MongoStore::write_in_transaction`] writes beside its counter.
enum Write<'g, 'c> {
    /// An `insertMany` of each group.
    Insert(&'g [(&'c Coll, Vec<RawDocumentBuf>)]),
    /// A `deleteOne` of the document the filter selects.
    Delete(&'c Coll, Document),
}

impl<'c> Write<'_, 'c> {
    /// Runs the write inside the session's transaction; false when a delete found no document.
    /// The `Err` names the collection that failed.
    async fn run(&self, session: &mut ClientSession) -> Result<bool, (&'c CollectionSpec, Error)> {
        match self {
            Write::Insert(groups) => insert_groups(session, groups).await.map(|()| true),
            Write::Delete(coll, filter) => {
                let deleted = coll.handle.delete_one(filter.clone()).session(session).await.map_err(|e| (coll.spec, e))?;
                Ok(deleted.deleted_count == 1)
            }
        }
    }

    fn doing(&self) -> &'static str {
        match self {
            Write::Insert(_) => "insert",
            Write::Delete(..) => "delete",
        }
    }
}

/// What [`MongoStore::write_in_transaction`] did.
enum Written {
    /// Written, and the counter's value after (0 without a counter).
    Done(i64),
    /// A delete found no document: nothing written.
    Missing,
    /// The counter was at its limit: nothing written.
    Full,
}

/// One collection: its spec and the driver's handle, reading raw BSON.
struct Coll {
    spec: &'static CollectionSpec,
    handle: Collection<RawDocumentBuf>,
}

impl std::fmt::Debug for MongoStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MongoStore").field("database", &self.inner.database.name()).finish()
    }
}

impl MongoStore {
    /// Opens `db` on a client whose deployment was checked ([`MongoDeployment::open`]): the
    /// indexes ensured, the collections' handles made.
    pub(crate) async fn open_on(client: Client, db: DatabaseSpec) -> Result<MongoStore, StoreError> {
        db.check()?;
        if let Some(reserved) = db.collections.iter().find(|c| RESERVED.contains(&c.name)) {
            return Err(StoreError::Backend(format!("collection name {} is reserved for the store's own records", reserved.name)));
        }
        let handle = client.database(db.name());
        indexes::ensure(&handle, &db).await?;
        let collections = db.collections.iter().map(|spec| Coll { spec, handle: handle.collection::<RawDocumentBuf>(spec.name) }).collect();
        tracing::debug!(database = db.name(), "mongodb store open");
        let counters = handle.collection::<Document>(COUNTERS);
        let turns = (0..TURNS).map(|_| tokio::sync::Mutex::new(())).collect();
        Ok(MongoStore { inner: Arc::new(Inner { client, database: handle, spec: db, collections, counters, turns }) })
    }
}

impl MongoStore {
    /// Connects to the deployment at `uri` (`mongodb://` or `mongodb+srv://`, any driver option
    /// in the query string) and opens the database named `db.name` with `db`'s collections,
    /// creating their indexes where missing. Name the database at run time with
    /// [`DatabaseSpec::named`] (a database per exchange, a fresh database per test).
    ///
    /// Fails when the name is not a valid database name ([`DatabaseSpec::check`]), when the
    /// server cannot be reached, when the indexes cannot be created, and when the deployment
    /// cannot run transactions (a standalone `mongod`), which multi-document inserts need.
    pub async fn connect(uri: &str, db: DatabaseSpec) -> Result<MongoStore, StoreError> {
        db.check()?;
        MongoDeployment::connect(uri).await?.open(db).await
    }

    /// [`MongoStore::connect`] to the deployment whose connection string is in the environment
    /// variable `MONGODB_URI` (else `MONGO_URL`).
    pub async fn connect_from_env(db: DatabaseSpec) -> Result<MongoStore, StoreError> {
        db.check()?;
        MongoDeployment::connect_from_env().await?.open(db).await
    }

    /// [`MongoStore::connect`] on a client the caller made: several databases (services,
    /// exchanges) then share one connection pool. Clone the client for each, or open them all
    /// on one [`MongoDeployment`], which checks the deployment once.
    pub async fn with_client(client: Client, db: DatabaseSpec) -> Result<MongoStore, StoreError> {
        db.check()?;
        MongoDeployment::with_client(client).await?.open(db).await
    }

    /// The collections this store holds.
    pub fn spec(&self) -> &DatabaseSpec {
        &self.inner.spec
    }

    /// The MongoDB database.
    pub fn database(&self) -> &Database {
        &self.inner.database
    }

    fn coll(&self, collection: &str) -> Result<&Coll, StoreError> {
        self.inner
            .collections
            .iter()
            .find(|c| c.spec.name == collection)
            .ok_or_else(|| StoreError::UnknownCollection(collection.to_string()))
    }

    /// Runs `write` (inserts, each group one `insertMany`, or a delete) in one transaction,
    /// adding `counted`'s step to its counter in it when given (within its limit), retried while
    /// it fails for a transient reason (a write conflict with a concurrent transaction on the
    /// same counter or document, a primary stepping down).
    async fn write_in_transaction(&self, write: Write<'_, '_>, counted: Option<(&str, i64, Option<i64>)>) -> Result<Written, StoreError> {
        // Concurrent transactions raising one counter conflict on its document, and each
        // conflict costs an abort and a retry: writers of one counter in this process take turns
        // instead, so that only writers in other processes conflict.
        let _turn = match counted {
            Some((counter, ..)) => Some(self.counter_turn(counter).await),
            None => None,
        };
        let mut session = self.inner.client.start_session().await.map_err(|e| backend("starting a session", &e))?;
        let deadline = Instant::now() + TRANSACTION_RETRY_TIME;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            session.start_transaction().await.map_err(|e| backend("starting a transaction", &e))?;
            // The counter first: its update pins the transaction's snapshot and takes the
            // counter's document at once, so that concurrent writers of one counter conflict at
            // their first statement (and retry) instead of after their inserts.
            let raised = match counted {
                None => Ok(Some(0)),
                Some((counter, by, limit)) => self.raise_counter(&mut session, counter, by, limit).await.map_err(|e| (None, e)),
            };
            let written = match raised {
                Ok(Some(value)) => match write.run(&mut session).await {
                    Ok(true) => Ok(Some(value)),
                    Ok(false) => {
                        let _ = session.abort_transaction().await;
                        return Ok(Written::Missing);
                    }
                    Err((spec, e)) => Err((Some(spec), e)),
                },
                other => other,
            };
            let value = match written {
                Ok(Some(value)) => value,
                Ok(None) => {
                    // The counter is missing, at its limit, or created after this transaction's
                    // snapshot was taken (a concurrent first write): nothing is written, and the
                    // counter as committed now tells which.
                    let _ = session.abort_transaction().await;
                    let (counter, _, limit) = counted.expect("only a counted write reads a counter");
                    match self.committed_counter(counter).await? {
                        None => {
                            self.create_counter(counter).await?;
                            continue;
                        }
                        Some(value) if limit.is_some_and(|l| value >= l) => {
                            return self.full_unless_refused(&mut session, &write, deadline).await
                        }
                        Some(_) if Instant::now() < deadline => {
                            backoff(attempt).await;
                            continue;
                        }
                        Some(_) => return Err(StoreError::Backend(format!("mongodb raising counter {counter}: no attempt saw it"))),
                    }
                }
                Err((spec, e)) => {
                    // The server has aborted it already on most errors; abort whatever is left.
                    let _ = session.abort_transaction().await;
                    if e.contains_label(TRANSIENT_TRANSACTION_ERROR) && Instant::now() < deadline {
                        tracing::debug!(attempt, error = %e, "{} transaction failed transiently; retrying", write.doing());
                        backoff(attempt).await;
                        continue;
                    }
                    return Err(match spec {
                        Some(spec) => write_error(spec, write.doing(), &e),
                        None => backend("raising a counter", &e),
                    });
                }
            };
            match commit(&mut session, deadline).await {
                Ok(()) => return Ok(Written::Done(value)),
                Err(e) if e.contains_label(TRANSIENT_TRANSACTION_ERROR) && Instant::now() < deadline => backoff(attempt).await,
                Err(e) => return Err(backend(&format!("committing a {}", write.doing()), &e)),
            }
        }
    }

    /// The turn of the counted inserts of `counter` in this process (one lock per hash stripe).
    async fn counter_turn(&self, counter: &str) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(counter);
        self.inner.turns[(hash % TURNS as u64) as usize].lock().await
    }

    /// [`Written::Full`], unless `write` is refused anyway: then what it would meet without the
    /// limit, as an uncounted write reports it (a duplicate, a missing document), tried in a
    /// transaction that is aborted.
    async fn full_unless_refused(
        &self,
        session: &mut ClientSession,
        write: &Write<'_, '_>,
        deadline: Instant,
    ) -> Result<Written, StoreError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            session.start_transaction().await.map_err(|e| backend("starting a transaction", &e))?;
            let tried = write.run(session).await;
            let _ = session.abort_transaction().await;
            match tried {
                Ok(true) => return Ok(Written::Full),
                Ok(false) => return Ok(Written::Missing),
                Err((_, e)) if e.contains_label(TRANSIENT_TRANSACTION_ERROR) && Instant::now() < deadline => backoff(attempt).await,
                Err((spec, e)) => return Err(write_error(spec, write.doing(), &e)),
            }
        }
    }

    /// Adds `by` to `counter` in the session's transaction when it is below `limit`; its new
    /// value, or `None` when the counter is missing or at its limit.
    async fn raise_counter(&self, session: &mut ClientSession, counter: &str, by: i64, limit: Option<i64>) -> Result<Option<i64>, Error> {
        let filter = match limit {
            Some(l) => doc! {ID_FIELD: counter, "value": {"$lt": l}},
            None => doc! {ID_FIELD: counter},
        };
        let updated = self
            .inner
            .counters
            .find_one_and_update(filter, doc! {"$inc": {"value": by}})
            .return_document(mongodb::options::ReturnDocument::After)
            .session(session)
            .await?;
        Ok(updated.and_then(|d| counter_value(&d)))
    }

    /// The counter's committed value; `None` when it does not exist.
    async fn committed_counter(&self, counter: &str) -> Result<Option<i64>, StoreError> {
        let found = self.inner.counters.find_one(doc! {ID_FIELD: counter}).await.map_err(|e| backend("reading a counter", &e))?;
        found
            .map(|doc| {
                counter_value(&doc)
                    .ok_or_else(|| StoreError::Backend(format!("counter {counter} holds {:?}, not an integer", doc.get("value"))))
            })
            .transpose()
    }

    /// Creates the counter at 0 (a concurrent first write may have created it meanwhile).
    async fn create_counter(&self, counter: &str) -> Result<(), StoreError> {
        match self.inner.counters.insert_one(doc! {ID_FIELD: counter, "value": 0_i64}).await {
            Ok(_) => Ok(()),
            Err(e) if is_duplicate_key(&e) => Ok(()),
            Err(e) => Err(backend("creating a counter", &e)),
        }
    }

    /// `docs` checked and converted, consecutive documents of one collection grouped (one
    /// `insertMany` each).
    fn groups<'s>(&'s self, docs: &[(&'static str, Json)]) -> Result<Vec<(&'s Coll, Vec<RawDocumentBuf>)>, StoreError> {
        let mut groups: Vec<(&Coll, Vec<RawDocumentBuf>)> = Vec::new();
        for (collection, json) in docs {
            let coll = self.coll(collection)?;
            let raw = insert_document(coll.spec, json)?;
            match groups.last_mut() {
                Some((last, group)) if std::ptr::eq(*last, coll) => group.push(raw),
                _ => groups.push((coll, vec![raw])),
            }
        }
        Ok(groups)
    }
}

/// A counter document's value.
fn counter_value(doc: &Document) -> Option<i64> {
    match doc.get("value") {
        Some(bson::Bson::Int64(n)) => Some(*n),
        Some(bson::Bson::Int32(n)) => Some(i64::from(*n)),
        _ => None,
    }
}

impl MongoStore {
    /// Why the server failed an update, when the document cannot take the change (a path
    /// through a string, an append to an object): the change applied to the document as it is
    /// now, by the rules every adapter shares, names the path. `None` when it applies (the
    /// failure was something else).
    async fn refusal(&self, coll: &Coll, filter: Document, plan: &Plan<'_>) -> Result<Option<StoreError>, StoreError> {
        let found = coll.handle.find_one(filter).projection(without_id()).await.map_err(|e| backend("update", &e))?;
        let Some(doc) = found else { return Ok(None) };
        let doc = json_of(coll.spec, &doc)?;
        Ok(apply(doc.get(), plan).err().map(|e| StoreError::invalid_change(coll.spec.name, e)))
    }
}

/// Fails unless the deployment runs transactions: a replica set member (`setName`), a `mongos`
/// (`msg: "isdbgrid"`) or a load balancer in front of either (`serviceId`).
pub(crate) async fn check_transactions(client: &Client) -> Result<(), StoreError> {
    let hello = client.database("admin").run_command(doc! { "hello": 1 }).await.map_err(|e| backend("hello", &e))?;
    if supports_transactions(&hello) {
        Ok(())
    } else {
        Err(StoreError::Backend(format!("{NO_TRANSACTIONS} (the server answers hello as a standalone server)")))
    }
}

/// Whether a `hello` reply comes from a deployment that runs transactions.
pub(crate) fn supports_transactions(hello: &Document) -> bool {
    hello.contains_key("setName") || hello.get_str("msg").is_ok_and(|m| m == "isdbgrid") || hello.contains_key("serviceId")
}

/// Inserts every group inside the session's transaction; the `Err` names the collection that
/// failed.
async fn insert_groups<'c>(
    session: &mut ClientSession,
    groups: &[(&'c Coll, Vec<RawDocumentBuf>)],
) -> Result<(), (&'c CollectionSpec, Error)> {
    for (coll, docs) in groups {
        coll.handle.insert_many(docs.iter()).session(&mut *session).await.map_err(|e| (coll.spec, e))?;
    }
    Ok(())
}

/// Commits, retrying while the outcome is unknown (the driver retries once itself).
async fn commit(session: &mut ClientSession, deadline: Instant) -> Result<(), Error> {
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        match session.commit_transaction().await {
            Err(e) if e.contains_label(UNKNOWN_TRANSACTION_COMMIT_RESULT) && Instant::now() < deadline => backoff(attempt).await,
            other => return other,
        }
    }
}

/// A random wait before a transaction is tried again ("full jitter": up to 2^attempt ms, at most
/// 256 ms), so that writers that conflicted on one document do not retry in step and conflict
/// again: with a fixed wait, 200 concurrent votes on one counter kept colliding until the retry
/// time ran out.
async fn backoff(attempt: u32) {
    let span_us = 1_000u64 << attempt.clamp(1, 8);
    tokio::time::sleep(Duration::from_micros(rand::random::<u64>() % span_us)).await;
}

/// The projection hiding `_id`.
fn without_id() -> Document {
    doc! { ID_FIELD: 0 }
}

/// A stored document as [`Json`].
fn json_of(spec: &CollectionSpec, doc: &bson::RawDocument) -> Result<Json, StoreError> {
    to_json(doc).map_err(|reason| StoreError::Backend(format!("{}: stored document unreadable: {reason}", spec.name)))
}

#[async_trait]
impl DocumentStore for MongoStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        // Check and convert every document before writing any.
        let groups = self.groups(&docs)?;
        match groups.as_slice() {
            [] => Ok(()),
            [(coll, group)] if group.len() == 1 => {
                coll.handle.insert_one(&group[0]).await.map_err(|e| write_error(coll.spec, "insert", &e))?;
                Ok(())
            }
            _ => self.write_in_transaction(Write::Insert(&groups), None).await.map(|_| ()),
        }
    }

    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        let groups = self.groups(&docs)?;
        match self.write_in_transaction(Write::Insert(&groups), Some((counter, 1, limit))).await? {
            Written::Done(value) => Ok(Counted::Stored(value)),
            Written::Full => Ok(Counted::Full),
            Written::Missing => Err(StoreError::Backend("an insert found nothing to write".to_string())),
        }
    }

    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        let coll = self.coll(collection)?;
        let write = Write::Delete(coll, keyed_filter(coll.spec, id, &Filter::all())?);
        Ok(match self.write_in_transaction(write, Some((counter, -1, limit))).await? {
            Written::Done(value) => Uncounted::Deleted(value),
            Written::Missing => Uncounted::Missing,
            Written::Full => Uncounted::Full,
        })
    }

    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        let coll = self.coll(collection)?;
        let found = coll.handle.find_one(doc! { coll.spec.key: id }).projection(without_id()).await.map_err(|e| backend("get", &e))?;
        found.map(|doc| json_of(coll.spec, &doc)).transpose()
    }

    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        let coll = self.coll(collection)?;
        let filter = filter_document(coll.spec, filter)?;
        let mut cursor =
            coll.handle.find(filter).projection(without_id()).sort(doc! { ID_FIELD: 1 }).await.map_err(|e| backend("find", &e))?;
        let mut out = Vec::new();
        while cursor.advance().await.map_err(|e| backend("find", &e))? {
            out.push(json_of(coll.spec, cursor.current())?);
        }
        Ok(out)
    }

    /// The driver's cursor, with the page as the find's `skip` and `limit`: the server sends the
    /// documents in batches (the first of 101, then up to 16 MiB each), read as the stream is.
    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        let coll = self.coll(collection)?;
        let filter = filter_document(coll.spec, filter)?;
        // A limit of 0 means "no limit" to MongoDB; a skip past i64 (which the server takes)
        // passes every document a collection can hold.
        if page.is_empty() || i64::try_from(page.skip).is_err() {
            return Ok(Page::ALL.of_vec(Vec::new()));
        }
        let mut find = coll.handle.find(filter).projection(without_id()).sort(doc! { ID_FIELD: 1 });
        if page.skip > 0 {
            find = find.skip(page.skip);
        }
        if let Some(limit) = page.limit {
            // A limit past i64 is no limit.
            if let Ok(limit) = i64::try_from(limit) {
                find = find.limit(limit);
            }
        }
        let cursor = find.await.map_err(|e| backend("find", &e))?;
        let spec = coll.spec;
        Ok(cursor.map(move |doc| doc.map_err(|e| backend("find", &e)).and_then(|doc| json_of(spec, &doc))).boxed())
    }

    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        let coll = self.coll(collection)?;
        if limit == Some(0) {
            return Ok(0);
        }
        let action = coll.handle.count_documents(filter_document(coll.spec, filter)?);
        let action = match limit {
            Some(limit) => action.limit(limit),
            None => action,
        };
        action.await.map_err(|e| backend("count", &e))
    }

    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        let coll = self.coll(collection)?;
        let plan = change.plan(coll.spec.key, id).map_err(|e| StoreError::invalid_change(collection, e))?;
        let pipeline = change_pipeline(coll.spec, &plan)?;
        let filter = keyed_filter(coll.spec, id, condition)?;
        let Some(pipeline) = pipeline else {
            // Nothing to change: only whether the document is there and matches.
            let found = coll.handle.count_documents(filter).limit(1).await.map_err(|e| backend("update", &e))?;
            return Ok(found == 1);
        };
        match coll.handle.update_one(filter.clone(), pipeline).await {
            Ok(result) => Ok(result.matched_count == 1),
            Err(e) => match write_error(coll.spec, "update", &e) {
                StoreError::Backend(message) => Err(self.refusal(coll, filter, &plan).await?.unwrap_or(StoreError::Backend(message))),
                other => Err(other),
            },
        }
    }

    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        let coll = self.coll(collection)?;
        let result = coll.handle.delete_one(keyed_filter(coll.spec, id, condition)?).await.map_err(|e| backend("delete", &e))?;
        Ok(result.deleted_count == 1)
    }

    async fn counter(&self, counter: &str) -> Result<i64, StoreError> {
        Ok(self.committed_counter(counter).await?.unwrap_or(0))
    }

    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        // The counter is created (at 0) apart from the increment, so that an increment is never
        // an upsert: concurrent upserts of one `_id` may fail, and a failed one cannot tell
        // whether it was applied.
        let counters = &self.inner.counters;
        for created in [false, true] {
            let updated = counters
                .find_one_and_update(doc! {ID_FIELD: counter}, doc! {"$inc": {"value": by}})
                .return_document(mongodb::options::ReturnDocument::After)
                .await
                .map_err(|e| backend("increment", &e))?;
            if let Some(updated) = updated {
                return match updated.get("value") {
                    Some(bson::Bson::Int64(n)) => Ok(*n),
                    Some(bson::Bson::Int32(n)) => Ok(i64::from(*n)),
                    other => Err(StoreError::Backend(format!("counter {counter} holds {other:?}, not an integer"))),
                };
            }
            if !created {
                match counters.insert_one(doc! {ID_FIELD: counter, "value": 0_i64}).await {
                    Ok(_) => {}
                    // Created meanwhile by a concurrent first increment.
                    Err(e) if is_duplicate_key(&e) => {}
                    Err(e) => return Err(backend("creating a counter", &e)),
                }
            }
        }
        Err(StoreError::Backend(format!("counter {counter} vanished while being increased")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transactions_need_a_replica_set_a_mongos_or_a_load_balancer() {
        assert!(supports_transactions(&doc! {"isWritablePrimary": true, "setName": "rs0"}));
        assert!(supports_transactions(&doc! {"isWritablePrimary": true, "msg": "isdbgrid"}));
        assert!(supports_transactions(&doc! {"isWritablePrimary": true, "serviceId": bson::oid::ObjectId::new()}));
        assert!(!supports_transactions(&doc! {"isWritablePrimary": true, "maxWireVersion": 21}));
    }
}

//! A [`MongoStore`] on a fresh database of the server at `MONGODB_URI`, dropped afterwards.

use agora_filter::Filter;
use agora_store::{DatabaseSpec, DocumentStore, Json, StoreError};
use agora_store_mongodb::MongoStore;
use async_trait::async_trait;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The server's URI. Panics without one: these tests never pass without a server.
pub fn uri() -> String {
    match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.trim().is_empty() => uri,
        _ => panic!(
            "MONGODB_URI is not set: these tests need a MongoDB-protocol server. Run ./tests/run.sh, which starts one \
             (secantusdb) on 127.0.0.1 and exports MONGODB_URI, or export MONGODB_URI=mongodb://127.0.0.1:27117 \
             for a server you started yourself."
        ),
    }
}

/// A database name no other test uses (this process, a counter, the time).
pub fn fresh_database_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("agora_test_{}_{}_{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A [`MongoStore`] on a database of its own, dropped when the store is.
pub struct TestStore {
    pub store: MongoStore,
    pub name: String,
}

impl TestStore {
    /// Connects to a fresh database holding `db`'s collections.
    pub async fn fresh(db: DatabaseSpec) -> TestStore {
        let name = fresh_database_name();
        let store = MongoStore::connect_with_database(&uri(), db, &name).await.unwrap_or_else(|e| panic!("connect to {}: {e}", uri()));
        TestStore { store, name }
    }
}

impl Drop for TestStore {
    /// Drops the database from a thread of its own (with its own runtime and client), so that
    /// it works whatever the state of the test's runtime, even while a failed test unwinds.
    fn drop(&mut self) {
        let (uri, name) = (uri(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                let client = mongodb::Client::with_uri_str(&uri).await.ok()?;
                client.database(&name).drop().await.ok()?;
                client.shutdown().await;
                Some(())
            })
        });
        let _ = dropped.join();
    }
}

#[async_trait]
impl DocumentStore for TestStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        self.store.insert(docs).await
    }
    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        self.store.get(collection, id).await
    }
    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        self.store.find(collection, filter).await
    }
    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        self.store.count(collection, filter, limit).await
    }
    async fn update(&self, collection: &str, id: &str, condition: &Filter, set: &Json) -> Result<bool, StoreError> {
        self.store.update(collection, id, condition, set).await
    }
    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        self.store.delete(collection, id, condition).await
    }
    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        self.store.increment(counter, by).await
    }
}

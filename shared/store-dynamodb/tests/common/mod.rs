//! Fresh tables on the DynamoDB-compatible server of `AGORA_DYNAMODB_ENDPOINT` (the moto server
//! `./tests/run.sh` starts), one per test, deleted afterwards.

#![allow(dead_code)]

use agora_filter::Filter;
use agora_store::{DocumentStore, Json, StoreError};
use agora_store_contract::VOTING_DB;
use agora_store_dynamodb::{DynamoConfig, DynamoStore, ENDPOINT_ENV};
use async_trait::async_trait;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The endpoint the tests run against; panics (failing the test) when unset.
pub fn endpoint() -> String {
    match std::env::var(ENDPOINT_ENV) {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "{ENDPOINT_ENV} is not set: these tests need a DynamoDB-compatible server. \
             Run ./tests/run.sh, which starts moto and sets it (or start `moto_server -p PORT` and export \
             {ENDPOINT_ENV}=http://127.0.0.1:PORT AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1)"
        ),
    }
}

/// A [`DynamoStore`] on a table of its own, deleted on drop.
pub struct TempTable {
    pub store: DynamoStore,
}

impl TempTable {
    pub async fn new() -> TempTable {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let table = format!("agora-test-{}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed), uuid::Uuid::new_v4().simple());
        let config = DynamoConfig { table, endpoint: Some(endpoint()), region: None };
        let store = DynamoStore::connect(config, VOTING_DB).await.expect("connect");
        store.ensure_table().await.expect("create a fresh table");
        TempTable { store }
    }
}

impl Drop for TempTable {
    fn drop(&mut self) {
        let store = self.store.clone();
        // Drop runs inside the test's runtime, which must not block on itself: delete from a
        // thread with a runtime of its own.
        let deleted = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(store.delete_table())
        })
        .join();
        if let Ok(Err(e)) = deleted {
            eprintln!("could not delete a test table: {e}");
        }
    }
}

#[async_trait]
impl DocumentStore for TempTable {
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

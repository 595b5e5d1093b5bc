//! Fresh tables on the DynamoDB-compatible server of `AGORA_DYNAMODB_ENDPOINT` (the moto server
//! `./tests/run.sh` starts), one per test, deleted afterwards.

#![allow(dead_code)]

use agora_store::DatabaseSpec;
use agora_store_contract::CONTRACT_DB;
use agora_store_dynamodb::{DynamoConfig, DynamoStore, ENDPOINT_ENV};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

/// A [`DynamoStore`] of `CONTRACT_DB` on a table of its own, deleted on drop.
pub struct TempTable {
    pub store: DynamoStore,
}

impl TempTable {
    /// Creates the table, laid out for `CONTRACT_DB`.
    pub async fn new() -> TempTable {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let table = format!("agora-test-{}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed), uuid::Uuid::new_v4().simple());
        let config = DynamoConfig { table, endpoint: Some(endpoint()), region: None };
        let store = DynamoStore::connect(config, CONTRACT_DB).await.expect("connect");
        store.ensure_table().await.expect("create a fresh table");
        TempTable { store }
    }

    /// A store of the database `spec` on the same table.
    pub fn open(&self, spec: DatabaseSpec) -> DynamoStore {
        DynamoStore::with_client(self.store.client().clone(), self.store.table_name(), spec).expect("a database on the table")
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

agora_store_contract::delegate_store!(TempTable, store);

/// A store of one database on a shared [`TempTable`], which lives as long as its stores.
pub struct OnTable {
    pub store: DynamoStore,
    pub table: Arc<TempTable>,
}

agora_store_contract::delegate_store!(OnTable, store);

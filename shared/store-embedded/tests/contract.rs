//! The store contract suite against [`EmbeddedStore`], each case on a fresh database file.

use agora_filter::Filter;
use agora_store::{DocumentStore, Json, StoreError};
use agora_store_contract::VOTING_DB;
use agora_store_embedded::EmbeddedStore;
use async_trait::async_trait;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

agora_store_contract::contract_tests!(async { TempStore::new() });

/// An [`EmbeddedStore`] on a file of its own in the temporary directory, removed on drop.
struct TempStore {
    store: EmbeddedStore,
    path: PathBuf,
}

impl TempStore {
    fn new() -> TempStore {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("agora-store-embedded-contract-{}-{}.db", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        remove_files(&path);
        let store = EmbeddedStore::open(&path, VOTING_DB).expect("open a fresh store");
        TempStore { store, path }
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        remove_files(&self.path);
    }
}

/// Removes a database file and its WAL companions.
fn remove_files(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

#[async_trait]
impl DocumentStore for TempStore {
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

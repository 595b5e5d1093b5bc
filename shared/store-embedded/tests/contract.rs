//! The store contract suite against [`EmbeddedStore`], each case in a fresh data directory
//! (one file per database, [`EmbeddedStore::open_in`]), removed afterwards.

use agora_store::DatabaseSpec;
use agora_store_embedded::EmbeddedStore;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

agora_store_contract::contract_tests!(async {
    let dir = Arc::new(TempDir::new());
    move |spec: DatabaseSpec| {
        let store = EmbeddedStore::open_in(&dir.0, spec).expect("open a store in the fresh directory");
        // The directory outlives every store of the case: each holds it.
        let dir = Arc::clone(&dir);
        async move { Held { store, _dir: dir } }
    }
});

/// A data directory of its own in the temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("agora-store-embedded-contract-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A store and the directory it lives in.
struct Held {
    store: EmbeddedStore,
    _dir: Arc<TempDir>,
}

agora_store_contract::delegate_store!(Held, store);

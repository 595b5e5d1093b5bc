//! A [`MongoStore`] on a fresh database of the server at `MONGODB_URI`, dropped afterwards.

// Each test binary uses a part of it.
#![allow(dead_code)]

use agora_store::DatabaseSpec;
use agora_store_mongodb::MongoStore;
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
        TestStore::named(db, fresh_database_name()).await
    }

    /// Connects to the database `name` holding `db`'s collections (dropped with the store).
    pub async fn named(db: DatabaseSpec, name: String) -> TestStore {
        let store = MongoStore::connect(&uri(), db.named(name.clone())).await.unwrap_or_else(|e| panic!("connect to {}: {e}", uri()));
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

agora_store_contract::delegate_store!(TestStore, store);

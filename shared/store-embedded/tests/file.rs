//! The database file outlives the store: reopening keeps the documents and constraints, a spec
//! that indexes one more field gets its column and index on the existing file, and two stores
//! on one file share it safely.

use agora_filter::Filter;
use agora_store::{to_json, CollectionSpec, DatabaseSpec, DocumentStore, StoreError};
use agora_store_contract::fixtures::vote;
use agora_store_contract::CONTRACT_DB;
use agora_store_embedded::EmbeddedStore;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A database file path of its own, removed (with its WAL companions) on drop.
struct TempPath(PathBuf);

impl TempPath {
    fn new(name: &str) -> TempPath {
        let path = std::env::temp_dir().join(format!("agora-store-embedded-{name}-{}.db", std::process::id()));
        remove(&path);
        TempPath(path)
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        remove(&self.0);
    }
}

fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
}

fn ids(docs: &[agora_store::Json]) -> Vec<String> {
    docs.iter().map(|d| serde_json::from_str::<Value>(d.get()).expect("json")["vote_id"].as_str().expect("id").to_string()).collect()
}

/// The votes of `CONTRACT_DB` with `submission_time` indexed too.
const MORE_INDEXED: DatabaseSpec = DatabaseSpec::new(
    "contract",
    &[CollectionSpec {
        name: "votes",
        key: "vote_id",
        unique: &[&["social_task_id", "submitter_subject_id"]],
        indexed: &["social_task_id", "submitter_subject_id", "qualified", "submission_time"],
    }],
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_keeps_documents_and_constraints() {
    let path = TempPath::new("reopen");
    {
        let store = EmbeddedStore::open(&path.0, CONTRACT_DB).expect("open");
        store.insert(vec![("votes", to_json(&vote("v-1", "task_a", "agent-1", true)))]).await.expect("insert");
        store.insert(vec![("votes", to_json(&vote("v-2", "task_a", "agent-2", false)))]).await.expect("insert");
    }
    let store = EmbeddedStore::open(&path.0, CONTRACT_DB).expect("reopen");
    assert!(store.get("votes", "v-1").await.expect("get").is_some());
    let again = store.insert(vec![("votes", to_json(&vote("v-3", "task_a", "agent-1", true)))]).await;
    assert!(matches!(again, Err(StoreError::Duplicate { .. })), "{again:?}");
    let found = store.find("votes", &Filter::must(json!({"social_task_id": "task_a", "qualified": false}))).await.expect("find");
    assert_eq!(ids(&found), ["v-2"]);
    drop(store);

    // A spec indexing one more field: the existing rows are found through the new index.
    let store = EmbeddedStore::open(&path.0, MORE_INDEXED).expect("reopen with more indexes");
    let mut late = vote("v-4", "task_b", "agent-1", true);
    late["submission_time"] = json!("2026-10-22T11:00:00");
    store.insert(vec![("votes", to_json(&late))]).await.expect("insert");
    let found = store.find("votes", &Filter::must(json!({"submission_time": "2026-10-22T10:03:12.481203"}))).await.expect("find");
    assert_eq!(ids(&found), ["v-1", "v-2"]);
    let found = store.find("votes", &Filter::must(json!({"submission_time": "2026-10-22T11:00:00"}))).await.expect("find");
    assert_eq!(ids(&found), ["v-4"]);
    assert!(matches!(store.get("social_task_core_data", "x").await, Err(StoreError::UnknownCollection(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_share_one_file() {
    let path = TempPath::new("shared");
    let first = EmbeddedStore::open(&path.0, CONTRACT_DB).expect("open");
    let second = EmbeddedStore::open(&path.0, CONTRACT_DB).expect("open again");
    let writes = (0..200).map(|i| {
        let store = if i % 2 == 0 { first.clone() } else { second.clone() };
        // Two attempts per subject, one through each store.
        let doc = to_json(&vote(&format!("v-{i}"), "task_a", &format!("agent-{}", i / 2), true));
        tokio::spawn(async move { store.insert(vec![("votes", doc)]).await })
    });
    let mut stored = 0;
    for write in writes.collect::<Vec<_>>() {
        match write.await.expect("task") {
            Ok(()) => stored += 1,
            Err(StoreError::Duplicate { fields, .. }) => assert_eq!(fields, "social_task_id,submitter_subject_id"),
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(stored, 100);
    assert_eq!(second.count("votes", &Filter::all(), None).await.expect("count"), 100);
    assert_eq!(first.count("votes", &Filter::must(json!({"social_task_id": "task_a"})), None).await.expect("count"), 100);
}

/// A file written by the earlier layout, whose field columns SQLite generated from the
/// documents: opening it moves every table to the current layout, keeping the documents, their
/// insertion order and the constraints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_generated_columns_is_moved_to_written_columns() {
    let path = TempPath::new("generated-columns");
    {
        let conn = rusqlite::Connection::open(&path.0).expect("open");
        let column = |field: &str| {
            let p = format!("'$.\"{field}\"'");
            format!(
                "\"f_{field}\" GENERATED ALWAYS AS (CASE json_type(doc, {p}) WHEN 'true' THEN x'01' WHEN 'false' THEN x'00' \
                 WHEN 'object' THEN NULL WHEN 'array' THEN NULL ELSE json_extract(doc, {p}) END) STORED"
            )
        };
        conn.execute_batch(&format!(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE \"votes\" (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL, {}, {}, {});
             CREATE UNIQUE INDEX \"votes__unique__social_task_id__submitter_subject_id\" ON \"votes\"(\"f_social_task_id\", \"f_submitter_subject_id\");",
            column("social_task_id"),
            column("submitter_subject_id"),
            column("qualified"),
        ))
        .expect("old layout");
        for (id, subject, qualified) in [("v2", "agent-b", false), ("v1", "agent-a", true)] {
            let doc = to_json(&vote(id, "task_old", subject, qualified));
            conn.execute("INSERT INTO \"votes\" (id, doc) VALUES (?1, ?2)", [id, doc.get()]).expect("old insert");
        }
    }
    let store = EmbeddedStore::open(&path.0, CONTRACT_DB).expect("reopen");
    let all = store.find("votes", &Filter::must(json!({"social_task_id": "task_old"}))).await.expect("find");
    assert_eq!(ids(&all), ["v2", "v1"], "insertion order is kept");
    let qualified = store.find("votes", &Filter::must(json!({"social_task_id": "task_old", "qualified": true}))).await.expect("find");
    assert_eq!(ids(&qualified), ["v1"]);
    let again = store.insert(vec![("votes", to_json(&vote("v3", "task_old", "agent-a", true)))]).await;
    assert!(matches!(again, Err(StoreError::Duplicate { .. })), "{again:?}");
    store.insert(vec![("votes", to_json(&vote("v4", "task_old", "agent-c", true)))]).await.expect("new vote");
    assert_eq!(store.count("votes", &Filter::must(json!({"qualified": true})), None).await.expect("count"), 2);
    let conn = rusqlite::Connection::open(&path.0).expect("open");
    let generated: i64 =
        conn.query_row("SELECT count(*) FROM pragma_table_xinfo('votes') WHERE hidden >= 2", [], |r| r.get(0)).expect("xinfo");
    assert_eq!(generated, 0, "no generated column is left");
}

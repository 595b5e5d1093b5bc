//! Documents come back exactly as written: the spec's examples (text fixtures), and a task
//! whose report weighs a few megabytes. (That the examples read as the voting entities and
//! write back unchanged is the voting schema's own test.)

use crate::check::{find_keys, keys, value};
use crate::fixtures::*;
use crate::spec::{INPUTS, SPECS, TASKS, VOTES};
use crate::SharedStore;
use agora_store::to_json;
use serde_json::{json, Value};

/// `example` → insert → get: the same text byte for byte, the same value with the same field
/// order; `find` by key returns the same text.
async fn round_trip(store: &SharedStore, collection: &'static str, key: &str, example: &Value) {
    let id = example[key].as_str().expect("string key").to_string();
    let written = to_json(example);
    store.insert(vec![(collection, written.clone())]).await.expect("insert");
    let read = store.get(collection, &id).await.expect("get").expect("stored");
    assert_eq!(read.get(), written.get(), "get returns the inserted text byte for byte");
    let read_value = value(&read);
    assert_eq!(&read_value, example);
    assert_eq!(keys(&read_value), keys(example), "field order kept");

    let found = store.find(collection, &crate::check::filter(json!({ key: id }))).await.expect("find");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].get(), written.get(), "find returns the inserted text byte for byte");
}

/// §2.1 example.
pub async fn round_trip_task_example(store: SharedStore) {
    round_trip(&store, TASKS, "social_task_id", &example(TASK_EXAMPLE)).await;
}

/// §2.2 example.
pub async fn round_trip_subject_spec_example(store: SharedStore) {
    round_trip(&store, SPECS, "social_task_id", &example(SUBJECT_SPEC_EXAMPLE)).await;
}

/// §2.3 example.
pub async fn round_trip_evaluation_input_example(store: SharedStore) {
    round_trip(&store, INPUTS, "social_task_id", &example(EVALUATION_INPUT_EXAMPLE)).await;
}

/// §2.4 example.
pub async fn round_trip_vote_example(store: SharedStore) {
    round_trip(&store, VOTES, "vote_id", &example(VOTE_EXAMPLE)).await;
}

/// A completed task whose `report_json` lists 12,000 votes (about 3 MB).
pub async fn round_trip_task_with_large_report(store: SharedStore) {
    let mut doc = task(EXAMPLE_TASK_ID, "complete", &["agent-reviewer-01"]);
    doc["report_json"] = large_report(12_000);
    let size = serde_json::to_string(&doc).expect("serializes").len();
    assert!(size > 2_000_000, "the report is a few MB ({size} bytes)");
    round_trip(&store, TASKS, "social_task_id", &doc).await;
    assert_eq!(find_keys(&store, TASKS, "social_task_id", json!({"status": "complete"})).await, [EXAMPLE_TASK_ID]);
}

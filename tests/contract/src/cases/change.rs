//! `update` with dotted paths and appends: nested fields created and replaced with their
//! siblings kept, arrays created and extended, what a document cannot take refused naming the
//! path, and appends racing for the last places of a capped roster.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::JOBS;
use crate::SharedStore;
use agora_filter::Filter;
use agora_store::conditions::shorter_than;
use agora_store::Change;
use serde_json::{json, Value};
use std::sync::Arc;

async fn stored_job(store: &SharedStore, id: &str) -> Value {
    get_value(store, JOBS, id).await.unwrap_or_else(|| panic!("{id} is stored"))
}

/// Dotted sets: a nested field created (with the objects on the way), an existing nested field
/// replaced in place, the siblings kept, new fields added last; a `null` on the way becomes an
/// object; conditions on nested fields.
pub async fn update_dotted_set(store: SharedStore) {
    let before = job("job_1", "open");
    put(&store, JOBS, &before).await;
    let change = set(json!({
        "task_metadata.bid_job_id": "bid_9",
        "task_metadata.budget.amount": 150,
        "assignment.worker.subject_id": "agent-7",
        "bid_job_status": "assigned"
    }));
    assert!(store.update(JOBS, "job_1", &Filter::all(), &change).await.expect("update"));
    let after = stored_job(&store, "job_1").await;
    let mut expected = before.clone();
    expected["bid_job_status"] = json!("assigned");
    expected["task_metadata"] =
        json!({"title": "Translate the Q4 handbook", "budget": {"amount": 150, "currency": "EUR"}, "bid_job_id": "bid_9"});
    expected["assignment"] = json!({"worker": {"subject_id": "agent-7"}});
    assert_eq!(after, expected);
    assert_eq!(keys(&after), ["job_id", "bid_job_status", "task_metadata", "roster", "created_at", "assignment"]);
    assert_eq!(keys(&after["task_metadata"]), ["title", "budget", "bid_job_id"]);
    assert_eq!(keys(&after["task_metadata"]["budget"]), ["amount", "currency"]);
    assert_eq!(find_keys(&store, JOBS, "job_id", json!({"bid_job_status": "assigned"})).await, ["job_1"]);

    // A dotted set of an object replaces that object whole.
    assert!(store.update(JOBS, "job_1", &Filter::all(), &set(json!({"task_metadata.budget": {"amount": 1}}))).await.expect("update"));
    let after = stored_job(&store, "job_1").await;
    assert_eq!(after["task_metadata"], json!({"title": "Translate the Q4 handbook", "budget": {"amount": 1}, "bid_job_id": "bid_9"}));

    // `null` on the way counts as missing.
    assert!(store.update(JOBS, "job_1", &Filter::all(), &set(json!({"note": null}))).await.expect("update"));
    assert!(store.update(JOBS, "job_1", &Filter::all(), &set(json!({"note.text": "x"}))).await.expect("update"));
    assert_eq!(stored_job(&store, "job_1").await["note"], json!({"text": "x"}));

    // Conditions on a nested field, changing it.
    let on_bid = filter(json!({"task_metadata.bid_job_id": "bid_9"}));
    assert!(store.update(JOBS, "job_1", &on_bid, &set(json!({"task_metadata.bid_job_id": "bid_10"}))).await.expect("update"));
    assert!(!store.update(JOBS, "job_1", &on_bid, &set(json!({"task_metadata.bid_job_id": "bid_11"}))).await.expect("update"));
    assert_eq!(stored_job(&store, "job_1").await["task_metadata"]["bid_job_id"], "bid_10");
    assert_eq!(find_keys(&store, JOBS, "job_id", json!({"task_metadata.bid_job_id": "bid_10"})).await, ["job_1"]);
}

/// What a dotted set refuses, writing nothing: the key field (set to another value, or a path
/// below it), a path through a string, a number or an array (the error names the path), bad and
/// overlapping paths. A missing document or a false condition answers `false` first.
pub async fn update_dotted_set_refusals(store: SharedStore) {
    put(&store, JOBS, &job("job_1", "open")).await;
    let text = get_text(&store, JOBS, "job_1").await;
    let all = Filter::all();
    assert_invalid_naming(store.update(JOBS, "job_1", &all, &set(json!({"job_id": "job_2"}))).await, JOBS, "job_id");
    assert_invalid_naming(store.update(JOBS, "job_1", &all, &set(json!({"job_id.x": 1}))).await, JOBS, "job_id");
    assert_invalid_naming(store.update(JOBS, "job_1", &all, &Change::none().append("job_id", &1)).await, JOBS, "job_id");
    for path in ["bid_job_status.x", "task_metadata.title.x", "task_metadata.budget.amount.x", "roster.x", "created_at.y.z"] {
        let mut fields = serde_json::Map::new();
        fields.insert(path.to_string(), json!(1));
        let change = Change::set(&fields).append("task_metadata.history", &"never written");
        assert_invalid_naming(store.update(JOBS, "job_1", &all, &change).await, JOBS, path);
    }
    for bad in [json!({"a..b": 1}), json!({"roster.0": 1}), json!({"$set": 1}), json!({"task_metadata": {}, "task_metadata.x": 1})] {
        assert_invalid(store.update(JOBS, "job_1", &all, &set(bad)).await, JOBS);
    }
    assert_eq!(get_text(&store, JOBS, "job_1").await, text, "nothing was written");
    // Refusals that depend on the document need the document, and a matching one.
    assert!(!store.update(JOBS, "job_missing", &all, &set(json!({"bid_job_status.x": 1}))).await.expect("missing"));
    let closed = filter(json!({"bid_job_status": "closed"}));
    assert!(!store.update(JOBS, "job_1", &closed, &set(json!({"bid_job_status.x": 1}))).await.expect("condition false"));
    assert_eq!(get_text(&store, JOBS, "job_1").await, text);
}

/// Appends: to an existing array, several values in order, to a missing array (created, and
/// the objects on the way), together with sets, under a condition.
pub async fn update_append(store: SharedStore) {
    let before = job("job_1", "open");
    put(&store, JOBS, &before).await;
    let change = Change::none()
        .append("roster", &json!({"subject_id": "agent-1"}))
        .append("roster", &json!({"subject_id": "agent-2"}))
        .append("waitlist", &"agent-3")
        .append("task_metadata.history", &json!({"event": "opened"}));
    assert!(store.update(JOBS, "job_1", &filter(json!({"bid_job_status": "open"})), &change).await.expect("update"));
    let after = stored_job(&store, "job_1").await;
    assert_eq!(after["roster"], json!([{"subject_id": "agent-1"}, {"subject_id": "agent-2"}]));
    assert_eq!(after["waitlist"], json!(["agent-3"]));
    assert_eq!(after["task_metadata"]["history"], json!([{"event": "opened"}]));
    assert_eq!(keys(&after), ["job_id", "bid_job_status", "task_metadata", "roster", "created_at", "waitlist"]);
    assert_eq!(keys(&after["task_metadata"]), ["title", "budget", "history"]);

    let both =
        Change::set(&json!({"bid_job_status": "full", "task_metadata.closed": true})).append("roster", &json!({"subject_id": "agent-4"}));
    assert!(store.update(JOBS, "job_1", &filter(json!({"roster.1.subject_id": "agent-2"})), &both).await.expect("update"));
    let after = stored_job(&store, "job_1").await;
    assert_eq!(after["bid_job_status"], "full");
    assert_eq!(after["task_metadata"]["closed"], true);
    assert_eq!(after["roster"][2], json!({"subject_id": "agent-4"}));
    assert_eq!(find_keys(&store, JOBS, "job_id", json!({"roster.subject_id": "agent-4"})).await, ["job_1"]);
    let again = Change::none().append("roster", &json!({"subject_id": "agent-5"}));
    assert!(!store.update(JOBS, "job_1", &filter(json!({"bid_job_status": "open"})), &again).await.expect("condition false"));
    assert_eq!(stored_job(&store, "job_1").await["roster"].as_array().map(Vec::len), Some(3));
}

/// An append to a value that is not an array (or through a non-object) is refused, naming the
/// path, and writes nothing, not even the change's other operations.
pub async fn update_append_refusals(store: SharedStore) {
    put(&store, JOBS, &job("job_1", "open")).await;
    let text = get_text(&store, JOBS, "job_1").await;
    for path in ["bid_job_status", "task_metadata", "task_metadata.budget.amount", "task_metadata.title.list"] {
        let change = Change::set(&json!({"created_at": "2026-10-23T00:00:00.000000"})).append(path, &1);
        assert_invalid_naming(store.update(JOBS, "job_1", &Filter::all(), &change).await, JOBS, path);
    }
    assert_eq!(get_text(&store, JOBS, "job_1").await, text, "nothing was written");
}

/// 50 applicants race for the 5 places of an open job, each appending itself under the condition
/// "open, and the roster shorter than 5": exactly 5 get in, each once.
pub async fn append_under_capacity_race(store: SharedStore) {
    const CAPACITY: usize = 5;
    put(&store, JOBS, &job("job_race", "open")).await;
    let results = crate::cases::race(|i| {
        let store = Arc::clone(&store);
        async move {
            let condition = filter(json!({"bid_job_status": "open"})).and(shorter_than("roster", CAPACITY));
            let change = Change::none().append("roster", &json!({"subject_id": format!("agent-{i:02}")}));
            store.update(JOBS, "job_race", &condition, &change).await
        }
    })
    .await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let mut winners: Vec<String> =
        results.iter().enumerate().filter(|(_, r)| **r == Ok(true)).map(|(i, _)| format!("agent-{i:02}")).collect();
    assert_eq!(winners.len(), CAPACITY, "exactly {CAPACITY} appends apply: {results:?}");
    let roster = stored_job(&store, "job_race").await["roster"].clone();
    let mut stored: Vec<String> =
        roster.as_array().expect("an array").iter().map(|e| e["subject_id"].as_str().expect("subject").to_string()).collect();
    stored.sort();
    winners.sort();
    assert_eq!(stored, winners);
    // Full: a later applicant is turned away.
    let condition = shorter_than("roster", CAPACITY);
    assert!(!store.update(JOBS, "job_race", &condition, &Change::none().append("roster", &"late")).await.expect("update"));
}

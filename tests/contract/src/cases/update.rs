//! `update` (a conditional `$set` of top-level fields) and `delete`.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::{TASKS, VOTES};
use crate::SharedStore;
use agora_filter::Filter;
use serde_json::json;

/// A false condition changes nothing and answers `false`.
pub async fn update_condition_false(store: SharedStore) {
    put(&store, TASKS, &task("task_a", "started", &[])).await;
    let text = get_text(&store, TASKS, "task_a").await;
    let changed =
        store.update(TASKS, "task_a", &filter(json!({"status": "scheduled"})), &set(json!({"status": "complete"}))).await.expect("update");
    assert!(!changed);
    assert_eq!(get_text(&store, TASKS, "task_a").await, text);
    // Conditions on several fields, with operators.
    let changed = store
        .update(
            TASKS,
            "task_a",
            &filter(json!({"status": {"$in": ["started", "complete"]}, "enable_live_streaming": true})),
            &set(json!({"status": "complete"})),
        )
        .await
        .expect("update");
    assert!(changed);
    assert_eq!(get_value(&store, TASKS, "task_a").await.expect("stored")["status"], "complete");
}

/// A missing id answers `false`, with or without a condition, and creates nothing.
pub async fn update_missing_id(store: SharedStore) {
    put(&store, TASKS, &task("task_a", "scheduled", &[])).await;
    for condition in [Filter::all(), filter(json!({"status": "scheduled"}))] {
        let changed = store.update(TASKS, "task_missing", &condition, &set(json!({"status": "started"}))).await.expect("update");
        assert!(!changed);
    }
    assert_eq!(get_value(&store, TASKS, "task_missing").await, None);
    assert_eq!(count(&store, TASKS, json!({}), None).await, 1);
}

/// The key field cannot be changed (`InvalidDocument`, nothing written); setting it to its own
/// value is allowed. A `$set` that is not an object is refused.
pub async fn update_cannot_change_key(store: SharedStore) {
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    let text = get_text(&store, VOTES, "v-1").await;
    let changed = store.update(VOTES, "v-1", &Filter::all(), &set(json!({"vote_id": "v-2", "qualified": false}))).await;
    assert_invalid(changed, VOTES);
    assert_eq!(get_text(&store, VOTES, "v-1").await, text);
    assert_eq!(get_value(&store, VOTES, "v-2").await, None);

    let changed = store
        .update(VOTES, "v-1", &Filter::all(), &set(json!({"vote_id": "v-1", "qualified": false})))
        .await
        .expect("setting the key to itself is allowed");
    assert!(changed);
    assert_eq!(get_value(&store, VOTES, "v-1").await.expect("stored")["qualified"], false);

    for not_an_object in [json!(["qualified", true]), json!("x"), json!(3)] {
        let result = store.update(VOTES, "v-1", &Filter::all(), &set(not_an_object)).await;
        assert_invalid(result, VOTES);
    }
}

/// Set fields keep their place, new fields are appended, other fields are untouched.
pub async fn update_merges_in_field_order(store: SharedStore) {
    let before = task("task_a", "scheduled", &["agent-1"]);
    put(&store, TASKS, &before).await;
    let changed = store
        .update(
            TASKS,
            "task_a",
            &Filter::all(),
            &set(json!({"status": "started", "started_at": "2026-10-22T10:00:01", "goal_data": {"objective": "x"}})),
        )
        .await
        .expect("update");
    assert!(changed);
    let after = get_value(&store, TASKS, "task_a").await.expect("stored");
    let mut expected_keys = keys(&before);
    expected_keys.push("started_at".to_string());
    assert_eq!(keys(&after), expected_keys);
    let mut expected = before.clone();
    expected["status"] = json!("started");
    expected["goal_data"] = json!({"objective": "x"});
    expected["started_at"] = json!("2026-10-22T10:00:01");
    assert_eq!(after, expected);
    // An empty `$set` changes nothing but still reports the match.
    assert!(store.update(TASKS, "task_a", &Filter::all(), &set(json!({}))).await.expect("update"));
    assert_eq!(get_value(&store, TASKS, "task_a").await.expect("stored"), expected);
}

/// Setting a multi-megabyte nested value (the evaluator's report).
pub async fn update_large_nested_value(store: SharedStore) {
    put(&store, TASKS, &task(EXAMPLE_TASK_ID, "started", &[])).await;
    let report = large_report(10_000);
    let changed = store
        .update(TASKS, EXAMPLE_TASK_ID, &filter(json!({"status": "started"})), &set(json!({"report_json": report, "status": "complete"})))
        .await
        .expect("update");
    assert!(changed);
    let after = get_value(&store, TASKS, EXAMPLE_TASK_ID).await.expect("stored");
    assert_eq!(after["report_json"], report);
    assert_eq!(after["status"], "complete");
    assert_eq!(keys(&after), keys(&task(EXAMPLE_TASK_ID, "started", &[])));
    assert_eq!(find_keys(&store, TASKS, "social_task_id", json!({"status": "complete"})).await, [EXAMPLE_TASK_ID]);
}

/// Updates keep unique constraints, and the indexed fields they change are found by queries.
pub async fn update_keeps_constraints_and_indexes(store: SharedStore) {
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    put(&store, VOTES, &vote("v-2", "task_a", "agent-2", false)).await;
    let text = get_text(&store, VOTES, "v-2").await;
    let clash = store.update(VOTES, "v-2", &Filter::all(), &set(json!({"submitter_subject_id": "agent-1"}))).await;
    assert_duplicate(clash, VOTES, "social_task_id,submitter_subject_id");
    assert_eq!(get_text(&store, VOTES, "v-2").await, text);

    assert_eq!(count(&store, VOTES, json!({"social_task_id": "task_a", "qualified": true}), None).await, 1);
    assert!(store.update(VOTES, "v-2", &Filter::all(), &set(json!({"qualified": true}))).await.expect("update"));
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({"social_task_id": "task_a", "qualified": true})).await, ["v-1", "v-2"]);
    assert!(store.update(VOTES, "v-1", &Filter::all(), &set(json!({"social_task_id": "task_b"}))).await.expect("update"));
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({"social_task_id": "task_a"})).await, ["v-2"]);
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({"social_task_id": "task_b"})).await, ["v-1"]);
    // Updating does not move a document in insertion order.
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({})).await, ["v-1", "v-2"]);
}

/// `delete` without a condition: `true` once, then `false`; other documents stay.
pub async fn delete_without_condition(store: SharedStore) {
    put_all(&store, VOTES, &[vote("v-1", "task_a", "agent-1", true), vote("v-2", "task_a", "agent-2", true)]).await;
    assert!(store.delete(VOTES, "v-1", &Filter::all()).await.expect("delete"));
    assert_eq!(get_value(&store, VOTES, "v-1").await, None);
    assert!(!store.delete(VOTES, "v-1", &Filter::all()).await.expect("delete"));
    assert!(!store.delete(VOTES, "v-missing", &Filter::all()).await.expect("delete"));
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({})).await, ["v-2"]);
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "task_a"}), None).await, 1);
}

/// `delete` with a condition: only when it matches.
pub async fn delete_with_condition(store: SharedStore) {
    put(&store, TASKS, &task("task_a", "started", &[])).await;
    assert!(!store.delete(TASKS, "task_a", &filter(json!({"status": "scheduled"}))).await.expect("delete"));
    assert!(get_value(&store, TASKS, "task_a").await.is_some());
    assert!(!store.delete(TASKS, "task_missing", &filter(json!({"status": "started"}))).await.expect("delete"));
    assert!(store
        .delete(TASKS, "task_a", &filter(json!({"status": "started", "social_task_properties.urgency": "high"})))
        .await
        .expect("delete"));
    assert_eq!(get_value(&store, TASKS, "task_a").await, None);
}

//! Two databases with the same collections, open side by side on one backend: no document,
//! counter or constraint of one shows in the other; opening a database again shows its documents.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::{SECOND_DB, TASKS, VOTES};
use crate::{Opener, CONTRACT_DB};
use agora_filter::Filter;
use serde_json::json;

pub async fn two_databases_side_by_side(open: Opener) {
    let a = open.open(CONTRACT_DB).await;
    let b = open.open(CONTRACT_DB.named(SECOND_DB)).await;

    // The same key and unique pair in both: no duplicate across databases.
    put(&a, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    put(&b, VOTES, &vote("v-1", "task_a", "agent-1", false)).await;
    put(&b, VOTES, &vote("v-2", "task_a", "agent-2", false)).await;
    assert_eq!(get_value(&a, VOTES, "v-1").await, Some(vote("v-1", "task_a", "agent-1", true)));
    assert_eq!(get_value(&b, VOTES, "v-1").await, Some(vote("v-1", "task_a", "agent-1", false)));
    assert_eq!(get_value(&a, VOTES, "v-2").await, None);
    assert_eq!(find_keys(&a, VOTES, "vote_id", json!({"social_task_id": "task_a"})).await, ["v-1"]);
    assert_eq!(find_keys(&b, VOTES, "vote_id", json!({"social_task_id": "task_a"})).await, ["v-1", "v-2"]);
    assert_eq!(find_keys(&a, VOTES, "vote_id", json!({})).await, ["v-1"]);
    assert_eq!(count(&a, VOTES, json!({"social_task_id": "task_a", "qualified": true}), None).await, 1);
    assert_eq!(count(&b, VOTES, json!({"social_task_id": "task_a", "qualified": true}), None).await, 0);
    assert_eq!(count(&b, VOTES, json!({"vote_data.selected_option": "agent-translator-02"}), None).await, 2);
    assert_duplicate(
        b.insert(vec![(VOTES, agora_store::to_json(&vote("v-3", "task_a", "agent-1", true)))]).await,
        VOTES,
        "social_task_id,submitter_subject_id",
    );

    // A large document (stored in parts by some adapters) under the same key in both.
    let mut big = task("task_big", "complete", &[]);
    big["report_json"] = large_report(2_000);
    put(&a, TASKS, &big).await;
    put(&b, TASKS, &task("task_big", "scheduled", &[])).await;
    assert_eq!(get_value(&a, TASKS, "task_big").await.as_ref(), Some(&big));
    assert_eq!(get_value(&b, TASKS, "task_big").await, Some(task("task_big", "scheduled", &[])));

    // Updates and deletes stay in their database.
    assert!(!b.update(TASKS, "task_a", &Filter::all(), &set(json!({"status": "started"}))).await.expect("update"));
    put(&a, TASKS, &task("task_a", "scheduled", &[])).await;
    assert!(a.update(TASKS, "task_a", &filter(json!({"status": "scheduled"})), &set(json!({"status": "started"}))).await.expect("update"));
    assert_eq!(get_value(&b, TASKS, "task_a").await, None);
    assert!(b.delete(VOTES, "v-1", &Filter::all()).await.expect("delete"));
    assert!(get_value(&a, VOTES, "v-1").await.is_some());
    assert!(!b.delete(TASKS, "task_a", &Filter::all()).await.expect("delete"));
    assert_eq!(find_keys(&a, TASKS, "social_task_id", json!({"status": "started"})).await, ["task_a"]);
    assert!(find_keys(&b, TASKS, "social_task_id", json!({"status": "started"})).await.is_empty());

    // Counters.
    assert_eq!(a.increment("qualified:task_a", 1).await.expect("increment"), 1);
    assert_eq!(b.increment("qualified:task_a", 5).await.expect("increment"), 5);
    assert_eq!(a.increment("qualified:task_a", 0).await.expect("increment"), 1);

    // Opening the first database again shows its documents.
    let again = open.open(CONTRACT_DB).await;
    assert_eq!(find_keys(&again, VOTES, "vote_id", json!({})).await, ["v-1"]);
    assert_eq!(again.increment("qualified:task_a", 0).await.expect("increment"), 1);
}

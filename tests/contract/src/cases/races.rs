//! What must hold when many tasks hit the store at once: one vote per subject, one status
//! change, one claim; and reads that follow a write see it.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::{CLAIMS, TASKS, VOTES};
use crate::SharedStore;
use agora_store::{to_json, StoreError};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::Barrier;

/// How many tasks race.
pub const RACERS: usize = 50;

/// Runs `RACERS` copies of `attempt(i)` on separate tokio tasks, released together.
pub(crate) async fn race<T, F, Fut>(attempt: F) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(RACERS));
    let handles: Vec<_> = (0..RACERS)
        .map(|i| {
            let attempt = attempt(i);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                attempt.await
            })
        })
        .collect();
    let mut out = Vec::with_capacity(RACERS);
    for result in futures::future::join_all(handles).await {
        out.push(result.expect("racer panicked"));
    }
    out
}

/// 50 votes of one subject on one task, different vote ids: one is stored, 49 are duplicates.
pub async fn one_vote_per_subject_under_race(store: SharedStore) {
    let results = race(|i| {
        let store = Arc::clone(&store);
        let doc = to_json(&vote(&format!("v-race-{i:02}"), "task_race", "agent-racer", true));
        async move { store.insert(vec![(VOTES, doc)]).await }
    })
    .await;
    let winners: Vec<usize> = (0..RACERS).filter(|i| results[*i].is_ok()).collect();
    assert_eq!(winners.len(), 1, "exactly one vote is accepted: {results:?}");
    for result in results.into_iter().filter(Result::is_err) {
        assert_duplicate(result, VOTES, "social_task_id,submitter_subject_id");
    }
    let stored = find_keys(&store, VOTES, "vote_id", json!({"social_task_id": "task_race"})).await;
    assert_eq!(stored, [format!("v-race-{:02}", winners[0])]);
}

/// 50 conditional `scheduled → started` updates: exactly one wins.
pub async fn status_change_under_race(store: SharedStore) {
    put(&store, TASKS, &task("task_race", "scheduled", &[])).await;
    let results = race(|i| {
        let store = Arc::clone(&store);
        async move {
            let changes = json!({"status": "started", "started_by": format!("racer-{i}")});
            store.update(TASKS, "task_race", &filter(json!({"status": "scheduled"})), &set(changes)).await
        }
    })
    .await;
    let winners: Vec<usize> = (0..RACERS).filter(|i| results[*i] == Ok(true)).collect();
    assert_eq!(winners.len(), 1, "exactly one update applies: {results:?}");
    assert!(results.iter().all(Result::is_ok), "losers get Ok(false): {results:?}");
    let stored = get_value(&store, TASKS, "task_race").await.expect("stored");
    assert_eq!(stored["status"], "started");
    assert_eq!(stored["started_by"], format!("racer-{}", winners[0]));
}

/// 50 inserts of the same claim: exactly one succeeds, and its owner is stored.
pub async fn claim_under_race(store: SharedStore) {
    let results = race(|i| {
        let store = Arc::clone(&store);
        let doc = to_json(&claim("evaluate:task_x", &format!("racer-{i}")));
        async move { store.insert(vec![(CLAIMS, doc)]).await }
    })
    .await;
    let winners: Vec<usize> = (0..RACERS).filter(|i| results[*i].is_ok()).collect();
    assert_eq!(winners.len(), 1, "exactly one claim is taken: {results:?}");
    for result in results.into_iter().filter(Result::is_err) {
        assert_duplicate(result, CLAIMS, "claim_id");
    }
    let stored = get_value(&store, CLAIMS, "evaluate:task_x").await.expect("stored");
    assert_eq!(stored["owner"], format!("racer-{}", winners[0]));
    // A released claim can be taken again.
    assert!(store.delete(CLAIMS, "evaluate:task_x", &filter(json!({"owner": stored["owner"]}))).await.expect("delete"));
    put(&store, CLAIMS, &claim("evaluate:task_x", "next")).await;
}

/// 50 tasks, each inserting votes and reading right after: every read sees the task's own
/// writes, and the final count is exact.
pub async fn reads_follow_writes_under_concurrency(store: SharedStore) {
    const PER_TASK: usize = 10;
    let results = race(|i| {
        let store = Arc::clone(&store);
        async move {
            for j in 0..PER_TASK {
                let id = format!("v-{i:02}-{j:02}");
                let doc = to_json(&vote(&id, &format!("task_{i:02}"), &format!("agent-{j}"), j % 2 == 0));
                store.insert(vec![(VOTES, doc)]).await?;
                if store.get(VOTES, &id).await?.is_none() {
                    return Err(StoreError::Backend(format!("{id} not visible after insert")));
                }
                let seen = store.count(VOTES, &filter(json!({"social_task_id": format!("task_{i:02}")})), None).await?;
                if seen != j as u64 + 1 {
                    return Err(StoreError::Backend(format!("task_{i:02}: saw {seen} votes after {}", j + 1)));
                }
            }
            Ok::<(), StoreError>(())
        }
    })
    .await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(count(&store, VOTES, json!({}), None).await, (RACERS * PER_TASK) as u64);
    assert_eq!(count(&store, VOTES, json!({"qualified": true}), None).await, (RACERS * PER_TASK / 2) as u64);
}

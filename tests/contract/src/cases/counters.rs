//! Counters: atomic increments beside the collections, invisible to every query.

use crate::check::*;
use crate::spec::all_collections;
use crate::SharedStore;
use serde_json::json;
use std::sync::Arc;
use tokio::sync::Barrier;

/// A counter starts at 0, counts by any step, and counters are independent of each other.
pub async fn increment_counts_from_zero(store: SharedStore) {
    assert_eq!(store.increment("qualified:task_a", 1).await.unwrap(), 1);
    assert_eq!(store.increment("qualified:task_a", 1).await.unwrap(), 2);
    assert_eq!(store.increment("qualified:task_b", 5).await.unwrap(), 5);
    assert_eq!(store.increment("qualified:task_a", -2).await.unwrap(), 0);
    assert_eq!(store.increment("qualified:task_a", 0).await.unwrap(), 0);
    assert_eq!(store.increment("qualified:task_b", 0).await.unwrap(), 5);
    // Counters are in no collection.
    for collection in all_collections() {
        assert_eq!(count(&store, collection, json!({}), None).await, 0, "{collection} holds a counter");
    }
}

/// 50 increments at once: each sees a value of its own, and none is lost.
pub async fn increment_under_race(store: SharedStore) {
    const RACERS: usize = crate::cases::RACERS;
    let barrier = Arc::new(Barrier::new(RACERS));
    let handles: Vec<_> = (0..RACERS)
        .map(|_| {
            let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                store.increment("qualified:task_race", 1).await
            })
        })
        .collect();
    let mut seen: Vec<i64> = Vec::new();
    for h in futures::future::join_all(handles).await {
        seen.push(h.expect("racer panicked").expect("increment"));
    }
    seen.sort_unstable();
    assert_eq!(seen, (1..=RACERS as i64).collect::<Vec<_>>());
    assert_eq!(store.increment("qualified:task_race", 0).await.unwrap(), RACERS as i64);
}

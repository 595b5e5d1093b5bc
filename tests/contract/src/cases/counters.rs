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
    assert_eq!(store.counter("qualified:task_b").await.unwrap(), 5);
    assert_eq!(store.counter("qualified:task_a").await.unwrap(), 0);
    assert_eq!(store.counter("qualified:never_raised").await.unwrap(), 0);
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

/// A counted insert stores its documents and raises the counter in one write: within the limit
/// both happen, at the limit neither, and a duplicate (reported before a full counter) changes
/// neither.
pub async fn insert_counted_stores_and_counts(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::Counted;
    let counted = |id: &str, subject: &str| vec![(VOTES, agora_store::to_json(&vote(id, "task_c", subject, true)))];
    for (i, n) in [(1, 1), (2, 2), (3, 3)] {
        let got = store.insert_counted(counted(&format!("v{i}"), &format!("s{i}")), "places:task_c", Some(3)).await.unwrap();
        assert_eq!(got, Counted::Stored(n));
    }
    assert_eq!(store.insert_counted(counted("v4", "s4"), "places:task_c", Some(3)).await.unwrap(), Counted::Full);
    assert!(get_value(&store, VOTES, "v4").await.is_none(), "a vote refused for a full counter is not stored");
    assert_eq!(store.counter("places:task_c").await.unwrap(), 3);
    // A duplicate at the limit is a duplicate, and changes nothing.
    assert_duplicate(store.insert_counted(counted("v1", "s1b"), "places:task_c", Some(3)).await, VOTES, "vote_id");
    assert_duplicate(
        store.insert_counted(counted("v9", "s2"), "places:task_c", Some(3)).await,
        VOTES,
        "social_task_id,submitter_subject_id",
    );
    // Below the limit too: the counter stays.
    assert_duplicate(store.insert_counted(counted("v1", "s1b"), "places:task_c", Some(10)).await, VOTES, "vote_id");
    assert_eq!(store.increment("places:task_c", 0).await.unwrap(), 3);
    // Without a limit the counter keeps counting; several documents count once.
    let two = vec![
        (VOTES, agora_store::to_json(&vote("v5", "task_d", "s5", true))),
        (VOTES, agora_store::to_json(&vote("v6", "task_d", "s6", true))),
    ];
    assert_eq!(store.insert_counted(two, "places:task_d", None).await.unwrap(), Counted::Stored(1));
    assert_eq!(store.insert_counted(counted("v7", "s7"), "places:task_c", None).await.unwrap(), Counted::Stored(4));
    assert_eq!(count(&store, VOTES, json!({}), None).await, 6);
    // A limit of 0 admits nothing; a counter below the limit set by `increment` is honoured.
    assert_eq!(store.insert_counted(counted("v8", "s8"), "places:task_e", Some(0)).await.unwrap(), Counted::Full);
    store.increment("places:task_f", 2).await.unwrap();
    assert_eq!(store.insert_counted(counted("v8", "s8"), "places:task_f", Some(2)).await.unwrap(), Counted::Full);
    assert_eq!(store.insert_counted(counted("v8", "s8"), "places:task_f", Some(3)).await.unwrap(), Counted::Stored(3));
}

/// 50 counted inserts at once against a limit of 20: exactly 20 documents are stored and
/// counted, the rest refused as full, and the counter ends at 20.
pub async fn insert_counted_under_race(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::Counted;
    const RACERS: usize = crate::cases::RACERS;
    const LIMIT: i64 = 20;
    let barrier = Arc::new(Barrier::new(RACERS));
    let handles: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
            tokio::spawn(async move {
                let doc = agora_store::to_json(&vote(&format!("race-{i}"), "task_r", &format!("subject-{i}"), true));
                barrier.wait().await;
                store.insert_counted(vec![(VOTES, doc)], "places:task_r", Some(LIMIT)).await
            })
        })
        .collect();
    let mut stored: Vec<i64> = Vec::new();
    let mut full = 0;
    for h in futures::future::join_all(handles).await {
        match h.expect("racer panicked").expect("insert_counted") {
            Counted::Stored(n) => stored.push(n),
            Counted::Full => full += 1,
        }
    }
    assert_eq!(stored.len() as i64, LIMIT, "{full} refused");
    assert!(stored.iter().all(|n| (1..=LIMIT).contains(n)), "values out of range: {stored:?}");
    assert_eq!(stored.iter().max(), Some(&LIMIT));
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "task_r"}), None).await, LIMIT as u64);
    assert_eq!(store.increment("places:task_r", 0).await.unwrap(), LIMIT);
}

/// 50 counted inserts at once on a counter that does not exist yet, under no limit and under a
/// limit above them: every one is stored and counted, none refused as full (a
/// racer that saw no counter must not take a concurrently created one for a full one).
pub async fn insert_counted_on_a_new_counter_under_race(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::Counted;
    const RACERS: usize = crate::cases::RACERS;
    for (round, limit) in [None, Some(RACERS as i64 + 5)].into_iter().enumerate() {
        let (task, counter) = (format!("task_new_{round}"), format!("places:task_new_{round}"));
        let barrier = Arc::new(Barrier::new(RACERS));
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, barrier, task, counter) = (Arc::clone(&store), Arc::clone(&barrier), task.clone(), counter.clone());
                tokio::spawn(async move {
                    let doc = agora_store::to_json(&vote(&format!("new-{round}-{i}"), &task, &format!("subject-{i}"), true));
                    barrier.wait().await;
                    store.insert_counted(vec![(VOTES, doc)], &counter, limit).await
                })
            })
            .collect();
        let mut stored: Vec<i64> = Vec::new();
        for h in futures::future::join_all(handles).await {
            match h.expect("racer panicked").expect("insert_counted") {
                Counted::Stored(n) => stored.push(n),
                Counted::Full => panic!("refused as full under limit {limit:?}"),
            }
        }
        // Each its own count, except on DynamoDB, whose count is read right after the commit.
        assert_eq!(stored.len(), RACERS, "limit {limit:?}");
        assert!(stored.iter().all(|n| (1..=RACERS as i64).contains(n)), "values out of range: {stored:?}");
        assert_eq!(stored.iter().max(), Some(&(RACERS as i64)));
        assert_eq!(store.counter(&counter).await.unwrap(), RACERS as i64);
    }
}

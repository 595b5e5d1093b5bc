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

/// A counted delete removes the document and lowers the counter in one write: a missing
/// document (reported before a full counter) and a full counter change neither.
pub async fn delete_counted_deletes_and_counts_down(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::{Counted, Uncounted};
    const COUNTER: &str = "places:task_k";
    let counted = |id: &str, subject: &str| vec![(VOTES, agora_store::to_json(&vote(id, "task_k", subject, true)))];
    for i in 1..=3 {
        let got = store.insert_counted(counted(&format!("v{i}"), &format!("s{i}")), COUNTER, Some(3)).await.unwrap();
        assert_eq!(got, Counted::Stored(i));
    }
    assert_eq!(store.delete_counted(VOTES, "v2", COUNTER, None).await.unwrap(), Uncounted::Deleted(2));
    assert!(get_value(&store, VOTES, "v2").await.is_none(), "a counted delete deletes");
    // Missing: nothing to delete, the counter stays.
    assert_eq!(store.delete_counted(VOTES, "v2", COUNTER, None).await.unwrap(), Uncounted::Missing);
    assert_eq!(store.delete_counted(VOTES, "nobody", COUNTER, Some(10)).await.unwrap(), Uncounted::Missing);
    assert_eq!(store.counter(COUNTER).await.unwrap(), 2);
    // Full: at the limit, the document and the counter stay; a missing document is missing.
    assert_eq!(store.insert_counted(counted("v4", "s4"), COUNTER, Some(3)).await.unwrap(), Counted::Stored(3));
    assert_eq!(store.delete_counted(VOTES, "v1", COUNTER, Some(3)).await.unwrap(), Uncounted::Full);
    assert_eq!(store.delete_counted(VOTES, "v1", COUNTER, Some(2)).await.unwrap(), Uncounted::Full);
    assert!(get_value(&store, VOTES, "v1").await.is_some(), "a delete refused for a full counter deletes nothing");
    assert_eq!(store.delete_counted(VOTES, "v2", COUNTER, Some(3)).await.unwrap(), Uncounted::Missing);
    assert_eq!(store.counter(COUNTER).await.unwrap(), 3);
    // Below the limit it deletes.
    assert_eq!(store.delete_counted(VOTES, "v1", COUNTER, Some(4)).await.unwrap(), Uncounted::Deleted(2));
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "task_k"}), None).await, 2);
    assert_eq!(store.counter(COUNTER).await.unwrap(), 2);
    // Another collection's document, and an unknown collection.
    assert_eq!(store.delete_counted(crate::spec::TASKS, "v3", COUNTER, None).await.unwrap(), Uncounted::Missing);
    assert_unknown(store.delete_counted("no_such_collection", "v3", COUNTER, None).await, "no_such_collection");
    assert_eq!(store.counter(COUNTER).await.unwrap(), 2);
    // A counter never raised counts down from 0, as `increment` does.
    put(&store, VOTES, &vote("v9", "task_l", "s9", true)).await;
    assert_eq!(store.delete_counted(VOTES, "v9", "places:task_l", None).await.unwrap(), Uncounted::Deleted(-1));
}

/// A counted delete frees the document's key and unique values, also of a document of a few
/// hundred kB (stored in parts where items are small).
pub async fn delete_counted_frees_unique_values(store: SharedStore) {
    use crate::fixtures::{large_report, vote};
    use crate::spec::VOTES;
    use agora_store::{Counted, Uncounted};
    const COUNTER: &str = "places:task_u";
    let mut large = vote("v1", "task_u", "agent-1", true);
    large["vote_data"] = large_report(3_000);
    assert!(serde_json::to_string(&large).expect("serializes").len() > 700_000);
    let small = |id: &str| vec![(VOTES, agora_store::to_json(&vote(id, "task_u", "agent-1", true)))];
    assert_eq!(store.insert_counted(vec![(VOTES, agora_store::to_json(&large))], COUNTER, Some(1)).await.unwrap(), Counted::Stored(1));
    assert_duplicate(store.insert_counted(small("v2"), COUNTER, None).await, VOTES, "social_task_id,submitter_subject_id");
    assert_eq!(store.delete_counted(VOTES, "v1", COUNTER, Some(1)).await.unwrap(), Uncounted::Full);
    assert_eq!(get_value(&store, VOTES, "v1").await, Some(large.clone()), "a refused delete leaves the document whole");
    assert_eq!(store.delete_counted(VOTES, "v1", COUNTER, Some(2)).await.unwrap(), Uncounted::Deleted(0));
    assert!(get_value(&store, VOTES, "v1").await.is_none());
    // The unique pair and the key are free again.
    assert_eq!(store.insert_counted(small("v2"), COUNTER, Some(1)).await.unwrap(), Counted::Stored(1));
    assert_eq!(store.delete_counted(VOTES, "v2", COUNTER, Some(2)).await.unwrap(), Uncounted::Deleted(0));
    assert_eq!(store.insert_counted(vec![(VOTES, agora_store::to_json(&large))], COUNTER, Some(1)).await.unwrap(), Counted::Stored(1));
    assert_eq!(get_value(&store, VOTES, "v1").await, Some(large));
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({})).await, ["v1"]);
}

/// A counter fenced past its limit (a closed job: raised by [`FENCE`]) refuses counted
/// deletes under that limit as full, and keeps its documents.
pub async fn delete_counted_behind_a_fence(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::{Counted, Uncounted};
    const COUNTER: &str = "bids:job_f";
    let counted = |id: &str, subject: &str| vec![(VOTES, agora_store::to_json(&vote(id, "job_f", subject, true)))];
    assert_eq!(store.insert_counted(counted("b1", "s1"), COUNTER, Some(5)).await.unwrap(), Counted::Stored(1));
    assert_eq!(store.insert_counted(counted("b2", "s2"), COUNTER, Some(FENCE)).await.unwrap(), Counted::Stored(2));
    assert_eq!(store.delete_counted(VOTES, "b2", COUNTER, Some(FENCE)).await.unwrap(), Uncounted::Deleted(1));
    assert_eq!(store.increment(COUNTER, FENCE).await.unwrap(), FENCE + 1);
    assert_eq!(store.delete_counted(VOTES, "b1", COUNTER, Some(FENCE)).await.unwrap(), Uncounted::Full);
    assert_eq!(store.delete_counted(VOTES, "b2", COUNTER, Some(FENCE)).await.unwrap(), Uncounted::Missing);
    assert_eq!(store.insert_counted(counted("b3", "s3"), COUNTER, Some(FENCE)).await.unwrap(), Counted::Full);
    assert!(get_value(&store, VOTES, "b1").await.is_some(), "a fenced counter keeps its documents");
    assert_eq!(store.counter(COUNTER).await.unwrap(), FENCE + 1);
}

/// What closes a counter in [`delete_counted_behind_a_fence`]: far above any real limit.
const FENCE: i64 = 1 << 40;

/// 20 counted inserts and 3 counted deletes of one counter at once, its limit 5 and 3 documents
/// stored: whatever wins, the counter ends equal to the number of documents, within the limit.
/// Deletes under a limit the counter may reach can be refused as full; under the fence they
/// never are.
pub async fn delete_counted_under_race(store: SharedStore) {
    use crate::fixtures::vote;
    use crate::spec::VOTES;
    use agora_store::{Counted, Uncounted};
    const INSERTS: usize = 20;
    const LIMIT: i64 = 5;
    for (round, delete_limit) in [LIMIT, FENCE].into_iter().enumerate() {
        let (task, counter) = (format!("task_dr_{round}"), format!("places:task_dr_{round}"));
        let doc = |i: usize| agora_store::to_json(&vote(&format!("dr-{round}-{i}"), &task, &format!("subject-{i}"), true));
        for i in 0..3 {
            let got = store.insert_counted(vec![(VOTES, doc(i))], &counter, Some(LIMIT)).await.unwrap();
            assert_eq!(got, Counted::Stored(i as i64 + 1));
        }
        let barrier = Arc::new(Barrier::new(INSERTS + 3));
        let inserts: Vec<_> = (3..3 + INSERTS)
            .map(|i| {
                let (store, barrier, counter, doc) = (Arc::clone(&store), Arc::clone(&barrier), counter.clone(), doc(i));
                tokio::spawn(async move {
                    barrier.wait().await;
                    store.insert_counted(vec![(VOTES, doc)], &counter, Some(LIMIT)).await
                })
            })
            .collect();
        let deletes: Vec<_> = (0..3)
            .map(|i| {
                let (store, barrier, counter) = (Arc::clone(&store), Arc::clone(&barrier), counter.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    store.delete_counted(VOTES, &format!("dr-{round}-{i}"), &counter, Some(delete_limit)).await
                })
            })
            .collect();
        let mut stored = 0;
        for h in futures::future::join_all(inserts).await {
            match h.expect("racer panicked").expect("insert_counted") {
                Counted::Stored(n) => {
                    assert!((1..=LIMIT).contains(&n), "stored as {n}");
                    stored += 1;
                }
                Counted::Full => {}
            }
        }
        let mut deleted = 0;
        for (i, h) in futures::future::join_all(deletes).await.into_iter().enumerate() {
            let kept = get_value(&store, VOTES, &format!("dr-{round}-{i}")).await.is_some();
            match h.expect("racer panicked").expect("delete_counted") {
                Uncounted::Deleted(n) => {
                    assert!(!kept && (0..=LIMIT).contains(&n), "deleted as {n}, kept {kept}");
                    deleted += 1;
                }
                Uncounted::Full => assert!(kept && delete_limit == LIMIT, "refused as full under {delete_limit}, kept {kept}"),
                Uncounted::Missing => panic!("dr-{round}-{i} was missing"),
            }
        }
        let docs = count(&store, VOTES, json!({"social_task_id": task}), None).await;
        let now = store.counter(&counter).await.unwrap();
        assert_eq!(now, 3 + stored - deleted, "{stored} stored, {deleted} deleted");
        assert_eq!(docs, now as u64, "the counter counts the documents");
        assert!(now <= LIMIT, "{now} over the limit");
        assert!(stored >= 2, "the two free places were taken ({stored} stored)");
    }
}

//! Sharded counters (`agora_store::sharded`) on every adapter: built on `insert_counted` and
//! `delete_counted` alone, they must keep their exact limits under a race of hundreds of writers
//! spread over their shards, and let at least one write see the limit reached.

use crate::check::*;
use crate::fixtures::vote;
use crate::spec::VOTES;
use crate::SharedStore;
use agora_store::sharded::{ShardCounted, ShardedCounter};
use agora_store::{to_json, StoreError, Uncounted};
use serde_json::json;
use std::sync::Arc;
use tokio::sync::Barrier;

/// How many writers race on one sharded counter.
pub const SHARDED_RACERS: usize = 200;

/// Runs `attempt(i)` for each `i` of `racers` on separate tokio tasks, released together.
async fn race_all<F, Fut>(racers: impl ExactSizeIterator<Item = usize>, attempt: F) -> Vec<Result<ShardCounted, StoreError>>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Result<ShardCounted, StoreError>> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(racers.len()));
    let handles: Vec<_> = racers
        .map(|i| {
            let (attempt, barrier) = (attempt(i), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                attempt.await
            })
        })
        .collect();
    futures::future::join_all(handles).await.into_iter().map(|h| h.expect("racer panicked")).collect()
}

/// The counted insert of a vote of `subject` on `task`, spread by its subject.
fn insert_vote(
    store: &SharedStore,
    counter: &ShardedCounter,
    task: &str,
    vote_id: &str,
    subject: &str,
) -> impl std::future::Future<Output = Result<ShardCounted, StoreError>> + Send + 'static {
    let (store, counter, subject) = (Arc::clone(store), counter.clone(), subject.to_owned());
    let doc = to_json(&vote(vote_id, task, &subject, true));
    async move { counter.insert(store.as_ref(), &subject, vec![(VOTES, doc)]).await }
}

/// 200 writers at once on a counter of 150 places over 3 shards: exactly 150 documents are
/// stored, the other 50 refused as full, each shard ends at its share, and the writes that
/// report a total are those that filled a shard, at least one of them reporting 150 (more may:
/// the caller's action on it must be idempotent).
pub async fn sharded_count_under_race(store: SharedStore) {
    const LIMIT: i64 = 150;
    let counter = ShardedCounter::places("places:sharded_r", LIMIT);
    assert_eq!(counter.shards(), 3);
    let results =
        race_all(0..SHARDED_RACERS, |i| insert_vote(&store, &counter, "sharded_r", &format!("sr-{i}"), &format!("subject-{i}"))).await;
    let (mut stored, mut full, mut totals, mut a_stored) = (0, 0, Vec::new(), None);
    for (i, result) in results.into_iter().enumerate() {
        match result.expect("sharded insert") {
            ShardCounted::Stored { shard, value, total } => {
                stored += 1;
                a_stored = Some(i);
                let limit = counter.shard_limit(shard).expect("limited");
                assert!((1..=limit).contains(&value), "shard {shard} at {value} of {limit}");
                assert_eq!(total.is_some(), value == limit, "a total is read exactly by a write that saw its shard full");
                totals.extend(total);
            }
            ShardCounted::Full => full += 1,
        }
    }
    assert_eq!((stored, full), (LIMIT as usize, SHARDED_RACERS - LIMIT as usize));
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "sharded_r"}), None).await, LIMIT as u64);
    let values = counter.values(store.as_ref()).await.unwrap();
    assert_eq!(values, (0..3).map(|i| counter.shard_limit(i).unwrap()).collect::<Vec<_>>());
    assert_eq!(counter.total(store.as_ref()).await.unwrap(), LIMIT);
    assert!(totals.len() >= counter.shards(), "each shard is filled by a write that reads the others: {totals:?}");
    assert!(totals.iter().all(|t| (1..=LIMIT).contains(t)), "{totals:?}");
    assert!(totals.contains(&LIMIT), "no write saw the limit reached: {totals:?}");
    // Full stays full, and a duplicate is reported before a full shard.
    assert_eq!(insert_vote(&store, &counter, "sharded_r", "sr-late", "subject-late").await.unwrap(), ShardCounted::Full);
    let stored_id = format!("sr-{}", a_stored.expect("some stored"));
    assert_duplicate(insert_vote(&store, &counter, "sharded_r", &stored_id, "subject-new").await, VOTES, "vote_id");
}

/// A counter of 3 places is one shard, the plain counter of its name: it counts, refuses the
/// fourth and reports its total as `insert_counted` would.
pub async fn sharded_small_count_is_the_plain_counter(store: SharedStore) {
    let counter = ShardedCounter::places("places:sharded_s", 3);
    assert_eq!((counter.shards(), counter.shard_name(0).as_str()), (1, "places:sharded_s"));
    for i in 1..=3 {
        let got = insert_vote(&store, &counter, "sharded_s", &format!("ss-{i}"), &format!("s{i}")).await.unwrap();
        let total = (i == 3).then_some(3);
        assert_eq!(got, ShardCounted::Stored { shard: 0, value: i, total });
    }
    assert_eq!(insert_vote(&store, &counter, "sharded_s", "ss-4", "s4").await.unwrap(), ShardCounted::Full);
    assert_eq!(store.counter("places:sharded_s").await.unwrap(), 3);
}

/// A members counter of 100 members (2 shards, each as large as its members): every member
/// voting at once, each twice under two vote ids, stores one vote per member; the counter is
/// full exactly then, and at least one write reports 100. In turn, only the last member's write
/// reports it.
pub async fn sharded_members_fill_when_every_member_inserted(store: SharedStore) {
    const MEMBERS: usize = 100;
    let members: Vec<String> = (0..MEMBERS).map(|i| format!("member-{i:03}")).collect();
    let counter = ShardedCounter::members("members:sharded_m", members.iter().map(String::as_str));
    assert_eq!((counter.shards(), counter.limit()), (2, Some(MEMBERS as i64)));
    let racers = 0..2 * MEMBERS;
    let results = race_all(racers, |i| insert_vote(&store, &counter, "sharded_m", &format!("sm-{i}"), &members[i % MEMBERS])).await;
    let (mut stored, mut totals) = (0, Vec::new());
    for (i, result) in results.into_iter().enumerate() {
        match result {
            Ok(ShardCounted::Stored { shard, total, .. }) => {
                assert_eq!(shard, counter.shard_for(&members[i % MEMBERS]), "a member is counted in its own shard");
                stored += 1;
                totals.extend(total);
            }
            Ok(ShardCounted::Full) => panic!("a member's place was taken"),
            Err(e) => assert_duplicate::<()>(Err(e), VOTES, "social_task_id,submitter_subject_id"),
        }
    }
    assert_eq!(stored, MEMBERS);
    assert!(totals.contains(&(MEMBERS as i64)), "no write saw every member counted: {totals:?}");
    assert_eq!(counter.values(store.as_ref()).await.unwrap(), [counter.shard_limit(0).unwrap(), counter.shard_limit(1).unwrap()]);
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "sharded_m"}), None).await, MEMBERS as u64);

    // In turn: the counter reaches its limit at the last member's write, and only there.
    let counter = ShardedCounter::members("members:sharded_t", members.iter().map(String::as_str));
    for (i, m) in members.iter().enumerate() {
        let ShardCounted::Stored { total, .. } = insert_vote(&store, &counter, "sharded_t", &format!("st-{i}"), m).await.unwrap() else {
            panic!("member {m} refused")
        };
        assert_eq!(total == Some(MEMBERS as i64), i == MEMBERS - 1, "member {i}: {total:?}");
    }
}

/// A fence raises every shard past its limit: nothing more is counted in, nor deleted from the
/// shard a document was counted in under the fence's limit; below it, a delete lowers that shard.
pub async fn sharded_fence_and_delete(store: SharedStore) {
    const FENCE: i64 = 1 << 40;
    let counter = ShardedCounter::places("places:sharded_f", 200);
    let mut shards = Vec::new();
    for i in 0..10 {
        let ShardCounted::Stored { shard, .. } =
            insert_vote(&store, &counter, "sharded_f", &format!("sf-{i}"), &format!("s{i}")).await.unwrap()
        else {
            panic!("refused")
        };
        shards.push(shard);
    }
    let before = counter.values(store.as_ref()).await.unwrap();
    let Uncounted::Deleted(after) = counter.delete(store.as_ref(), VOTES, "sf-0", shards[0], Some(FENCE)).await.unwrap() else {
        panic!("not deleted")
    };
    assert_eq!(after, before[shards[0]] - 1);
    assert_eq!(counter.total(store.as_ref()).await.unwrap(), 9);
    let fenced = counter.increment_all(store.as_ref(), FENCE).await.unwrap();
    assert!(fenced.iter().all(|v| *v >= FENCE));
    assert_eq!(insert_vote(&store, &counter, "sharded_f", "sf-late", "s-late").await.unwrap(), ShardCounted::Full);
    assert_eq!(counter.delete(store.as_ref(), VOTES, "sf-1", shards[1], Some(FENCE)).await.unwrap(), Uncounted::Full);
    assert_eq!(count(&store, VOTES, json!({"social_task_id": "sharded_f"}), None).await, 9);
}

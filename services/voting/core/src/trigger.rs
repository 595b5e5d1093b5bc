//! The evaluation trigger (§1.3), shared by the vote path that first finds it holding and the
//! repair sweep that finds it held with no evaluation under way.
//!
//! Each task's stored qualified votes are counted by the sharded counter [`qualified_counter`]
//! (`agora_store::sharded`): each qualified vote raises one shard in the same atomic write that
//! stores it (`DocumentStore::insert_counted`), so the sum of the shards is exactly the number
//! of qualified votes stored, and no one counter takes every vote of a popular task.
//! - A **public** task's places are its `duration`, split over the shards (one shard up to 64
//!   places, as many as 16 for a large task): the store refuses the `duration + 1`-th
//!   qualified vote. A vote starts at the shard its voter hashes to and moves on to another
//!   when that one is full.
//! - A **private** task's places are its members: each member is counted in the shard its id
//!   hashes to, whose limit is the number of members there, so the shards are all full exactly
//!   when every member has voted.
//! - A task of another type never triggers: one shard, no limit (as before).
//!
//! A vote whose write fills its shard reads the other shards and so learns the task's count;
//! the others learn nothing and cost what they did with one counter. The last shard-filling
//! write to commit sees the threshold reached, but two filling two shards at once may both see
//! it (on DynamoDB even two votes filling one shard, as it reads its count back after the
//! commit). So the trigger is idempotent, not once-only: each such vote queues the evaluation
//! and records the request in the trigger claim (the second finds it held); the evaluator
//! completes a task once under its own claim (`evaluate:<id>`, and a conditional `complete`
//! write), and answers a second request `AlreadyComplete` or `InProgress`. A task with one shard
//! (up to 64 places or members) still has exactly one vote that fills it, except on DynamoDB
//! as above. The repair sweep and a retried vote read the count as the sum of the shards.
//!
//! Two claims record where a task's evaluation stands:
//! - [`trigger_claim`] `trigger:<id>`: the record of the evaluation request. The vote whose
//!   write reaches the threshold queues the request, then records it with the long
//!   [`TriggerLeases::request`] lease; a retry or the repair sweep claims it first with the short
//!   [`TriggerLeases::claim`] lease, then queues and settles it to the long one. Expired means
//!   the requester died before the queue took it, or the queue has had it for a day.
//! - `evaluate:<id>`: held by the evaluator while it works, its short lease renewed as it goes.
//!   Held and expired means the evaluator died mid-work.

use agora_store::sharded::ShardedCounter;
use agora_voting_schema::SocialTaskCoreData;

/// The leases of a task's trigger claim (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct TriggerLeases {
    /// While a request is claimed and not yet queued.
    pub claim: chrono::Duration,
    /// Once the queue has it.
    pub request: chrono::Duration,
}
use std::collections::BTreeSet;

/// The claim of the evaluation request (see the module docs).
pub fn trigger_claim(task_id: &str) -> String {
    format!("trigger:{task_id}")
}

/// The claim the evaluator holds while it works.
pub fn evaluate_claim(task_id: &str) -> String {
    format!("evaluate:{task_id}")
}

/// The sharded counter of a task's stored qualified votes (see the module docs); its first
/// shard is the one counter `qualified:<id>` of before, so a one-shard task is counted as it
/// was.
pub fn qualified_counter(task: &SocialTaskCoreData) -> ShardedCounter {
    let name = format!("qualified:{}", task.social_task_id);
    if task.is_private() {
        ShardedCounter::members(name, task.org_ids.iter().map(String::as_str))
    } else if let Some(places) = places(task) {
        ShardedCounter::places(name, places)
    } else {
        ShardedCounter::unlimited(name, 1)
    }
}

/// How many qualified votes make the trigger hold (§1.3): every distinct voter of a private task
/// (only they can vote, once each), `duration` (default 5) of a public one; `None` never.
pub fn threshold(task: &SocialTaskCoreData) -> Option<u64> {
    if task.is_private() {
        let voters = distinct_voters(task).len() as u64;
        (voters > 0).then_some(voters)
    } else if task.is_public() {
        Some(task.trigger_count().max(1) as u64)
    } else {
        None
    }
}

/// The most qualified votes a task stores: `duration` for a public task, no limit otherwise (a
/// private task's members vote once each).
pub fn places(task: &SocialTaskCoreData) -> Option<i64> {
    task.is_public().then(|| task.trigger_count().max(1))
}

/// A private task's voters, each once.
pub fn distinct_voters(task: &SocialTaskCoreData) -> Vec<String> {
    task.org_ids.iter().collect::<BTreeSet<_>>().into_iter().cloned().collect()
}

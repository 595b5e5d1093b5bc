//! The evaluation trigger (§1.3), shared by the vote path that first finds it holding and the
//! repair sweep that finds it held with no evaluation under way.
//!
//! Each task's stored qualified votes are counted by the counter [`qualified_counter`], raised
//! in the same atomic write as each qualified vote (`DocumentStore::insert_counted`), so it is
//! exactly the number of qualified votes stored. For a public task it is also the places: at
//! most `duration` qualified votes are stored.
//!
//! Two claims record where a task's evaluation stands:
//! - [`trigger_claim`] `trigger:<id>`: the record of the evaluation request. The vote whose
//!   write reaches the threshold queues the request, then records it with the long
//!   [`TriggerLeases::request`] lease; a retry or the repair sweep claims it first with the short
//!   [`TriggerLeases::claim`] lease, then queues and settles it to the long one. Expired means
//!   the requester died before the queue took it, or the queue has had it for a day.
//! - `evaluate:<id>`: held by the evaluator while it works, its short lease renewed as it goes.
//!   Held and expired means the evaluator died mid-work.

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

/// The counter of a task's stored qualified votes.
pub fn qualified_counter(task_id: &str) -> String {
    format!("qualified:{task_id}")
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

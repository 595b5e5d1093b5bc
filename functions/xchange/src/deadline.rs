//! `xchange-deadline`: a bidding task's deadline timer `xchange-bidding-<task_id>` at its bidding
//! time limit (body `{"task_id": "..."}`; see `agora_aws::timers`), from the deadline timer queue
//! or, for a limit more than 15 minutes ahead, from its one-shot EventBridge Scheduler schedule a
//! minute or more early (which sends it back to the timer queue for the rest of its wait). It
//! looks at the task's bid job once more: a job with an outcome settles the task with it; a job
//! with none fails the task, naming `AGORA_BIDDING_TIMEOUT_MS`. A task no longer bidding is left
//! as it is, so a timer that fires twice, or after the outcome, changes nothing.

use agora_aws::{Arrival, TimerTarget, Timers};
use agora_xchange_core::messages::parse_deadline;
use agora_xchange_core::ports::WorkOutcome;
use agora_xchange_core::{Bidder, Settle, XchangeError};
use async_trait::async_trait;
use serde_json::{json, Value};

/// Handles one invocation other than the timer queue's; returns a summary for the invocation
/// result. An event that names no task is answered with the reason and no retry (retrying cannot
/// mend it).
pub async fn handle(bidder: &Bidder, timers: &Timers, event: &Value) -> Result<Value, XchangeError> {
    let event = match timers.arrive(event).await {
        Arrival::Due(event) => event,
        Arrival::Deferred { name, due } => return Ok(json!({"deferred": name, "due": due})),
        Arrival::Failed(reason) => return Err(XchangeError::internal(reason)),
    };
    settle(bidder, &event).await
}

/// Settles the task a deadline's body names.
async fn settle(bidder: &Bidder, event: &Value) -> Result<Value, XchangeError> {
    let task_id = match parse_deadline(event) {
        Ok(id) => id,
        Err(reason) => {
            tracing::error!(%reason, "deadline event dropped");
            return Ok(json!({"ignored": reason}));
        }
    };
    let settle = bidder.settle(&task_id).await?;
    let outcome = match settle {
        Settle::Settled => "settled",
        Settle::Waiting { .. } => "waiting",
        Settle::NotBidding => "not_bidding",
    };
    tracing::info!(%task_id, outcome, "bidding deadline handled");
    Ok(json!({"task_id": task_id, "outcome": outcome}))
}

/// The deadline timer queue's work (`agora_aws::TimerQueueWork`): settles the task a due timer
/// names; a store error is retried.
pub struct DueDeadline(pub Bidder);

#[async_trait]
impl TimerTarget for DueDeadline {
    async fn due(&self, body: &Value) -> WorkOutcome {
        match settle(&self.0, body).await {
            Ok(_) => WorkOutcome::Done,
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

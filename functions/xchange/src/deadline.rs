//! `xchange-deadline`: fired by a bidding task's one-shot EventBridge Scheduler schedule
//! `xchange-bidding-<task_id>` at its bidding time limit (input `{"task_id": "..."}`). It looks
//! at the task's bid job once more: a job with an outcome settles the task with it; a job with
//! none fails the task, naming `AGORA_BIDDING_TIMEOUT_MS`. A task no longer bidding is left as
//! it is, so a schedule that fires twice, or after the outcome, changes nothing.

use agora_xchange_core::work::parse_deadline;
use agora_xchange_core::{Bidder, Settle, XchangeError};
use serde_json::{json, Value};

/// Handles one schedule invocation; returns a summary for the invocation result. An event that
/// names no task is answered with the reason and no retry (retrying cannot mend it).
pub async fn handle(bidder: &Bidder, event: &Value) -> Result<Value, XchangeError> {
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

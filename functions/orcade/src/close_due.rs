//! `orcade-close-due`: fed by the close timer queue (an open job's close timer `close-<bid_job_id>`
//! at its `bid_job_closes_at`, whose body is `{"bid_job_id": "..."}`,
//! `agora_orcade_core::messages::close_request`; see `agora_aws::timers`), fired by the job's
//! one-shot EventBridge Scheduler schedule (the same timer, a minute or more early for a close more
//! than 15 minutes ahead: it goes back to the timer queue for the rest of its wait) and by the
//! `rate(1 minute)` sweep rule (a scheduled event). A timer closes its job if it is due; the sweep
//! closes every due open job whose timer did not, then runs the repair sweep (jobs whose bids
//! closed them but that are still open, and closed jobs whose evaluation is neither applied, under
//! way nor queued). Each job is closed once, whichever comes first.

use agora_aws::{Arrival, TimerTarget, Timers};
use agora_orcade_core::ports::WorkOutcome;
use agora_orcade_core::{Closer, OrcadeError, Repairer};
use async_trait::async_trait;
use serde_json::{json, Value};

/// What an invocation of `orcade-close-due` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseRequest {
    /// Close this job if it is due (its one-shot schedule's input).
    Job(String),
    /// Close every due job and repair stalled ones (the periodic sweep, or any other event).
    Sweep,
}

/// Reads an invocation event: `{"bid_job_id": "..."}` is [`CloseRequest::Job`]; an EventBridge
/// scheduled event (`"detail-type": "Scheduled Event"`) or anything else is
/// [`CloseRequest::Sweep`].
pub fn parse_close_event(v: &Value) -> CloseRequest {
    if v.get("detail-type").and_then(Value::as_str) == Some("Scheduled Event") {
        return CloseRequest::Sweep;
    }
    match v.get("bid_job_id").and_then(Value::as_str).map(str::trim) {
        Some(id) if !id.is_empty() => CloseRequest::Job(id.to_owned()),
        _ => CloseRequest::Sweep,
    }
}

/// Handles one event other than the timer queue's; returns a summary for the invocation result.
pub async fn handle(closer: &Closer, repairer: &Repairer, timers: &Timers, event: &Value) -> Result<Value, OrcadeError> {
    let event = match timers.arrive(event).await {
        Arrival::Due(event) => event,
        Arrival::Deferred { name, due } => return Ok(json!({"deferred": name, "due": due})),
        Arrival::Failed(reason) => return Err(OrcadeError::internal(reason)),
    };
    match parse_close_event(&event) {
        CloseRequest::Job(id) => {
            let closed = closer.close_job_if_due(&id).await?;
            Ok(json!({ "closed": if closed { vec![id] } else { vec![] } }))
        }
        CloseRequest::Sweep => {
            let closed = closer.close_due_jobs().await?;
            let repaired = repairer.repair_stalled_jobs().await?;
            Ok(json!({
                "closed": closed,
                "repaired": repaired.iter().map(|(id, stall)| json!({"bid_job_id": id, "stall": format!("{stall:?}")})).collect::<Vec<_>>(),
            }))
        }
    }
}

/// The close timer queue's work (`agora_aws::TimerQueueWork`): closes the job a due timer names,
/// if it is due; a store error is retried.
pub struct DueClose(pub Closer);

#[async_trait]
impl TimerTarget for DueClose {
    async fn due(&self, body: &Value) -> WorkOutcome {
        let CloseRequest::Job(id) = parse_close_event(body) else {
            tracing::error!(%body, "close timer names no job: dropped");
            return WorkOutcome::Done;
        };
        match self.0.close_job_if_due(&id).await {
            Ok(_) => WorkOutcome::Done,
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_events() {
        let cases = [
            (agora_orcade_core::messages::close_request("job-1"), CloseRequest::Job("job-1".into())),
            (json!({"bid_job_id": " job-1 "}), CloseRequest::Job("job-1".into())),
            (
                json!({
                    "version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
                    "source": "aws.events", "account": "123456789012", "time": "2026-12-04T10:00:00Z", "region": "us-east-1",
                    "resources": ["arn:aws:events:us-east-1:123456789012:rule/orcade-close-sweep"], "detail": {}
                }),
                CloseRequest::Sweep,
            ),
            (json!({"detail-type": "Scheduled Event", "bid_job_id": "job-1"}), CloseRequest::Sweep),
            (json!({}), CloseRequest::Sweep),
            (json!(null), CloseRequest::Sweep),
            (json!({"bid_job_id": ""}), CloseRequest::Sweep),
            (json!({"bid_job_id": 7}), CloseRequest::Sweep),
            (json!("job-1"), CloseRequest::Sweep),
        ];
        for (event, want) in cases {
            assert_eq!(parse_close_event(&event), want, "{event}");
        }
    }
}

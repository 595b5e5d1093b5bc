//! `voting-start-tasks`: fed by the start timer queue (a task's start timer, whose body is
//! `{"social_task_id": "..."}`, `agora_voting_core::messages::start_request`; see
//! `agora_aws::timers`), fired by a task's one-shot EventBridge Scheduler schedule (the same timer,
//! a minute or more early for a start more than 15 minutes ahead: it goes back to the timer queue
//! for the rest of its wait) and by the `rate(1 minute)` sweep rule (a scheduled event). All go
//! through the same core flow, which starts a task once. The sweep also runs the repair sweep,
//! which requests again the evaluation of every stalled started task
//! (`agora_voting_core::flows::repair`).

use agora_aws::{Arrival, TimerTarget, Timers};
use agora_voting_core::messages::is_deadline_request;
use agora_voting_core::{Repairer, StartOutcome, Starter, VotingError, WorkOutcome};
use async_trait::async_trait;
use serde_json::{json, Value};

/// Handles one event other than the timer queue's; returns a summary for the invocation result.
pub async fn handle(starter: &Starter, repairer: &Repairer, timers: &Timers, event: &Value) -> Result<Value, VotingError> {
    let event = match timers.arrive(event).await {
        Arrival::Due(event) => event,
        Arrival::Deferred { name, due } => return Ok(json!({"deferred": name, "due": due})),
        Arrival::Failed(reason) => return Err(VotingError::internal(reason)),
    };
    match parse_start_event(&event) {
        StartRequest::Deadline(id) => {
            let stall = repairer.close_at_deadline(&id).await?;
            Ok(json!({ "deadline": {"social_task_id": id, "evaluation_requested": stall.is_some()} }))
        }
        StartRequest::Task(id) => {
            let outcome = starter.start_task(&id).await?;
            if let StartOutcome::Failed(reason) = &outcome {
                tracing::warn!(social_task_id = %id, %reason, "one-shot start failed; the sweep retries");
            }
            Ok(json!({ "started": [summary(&id, &outcome)] }))
        }
        StartRequest::Sweep => {
            let outcomes = starter.start_due_tasks().await?;
            let repaired = repairer.repair_stalled_tasks().await?;
            Ok(json!({
                "started": outcomes.iter().map(|(id, o)| summary(id, o)).collect::<Vec<_>>(),
                "repaired": repaired.iter().map(|(id, stall)| json!({"social_task_id": id, "stall": format!("{stall:?}")})).collect::<Vec<_>>(),
            }))
        }
    }
}

/// The start timer queue's work (`agora_aws::TimerQueueWork`): starts the task a due timer names.
/// A start that fails is left to the sweep, as the task stays `scheduled`; a store error is
/// retried.
pub struct DueStart(pub Starter);

#[async_trait]
impl TimerTarget for DueStart {
    async fn due(&self, body: &Value) -> WorkOutcome {
        let StartRequest::Task(id) = parse_start_event(body) else {
            tracing::error!(%body, "start timer names no task: dropped");
            return WorkOutcome::Done;
        };
        match self.0.start_task(&id).await {
            Ok(StartOutcome::Failed(reason)) => {
                tracing::warn!(social_task_id = %id, %reason, "timed start failed; the sweep retries");
                WorkOutcome::Done
            }
            Ok(_) => WorkOutcome::Done,
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

/// The start timer queue's work in `voting-start-tasks`: a start's timer starts its task
/// ([`DueStart`]); a deadline's closes its task at the deadline, requesting its
/// evaluation once. A store error is retried.
pub struct DueTimer {
    pub start: DueStart,
    pub repairer: Repairer,
}

#[async_trait]
impl TimerTarget for DueTimer {
    async fn due(&self, body: &Value) -> WorkOutcome {
        let StartRequest::Deadline(id) = parse_start_event(body) else { return self.start.due(body).await };
        match self.repairer.close_at_deadline(&id).await {
            Ok(_) => WorkOutcome::Done,
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

fn summary(id: &str, outcome: &StartOutcome) -> Value {
    json!({ "social_task_id": id, "outcome": format!("{outcome:?}") })
}

/// What an invocation of `voting-start-tasks` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartRequest {
    /// Start this task (the one-shot schedule's input).
    Task(String),
    /// Close this task at its deadline (its deadline schedule's input,
    /// `agora_voting_core::messages::deadline_request`).
    Deadline(String),
    /// Start every due task (the periodic sweep, or any other event).
    Sweep,
}

/// Reads a `voting-start-tasks` invocation event: `{"social_task_id": "..."}` (a one-shot
/// schedule's input) is [`StartRequest::Task`]; an EventBridge scheduled event
/// (`"detail-type": "Scheduled Event"`) or anything else is [`StartRequest::Sweep`].
pub fn parse_start_event(v: &Value) -> StartRequest {
    if v.get("detail-type").and_then(Value::as_str) == Some("Scheduled Event") {
        return StartRequest::Sweep;
    }
    match v.get("social_task_id").and_then(Value::as_str).map(str::trim) {
        Some(id) if !id.is_empty() && is_deadline_request(v) => StartRequest::Deadline(id.to_owned()),
        Some(id) if !id.is_empty() => StartRequest::Task(id.to_owned()),
        _ => StartRequest::Sweep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_events() {
        let cases = [
            (json!({"social_task_id": "task_0a1b2c3d"}), StartRequest::Task("task_0a1b2c3d".into())),
            (json!({"social_task_id": " task_0a1b2c3d "}), StartRequest::Task("task_0a1b2c3d".into())),
            (agora_voting_core::messages::start_request("task_0a1b2c3d"), StartRequest::Task("task_0a1b2c3d".into())),
            // The EventBridge rule of the `rate(1 minute)` sweep.
            (
                json!({
                    "version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
                    "source": "aws.events", "account": "123456789012", "time": "2026-10-22T10:00:00Z", "region": "us-east-1",
                    "resources": ["arn:aws:events:us-east-1:123456789012:rule/agora-start-sweep"], "detail": {}
                }),
                StartRequest::Sweep,
            ),
            (json!({"detail-type": "Scheduled Event", "social_task_id": "task_0a1b2c3d"}), StartRequest::Sweep),
            (json!({}), StartRequest::Sweep),
            (json!(null), StartRequest::Sweep),
            (json!("task_0a1b2c3d"), StartRequest::Sweep),
            (json!({"social_task_id": ""}), StartRequest::Sweep),
            (json!({"social_task_id": 7}), StartRequest::Sweep),
            (json!([1, 2]), StartRequest::Sweep),
        ];
        for (event, want) in cases {
            assert_eq!(parse_start_event(&event), want, "{event}");
        }
    }

    #[test]
    fn deadline_events() {
        let deadline = agora_voting_core::messages::deadline_request("task_0a1b2c3d");
        assert_eq!(parse_start_event(&deadline), StartRequest::Deadline("task_0a1b2c3d".into()));
        assert_eq!(parse_start_event(&json!({"social_task_id": "task_1", "at": "start"})), StartRequest::Task("task_1".into()));
    }
}

//! Xchange's messages on the platform's queues and schedules, and the rule that turns each
//! outcome into done or retry, for the SQS consumer and the local queue alike.
//!
//! * The **assignment queue** carries [`Assignment`]s: `{"kind": "assign", "task_id"}` (a new
//!   task) and `{"kind": "poll", "task_id", "attempt"}` (a bidding task's next look at its job).
//! * The **bidding-outcome queue** carries Orcade's resolution events,
//!   `{"event_type": "bid_job_resolved", "bid_job_id"}` ([`BiddingOutcomeWork`]).
//! * A bidding task has the one-shot schedule `xchange-bidding-<task_id>` at its deadline, with
//!   the body `{"task_id"}` ([`parse_deadline`]).

use crate::flows::assign::{AssignOutcome, Assigner};
use crate::flows::bidding::Bidder;
use agora_ports::{WorkHandler, WorkOutcome};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// One piece of assignment work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Assignment {
    /// Assign a new task.
    Assign { task_id: String },
    /// Look at a bidding task's job (the `attempt`-th look).
    Poll { task_id: String, attempt: u32 },
}

impl Assignment {
    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("assignments serialize")
    }

    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body.trim())
            .map_err(|e| format!("assignment message is malformed ({e}): {}", agora_hooks::truncate(body.trim())))
    }
}

/// The job id of a resolution event (or of any body naming `bid_job_id`).
pub fn parse_resolution(body: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Event {
        bid_job_id: String,
    }
    match serde_json::from_str::<Event>(body.trim()) {
        Ok(e) if !e.bid_job_id.trim().is_empty() => Ok(e.bid_job_id),
        _ => Err(format!(r#"resolution event is not {{"bid_job_id": "..."}}: {}"#, agora_hooks::truncate(body.trim()))),
    }
}

/// The task id of a deadline schedule's body.
pub fn parse_deadline(body: &serde_json::Value) -> Result<String, String> {
    match body.get("task_id").and_then(serde_json::Value::as_str) {
        Some(id) if !id.trim().is_empty() => Ok(id.to_owned()),
        _ => Err(format!(r#"deadline body is not {{"task_id": "..."}}: {body}"#)),
    }
}

/// Does the work of the assignment queue.
#[derive(Clone)]
pub struct AssignmentWork {
    assigner: Assigner,
    bidder: Bidder,
}

impl AssignmentWork {
    pub fn new(assigner: Assigner, bidder: Bidder) -> Self {
        Self { assigner, bidder }
    }
}

#[async_trait]
impl WorkHandler for AssignmentWork {
    /// Done once the task is assigned, final, or bidding (and its next poll queued); busy while
    /// another worker holds the task; retry on a transient failure. Its span names the task once
    /// the body is read.
    #[tracing::instrument(name = "assignment_work", skip_all, fields(task_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let work = match Assignment::parse(body) {
            Ok(w) => w,
            Err(reason) => {
                tracing::error!(%reason, "assignment dropped");
                return WorkOutcome::Done;
            }
        };
        let (Assignment::Assign { task_id } | Assignment::Poll { task_id, .. }) = &work;
        tracing::Span::current().record("task_id", task_id.as_str());
        match work {
            Assignment::Assign { task_id } => match self.assigner.assign(&task_id).await {
                Ok(AssignOutcome::InProgress) => {
                    WorkOutcome::Busy { reason: format!("task {task_id} is held by another worker"), after: self.assigner.busy_retry() }
                }
                Ok(AssignOutcome::Retry(reason)) => WorkOutcome::Retry(reason),
                Ok(outcome) => {
                    tracing::debug!(?outcome, "assignment handled");
                    WorkOutcome::Done
                }
                Err(e) => WorkOutcome::Retry(e.to_string()),
            },
            Assignment::Poll { task_id, attempt } => match self.bidder.poll(&task_id, attempt).await {
                Ok(_) => WorkOutcome::Done,
                Err(e) => WorkOutcome::Retry(e.to_string()),
            },
        }
    }
}

/// Does the work of the bidding-outcome queue: settles the task of each resolved job.
#[derive(Clone)]
pub struct BiddingOutcomeWork {
    bidder: Bidder,
}

impl BiddingOutcomeWork {
    pub fn new(bidder: Bidder) -> Self {
        Self { bidder }
    }
}

#[async_trait]
impl WorkHandler for BiddingOutcomeWork {
    /// Done once the job's task is settled (or the event names no task of ours); retry on a
    /// transient failure. Its span names the job once the body is read.
    #[tracing::instrument(name = "bidding_outcome_work", skip_all, fields(bid_job_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = match parse_resolution(body) {
            Ok(id) => id,
            Err(reason) => {
                tracing::error!(%reason, "resolution event dropped");
                return WorkOutcome::Done;
            }
        };
        tracing::Span::current().record("bid_job_id", id.as_str());
        match self.bidder.resolved(&id).await {
            Ok(settle) => {
                tracing::debug!(?settle, "resolution event handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let a = Assignment::Poll { task_id: "t".into(), attempt: 2 };
        assert_eq!(Assignment::parse(&a.body()), Ok(a));
        assert_eq!(Assignment::Assign { task_id: "t".into() }.body(), r#"{"kind":"assign","task_id":"t"}"#);
        assert!(Assignment::parse("{}").is_err());
        assert_eq!(parse_resolution(r#"{"event_type": "bid_job_resolved", "bid_job_id": "j"}"#), Ok("j".into()));
        assert!(parse_resolution(r#"{"bid_job_id": ""}"#).is_err());
        assert_eq!(parse_deadline(&serde_json::json!({"task_id": "t"})), Ok("t".into()));
    }
}

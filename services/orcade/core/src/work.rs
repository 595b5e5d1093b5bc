//! Orcade's messages on the platform's queues and schedules, and the rule that turns each
//! outcome into done or retry, for the SQS consumer and the local queue alike.
//!
//! * An **evaluation request** goes on the evaluation queue: `{"bid_job_id": "..."}`, keyed by
//!   the job id.
//! * A **delivery** goes on the delivery queue: one delegate round trip ([`Delivery`]), keyed by
//!   its `delivery_id`: `bid_request:<bid_job_id>:<subject_id>` or `bid_winner:<bid_job_id>`.
//!   Delivered at most once to completion, whatever the redeliveries (see
//!   [`crate::flows::deliver`]).
//! * A **resolution event** goes on the resolutions queue once a job is resolved
//!   ([`resolution_event`]): `{"event_type": "bid_job_resolved", "bid_job_id": "..."}`, for a
//!   job that carries the listener's mark alone ([`RESOLUTION_MARK`]: `bid_job_metadata.xchange`,
//!   an object, which Xchange's bidding mode sets on each job it opens). Nobody else listens: a
//!   job created through `POST /bid-jobs` by anyone else announces nothing.
//! * An open job with `bid_job_max_time` has the one-shot schedule `close-<bid_job_id>` at
//!   `bid_job_closes_at`, with the body `{"bid_job_id": "..."}`; its target runs the close sweep
//!   ([`crate::Closer::close_due_jobs`]), which also runs on its own timer.

use crate::flows::deliver::{Deliverer, DeliveryOutcome};
use crate::flows::evaluate::{EvaluationOutcome, Evaluator};
use agora_orcade_schema::{BidJob, TaskType};
use agora_ports::{WorkHandler, WorkOutcome};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The body of the work requesting the evaluation of `bid_job_id`.
pub fn evaluation_request(bid_job_id: &str) -> String {
    json!({"bid_job_id": bid_job_id}).to_string()
}

/// The job id of an evaluation request; Err says why the body names none, quoting it.
pub fn parse_evaluation_request(body: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Request {
        bid_job_id: String,
    }
    match serde_json::from_str::<Request>(body.trim()) {
        Ok(r) if !r.bid_job_id.trim().is_empty() => Ok(r.bid_job_id),
        _ => Err(format!(r#"evaluation message is not {{"bid_job_id": "..."}}: {}"#, agora_hooks::truncate(body.trim()))),
    }
}

/// The event sent on the resolutions queue once a job is resolved: its winner's `bid_winner`
/// result is stored, or its evaluation found no valid bids or failed. At least once per job;
/// the listener reads the outcome from the store (Xchange's bidding mode listens).
pub fn resolution_event(bid_job_id: &str) -> String {
    json!({"event_type": "bid_job_resolved", "bid_job_id": bid_job_id}).to_string()
}

/// The key of `bid_job_metadata` that marks a job whose resolution is announced: Xchange's
/// bidding mode sets `bid_job_metadata.xchange = {"exchange_id": "...", "task_id": "..."}` on
/// each job it opens (`agora_xchange_core::flows::bidding::JOB_MARK`), and the resolutions
/// queue is Xchange's. Any object counts; what it names is Xchange's to read.
pub const RESOLUTION_MARK: &str = "xchange";

/// Whether `job`'s resolution is announced: it carries [`RESOLUTION_MARK`].
pub fn announces_resolution(job: &BidJob) -> bool {
    job.bid_job_metadata.get(RESOLUTION_MARK).is_some_and(Value::is_object)
}

/// Sends the resolution event of `job` when it carries the mark; a failure is logged (the
/// listener also polls).
pub(crate) async fn announce_resolution(resolutions: &dyn agora_ports::WorkQueue, job: &BidJob) {
    let bid_job_id = job.bid_job_id.as_str();
    if !announces_resolution(job) {
        tracing::debug!(bid_job_id, "no resolution event: the job carries no bid_job_metadata.{RESOLUTION_MARK} (nobody listens for it)");
        return;
    }
    if let Err(e) = resolutions.send(&format!("resolved:{bid_job_id}"), &resolution_event(bid_job_id), std::time::Duration::ZERO).await {
        tracing::warn!(bid_job_id, error = %e, "resolution event not sent; listeners find the outcome by polling");
    }
}

/// The name of an open job's one-shot close.
pub fn close_schedule_name(bid_job_id: &str) -> String {
    format!("close-{bid_job_id}")
}

/// The body an open job's one-shot close delivers.
pub fn close_request(bid_job_id: &str) -> Value {
    json!({"bid_job_id": bid_job_id})
}

/// One delegate round trip to do (§5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// Names the round trip; its result is stored once per id.
    pub delivery_id: String,
    pub task_type: TaskType,
    pub bid_job_id: String,
    pub subject_id: String,
    /// The evaluator's output, carried into the `bid_winner` result (§4 decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluator_output: Option<Value>,
}

impl Delivery {
    /// The `bid_request` of `subject` for a closed or mixed job.
    pub fn bid_request(bid_job_id: &str, subject_id: &str) -> Self {
        Delivery {
            delivery_id: format!("bid_request:{bid_job_id}:{subject_id}"),
            task_type: TaskType::BidRequest,
            bid_job_id: bid_job_id.to_owned(),
            subject_id: subject_id.to_owned(),
            evaluator_output: None,
        }
    }

    /// The `bid_winner` of a job's winner, with the evaluator's output.
    pub fn bid_winner(bid_job_id: &str, winner: &str, evaluator_output: Value) -> Self {
        Delivery {
            delivery_id: format!("bid_winner:{bid_job_id}"),
            task_type: TaskType::BidWinner,
            bid_job_id: bid_job_id.to_owned(),
            subject_id: winner.to_owned(),
            evaluator_output: Some(evaluator_output),
        }
    }

    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("deliveries serialize")
    }

    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body.trim())
            .map_err(|e| format!("delivery message is malformed ({e}): {}", agora_hooks::truncate(body.trim())))
    }
}

/// Evaluates the job each evaluation request names.
#[derive(Clone)]
pub struct EvaluationWork {
    evaluator: Evaluator,
}

impl EvaluationWork {
    pub fn new(evaluator: Evaluator) -> Self {
        Self { evaluator }
    }
}

#[async_trait]
impl WorkHandler for EvaluationWork {
    /// Done when the evaluation was applied, found applied, failed for good (recorded), or is
    /// held by another evaluator (whose lease the repair sweep watches), and for a body that
    /// names no job; retry on a transient failure.
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = match parse_evaluation_request(body) {
            Ok(id) => id,
            Err(reason) => {
                tracing::error!(%reason, "evaluation request dropped");
                return WorkOutcome::Done;
            }
        };
        match self.evaluator.evaluate_job(&id).await {
            Ok(EvaluationOutcome::Retry(reason)) => WorkOutcome::Retry(reason),
            Ok(outcome) => {
                tracing::info!(bid_job_id = %id, ?outcome, "evaluation request handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

/// Makes the delegate round trip each delivery names.
#[derive(Clone)]
pub struct DeliveryWork {
    deliverer: Deliverer,
}

impl DeliveryWork {
    pub fn new(deliverer: Deliverer) -> Self {
        Self { deliverer }
    }
}

#[async_trait]
impl WorkHandler for DeliveryWork {
    /// Done once the result (a reply or a failure) is stored, or was; busy while another worker
    /// holds the delivery (a dead worker's lease runs out, and this one makes it then); retry
    /// when the store failed.
    async fn handle(&self, body: &str) -> WorkOutcome {
        let delivery = match Delivery::parse(body) {
            Ok(d) => d,
            Err(reason) => {
                tracing::error!(%reason, "delivery dropped");
                return WorkOutcome::Done;
            }
        };
        match self.deliverer.deliver(&delivery).await {
            Ok(DeliveryOutcome::InProgress) => WorkOutcome::Busy {
                reason: format!("delivery {} is held by another worker", delivery.delivery_id),
                after: self.deliverer.busy_retry(),
            },
            Ok(outcome) => {
                tracing::info!(delivery_id = %delivery.delivery_id, ?outcome, "delivery handled");
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
    fn evaluation_requests_round_trip_and_refusals_quote_the_body() {
        assert_eq!(parse_evaluation_request(&evaluation_request("job-1")), Ok("job-1".into()));
        for body in ["", "{}", r#"{"bid_job_id": ""}"#, r#"{"bid_job_id": 3}"#, "job-1"] {
            let e = parse_evaluation_request(body).unwrap_err();
            assert!(e.contains(body.trim()), "{body:?}: {e}");
        }
    }

    #[test]
    fn deliveries_round_trip() {
        let d = Delivery::bid_winner("j", "s", json!({"status": "resolved"}));
        assert_eq!(d.delivery_id, "bid_winner:j");
        assert_eq!(Delivery::parse(&d.body()), Ok(d));
        let r = Delivery::bid_request("j", "s");
        assert_eq!(r.delivery_id, "bid_request:j:s");
        assert!(!r.body().contains("evaluator_output"));
        assert!(Delivery::parse("{}").is_err());
        assert_eq!(close_schedule_name("j"), "close-j");
    }
}

//! Orcade's messages on the platform's queues and schedules: what the flows send, and what the
//! queues' handlers ([`crate::work`]) and the schedules' targets read.
//!
//! * An **evaluation request** goes on the evaluation queue: `{"bid_job_id": "..."}`, keyed by
//!   the job id.
//! * A **delivery** goes on the delivery queue: one delegate round trip ([`Delivery`]), keyed by
//!   its `delivery_id`: `bid_request:<job key>:<subject_id>` or `bid_winner:<job key>` (the
//!   job's incarnation, [`JobKey`]). Delivered at most once to completion, whatever the
//!   redeliveries (see [`crate::flows::deliver`]).
//! * A job's **`bid_request` fan-out** goes on the delivery queue too, as one item
//!   ([`BidRequests`]: `{"bid_requests": {"bid_job_id", "job_key"}}`: every member of the job's
//!   roster as stored when it runs), so that creating a job writes the same whatever its roster
//!   but the job itself; a replaced roster's new members go as items naming them
//!   (`"subjects"`, up to [`FAN_OUT_SUBJECTS`] each). The item's handler queues each subject's
//!   `bid_request` delivery, in batches. Sent again after a failure, it queues them again: each
//!   is still delivered once (and a member both items name, once).
//! * A **resolution event** goes on the resolutions queue once a job is resolved
//!   ([`resolution_event`]): `{"event_type": "bid_job_resolved", "bid_job_id": "..."}`, for a
//!   job that carries the listener's mark alone ([`RESOLUTION_MARK`]: `bid_job_metadata.xchange`,
//!   an object, which Xchange's bidding mode sets on each job it opens). Nobody else listens: a
//!   job created through `POST /bid-jobs` by anyone else announces nothing.
//! * An open job with `bid_job_max_time` has the one-shot schedule `close-<bid_job_id>` at
//!   `bid_job_closes_at`, with the body `{"bid_job_id": "..."}`; its target runs the close sweep
//!   ([`crate::Closer::close_due_jobs`]), which also runs on its own timer.

use crate::incarnation::JobKey;
use agora_orcade_schema::{BidJob, TaskType};
use agora_ports::WorkQueue;
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

/// Sends the resolution event of `job` when it carries the mark; a failure is logged, in the
/// caller's span, which names the job (the listener also polls).
pub(crate) async fn announce_resolution(resolutions: &dyn agora_ports::WorkQueue, job: &BidJob) {
    let bid_job_id = job.bid_job_id.as_str();
    if !announces_resolution(job) {
        tracing::debug!("no resolution event: the job carries no bid_job_metadata.{RESOLUTION_MARK} (nobody listens for it)");
        return;
    }
    if let Err(e) = resolutions.send(&format!("resolved:{bid_job_id}"), &resolution_event(bid_job_id), std::time::Duration::ZERO).await {
        tracing::warn!(error = %e, "resolution event not sent; listeners find the outcome by polling");
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
    /// The id of a job incarnation's delivery of `task_type` to `subject_id`.
    pub fn id_of(task_type: TaskType, job: &JobKey, subject_id: &str) -> String {
        match task_type {
            TaskType::BidRequest => format!("bid_request:{job}:{subject_id}"),
            TaskType::BidWinner => format!("bid_winner:{job}"),
        }
    }

    /// The `bid_request` of `subject` for a closed or mixed job.
    pub fn bid_request(bid_job_id: &str, job: &JobKey, subject_id: &str) -> Self {
        Delivery {
            delivery_id: Self::id_of(TaskType::BidRequest, job, subject_id),
            task_type: TaskType::BidRequest,
            bid_job_id: bid_job_id.to_owned(),
            subject_id: subject_id.to_owned(),
            evaluator_output: None,
        }
    }

    /// The `bid_winner` of a job's winner, with the evaluator's output.
    pub fn bid_winner(job: &BidJob, winner: &str, evaluator_output: Value) -> Self {
        Delivery {
            delivery_id: Self::id_of(TaskType::BidWinner, &JobKey::of(job), winner),
            task_type: TaskType::BidWinner,
            bid_job_id: job.bid_job_id.clone(),
            subject_id: winner.to_owned(),
            evaluator_output: Some(evaluator_output),
        }
    }

    /// Whether this delivery is for `job` as it is now, not for a deleted job whose id it has.
    pub fn is_for(&self, job: &BidJob) -> bool {
        self.delivery_id == Self::id_of(self.task_type, &JobKey::of(job), &self.subject_id)
    }

    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("deliveries serialize")
    }

    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body.trim())
            .map_err(|e| format!("delivery message is malformed ({e}): {}", agora_hooks::truncate(body.trim())))
    }
}

/// How many subjects one fan-out item names at most (and how many deliveries its handler queues
/// in one batch): few items for the largest rosters, each far below a queue message's size limit
/// for ids of a few dozen bytes.
pub const FAN_OUT_SUBJECTS: usize = 500;

/// A fan-out item: queue the `bid_request` of each of `subjects` for the job (`None`: each member
/// of its roster as stored when the item runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BidRequests {
    pub bid_job_id: String,
    pub job_key: JobKey,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subjects: Option<Vec<String>>,
}

/// A fan-out item's body.
#[derive(Serialize, Deserialize)]
struct FanOut {
    bid_requests: BidRequests,
}

impl BidRequests {
    /// The fan-out items, as (key, body) for [`WorkQueue::send_batch`]: of `subjects` of `job`,
    /// or (`None`) the one item of its whole roster.
    pub fn items(job: &BidJob, subjects: Option<&[String]>) -> Vec<(String, String)> {
        let key = JobKey::of(job);
        let item = |subjects: Option<&[String]>| {
            let bid_requests =
                BidRequests { bid_job_id: job.bid_job_id.clone(), job_key: key.clone(), subjects: subjects.map(<[String]>::to_vec) };
            serde_json::to_string(&FanOut { bid_requests }).expect("fan-out items serialize")
        };
        match subjects {
            None => vec![(format!("bid_requests:{key}"), item(None))],
            Some(subjects) => subjects
                .chunks(FAN_OUT_SUBJECTS)
                .enumerate()
                .map(|(i, chunk)| (format!("bid_requests:{key}:{i}"), item(Some(chunk))))
                .collect(),
        }
    }

    /// The item a body holds, if it is a fan-out item.
    pub(crate) fn parse(body: &str) -> Option<Result<BidRequests, String>> {
        let value: Value = serde_json::from_str(body.trim()).ok()?;
        value.get("bid_requests")?;
        Some(serde_json::from_value::<FanOut>(value).map(|f| f.bid_requests).map_err(|e| format!("fan-out item is malformed ({e})")))
    }

    /// Queues the `bid_request` delivery of each of `subjects`.
    pub(crate) async fn queue(&self, subjects: &[String], deliveries: &dyn WorkQueue) -> Result<(), agora_ports::QueueError> {
        let items: Vec<(String, String)> = subjects
            .iter()
            .map(|s| Delivery::bid_request(&self.bid_job_id, &self.job_key, s))
            .map(|d| (d.delivery_id.clone(), d.body()))
            .collect();
        deliveries.send_batch(&items).await
    }
}

/// Queues the `bid_request` fan-out of `subjects` of `job`, or (`None`) of its whole roster (see
/// the module docs). A failure is logged, in the caller's span, which names the job: the job
/// stands, and its subjects can find it by id or tag.
pub(crate) async fn request_bids(deliveries: &dyn WorkQueue, job: &BidJob, subjects: Option<&[String]>) {
    if subjects.is_some_and(<[String]>::is_empty) {
        return;
    }
    if let Err(e) = deliveries.send_batch(&BidRequests::items(job, subjects)).await {
        tracing::error!(error = %e, "bid_request fan-out not queued");
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
        let job: BidJob = serde_json::from_value(json!({
            "bid_job_id": "j", "bid_job_evaluator_id": "", "bid_job_creator_id": "c",
            "bid_job_created_time": "2026-12-07T09:00:00.000001Z",
        }))
        .unwrap();
        let key = JobKey::of(&job);
        let d = Delivery::bid_winner(&job, "s", json!({"status": "resolved"}));
        assert_eq!(d.delivery_id, format!("bid_winner:{key}"));
        assert!(d.is_for(&job));
        assert_eq!(Delivery::parse(&d.body()), Ok(d));
        let r = Delivery::bid_request("j", &key, "s");
        assert_eq!(r.delivery_id, format!("bid_request:{key}:s"));
        assert!(r.is_for(&job));
        let again = BidJob { bid_job_created_time: job.bid_job_created_time + chrono::Duration::seconds(1), ..job.clone() };
        assert!(!r.is_for(&again), "a job created again under the id is another job");
        let subjects: Vec<String> = (0..1_001).map(|i| format!("s{i}")).collect();
        let items = BidRequests::items(&job, Some(&subjects));
        assert_eq!(items.len(), 3);
        let parsed: Vec<BidRequests> = items.iter().map(|(_, b)| BidRequests::parse(b).unwrap().unwrap()).collect();
        assert_eq!(parsed.iter().flat_map(|p| p.subjects.clone().unwrap()).collect::<Vec<_>>(), subjects);
        let whole = BidRequests::items(&job, None);
        assert_eq!(whole.len(), 1);
        assert_eq!(BidRequests::parse(&whole[0].1).unwrap().unwrap().subjects, None, "the roster is read when the item runs");
        assert!(BidRequests::parse(&r.body()).is_none(), "a delivery is not a fan-out item");
        assert!(!r.body().contains("evaluator_output"));
        assert!(Delivery::parse("{}").is_err());
        assert_eq!(close_schedule_name("j"), "close-j");
    }
}

//! Delivery (§5): one delegate round trip per [`Delivery`], from the delivery queue. The call is
//! `submit-and-wait` with `{"subject_id", "session_id", "task_id", "task_data"}`, both ids the
//! new `bid_task_result_id` of this delivery: the upstream delegate system waits for the
//! subject's answer on a queue named by `session_id`, so every delivery needs one of its own (a
//! job's id, shared by its roster's calls, would let one call take another's answer). The id is
//! noted in the delivery's claim before the call: a worker that takes the claim over after its
//! holder died (or could not store the answer) repeats the call with the same ids, marked a
//! retry (`Agora-Retry: true`), so the delegate can recognise it by `task_id`. Under the
//! delegate's time limit; its reply is stored
//! verbatim as a `BidTaskResult`, a failure as `{"success": false, "error": "<what failed>"}`
//! (every failure, transient or not: a delivery is made once, never repeated behind the
//! subject's back). The `bid_winner` result also carries `evaluator_output`.
//!
//! Once per delivery, even if redelivered: the result is stored together with the mark
//! `delivered:<delivery_id>` in one atomic insert, and while a worker makes the call it holds
//! the claim `deliver:<delivery_id>` on a lease longer than the delegate's time limit (a second
//! delivery meanwhile is retried later; a dead worker's lease runs out).

use crate::error::OrcadeError;
use crate::messages::Delivery;
use crate::ports::{Clock, Delegate, DelegateRequest, NoListener, WorkQueue};
use crate::repo::Repo;
use agora_orcade_schema::{new_id, BidJob, BidTaskResult, Entity, TaskType};
use agora_store::claims::{Claims, Lease};
use agora_store::StoreError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What became of one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// The delegate answered `success: true`; its reply is stored.
    Delivered { bid_task_result_id: String },
    /// The call failed; the failure is stored.
    Failed { bid_task_result_id: String, error: String },
    /// Its result was stored already (a redelivery).
    AlreadyDelivered,
    /// Another worker is making this call right now.
    InProgress,
    /// The job was deleted: nothing to deliver.
    JobGone,
}

/// The delivery flow: the store and its claims, the delegate system, the clock, the lease.
#[derive(Clone)]
pub struct Deliverer {
    repo: Repo,
    claims: Claims,
    delegate: Arc<dyn Delegate>,
    clock: Arc<dyn Clock>,
    lease: chrono::Duration,
    resolutions: Arc<dyn WorkQueue>,
    /// The delivery queue itself, where a fan-out item's deliveries go ([`crate::messages::BidRequests`]).
    deliveries: Option<Arc<dyn WorkQueue>>,
}

/// `task_data` of §5.
fn task_data(d: &Delivery, job: &BidJob) -> Value {
    match d.task_type {
        TaskType::BidRequest => json!({"event_type": "bid_request", "bid_job_id": job.bid_job_id, "bid_job": job.to_dict()}),
        TaskType::BidWinner => json!({"event_type": "bid_winner", "bid_job_id": job.bid_job_id}),
    }
}

impl Deliverer {
    pub fn new(repo: Repo, delegate: Arc<dyn Delegate>, clock: Arc<dyn Clock>, lease: chrono::Duration) -> Self {
        let resolutions = Arc::new(NoListener);
        Self { claims: repo.claims(), repo, delegate, clock, lease, resolutions, deliveries: None }
    }

    /// Queues a fan-out item's deliveries on `deliveries` (the queue this deliverer serves).
    pub fn with_deliveries(mut self, deliveries: Arc<dyn WorkQueue>) -> Self {
        self.deliveries = Some(deliveries);
        self
    }

    /// The roster of the job `bid_job_id` as stored now, if it is still the incarnation `key`
    /// (a fan-out item of the whole roster reads it when it runs).
    pub async fn roster_of(&self, bid_job_id: &str, key: &crate::incarnation::JobKey) -> Result<Option<Vec<String>>, OrcadeError> {
        let job = self.repo.job(bid_job_id).await?.filter(|job| crate::incarnation::JobKey::of(job) == *key);
        Ok(job.map(|job| job.bid_job_subject_ids))
    }

    /// Where a fan-out item's deliveries go, if this deliverer has the queue.
    pub fn deliveries(&self) -> Option<&Arc<dyn WorkQueue>> {
        self.deliveries.as_ref()
    }

    /// Sends the job's resolution event once its `bid_winner` result is stored, for a job that
    /// carries the listener's mark ([`crate::messages::RESOLUTION_MARK`]).
    pub fn with_resolutions(mut self, resolutions: Arc<dyn WorkQueue>) -> Self {
        self.resolutions = resolutions;
        self
    }

    /// How soon to look again at a delivery another worker holds: a tenth of the lease, between
    /// 100 ms and 5 s.
    pub fn busy_retry(&self) -> std::time::Duration {
        (self.lease / 10).to_std().unwrap_or_default().clamp(std::time::Duration::from_millis(100), std::time::Duration::from_secs(5))
    }

    /// Makes the delivery's round trip, once.
    #[tracing::instrument(skip_all, fields(delivery_id = %d.delivery_id, bid_job_id = %d.bid_job_id, subject_id = %d.subject_id))]
    pub async fn deliver(&self, d: &Delivery) -> Result<DeliveryOutcome, OrcadeError> {
        let (outcome, job) = self.deliver_once(d).await?;
        // Also when found delivered: a crash may have come between the result and the event.
        if d.task_type == TaskType::BidWinner && !matches!(outcome, DeliveryOutcome::InProgress | DeliveryOutcome::JobGone) {
            // The job the call read, else (found delivered) read now.
            let job = match job {
                Some(job) => Ok(Some(job)),
                None => self.repo.job(&d.bid_job_id).await,
            };
            match job {
                Ok(Some(job)) => crate::messages::announce_resolution(self.resolutions.as_ref(), &job).await,
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "job not read: no resolution event; listeners find the outcome by polling")
                }
            }
        }
        Ok(outcome)
    }

    /// The outcome, and the job when this call read it.
    async fn deliver_once(&self, d: &Delivery) -> Result<(DeliveryOutcome, Option<BidJob>), OrcadeError> {
        if self.repo.delivered(&d.delivery_id).await? {
            return Ok((DeliveryOutcome::AlreadyDelivered, None));
        }
        let key = format!("deliver:{}", d.delivery_id);
        let Some(held) = self.claims.take(&key, self.clock.now(), Some(self.lease)).await? else {
            return Ok((DeliveryOutcome::InProgress, None));
        };
        let outcome = self.deliver_claimed(d, &held).await;
        match &outcome {
            // Another worker took the claim over meanwhile: it is theirs to give back.
            Ok((DeliveryOutcome::InProgress, _)) => {}
            Ok(_) => {
                self.claims.release(&key).await?;
            }
            // The call may have been made and its answer not stored: the claim stays, with the
            // call's ids it records, its lease run out now, so that the queue's retry takes it
            // at once and repeats that same call (marked a retry).
            Err(_) => {
                if let Err(e) = self.claims.run_out(&key, self.clock.now()).await {
                    tracing::warn!(error = %e, "delivery claim not given back; its lease runs out");
                }
            }
        }
        outcome
    }

    async fn deliver_claimed(&self, d: &Delivery, held: &Lease) -> Result<(DeliveryOutcome, Option<BidJob>), OrcadeError> {
        // Read again under the claim: a worker whose lease ran out may have finished.
        if self.repo.delivered(&d.delivery_id).await? {
            return Ok((DeliveryOutcome::AlreadyDelivered, None));
        }
        let Some(job) = self.repo.job(&d.bid_job_id).await?.filter(|job| d.is_for(job)) else {
            tracing::warn!("the bid job is gone (or was created again under its id); nothing delivered");
            return Ok((DeliveryOutcome::JobGone, None));
        };
        // One session per call (see the module docs): the result's id, new for this call, and
        // recorded in the claim before it is made. A worker that finds an id recorded there
        // repeats that call (an earlier holder died during it, or could not store its answer):
        // the same task_id and session_id, marked a retry, for the delegate to recognise.
        let Some((result_id, retry)) = self.claims.noted_or(held, "bid_task_result_id", new_id).await? else {
            // Taken over meanwhile (this worker's lease ran out): the new holder calls.
            return Ok((DeliveryOutcome::InProgress, None));
        };
        if retry {
            tracing::info!(bid_task_result_id = %result_id, "repeating a delegate call an earlier attempt began");
        }
        let data = task_data(d, &job);
        let request = DelegateRequest { subject_id: &d.subject_id, session_id: &result_id, task_id: &result_id, task_data: &data, retry };
        let (task_result, error): (Map<String, Value>, Option<String>) = match self.delegate.submit_and_wait(&request).await {
            Ok(Value::Object(reply)) => (reply, None),
            Ok(other) => {
                let error = format!("the delegate system's reply is not a JSON object: {}", agora_hooks::truncate(&other.to_string()));
                (BidTaskResult::failure_result(&error), Some(error))
            }
            Err(e) => (BidTaskResult::failure_result(&e.to_string()), Some(e.to_string())),
        };
        let result = BidTaskResult {
            bid_task_result_id: result_id.clone(),
            bid_job_id: d.bid_job_id.clone(),
            bid_subject_id: d.subject_id.clone(),
            task_type: d.task_type,
            task_result,
            created_time: self.clock.now(),
            evaluator_output: d.evaluator_output.clone(),
        };
        match self.repo.insert_result_once(&d.delivery_id, &result, self.clock.now()).await {
            Ok(()) => {}
            Err(StoreError::Duplicate { .. }) => return Ok((DeliveryOutcome::AlreadyDelivered, Some(job))),
            Err(e) => return Err(e.into()),
        }
        let outcome = match error {
            None => DeliveryOutcome::Delivered { bid_task_result_id: result_id },
            Some(error) => {
                tracing::warn!(%error, "delegate call failed; the failure is stored");
                DeliveryOutcome::Failed { bid_task_result_id: result_id, error }
            }
        };
        Ok((outcome, Some(job)))
    }
}

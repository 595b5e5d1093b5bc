//! Closing a job, once, and the evaluation request that follows it: shared by the bid that
//! completes the roster or fills an open job, the creator's close, the time sweep and the
//! repair sweep.
//!
//! * **The close is the trigger.** Every path closes a job with one conditional write
//!   (`bid_job_status` `open` → `closed`); exactly one caller wins it and requests the
//!   evaluation. A creator's close racing the last bid therefore requests one evaluation.
//! * **The fence.** A job's bids are stored with its counter [`bids_counter`] in one atomic write
//!   (`insert_counted`), under a limit: `bid_job_max_subjects` on an open job, [`FENCE`] on the
//!   others; a withdrawn bid is deleted with the counter lowered in one atomic write under the
//!   limit [`FENCE`] (`delete_counted`). Every closer raises the counter by [`FENCE`] before the
//!   close, so that no bid is stored or withdrawn once the job is closed: such a request is
//!   refused as the job closed, and the evaluation reads every bid there will ever be. The
//!   counter's remainder modulo [`FENCE`] is the number of bids on file. A job found fenced and
//!   still open is one whose closer died between the two: the repair sweep closes it.
//! * **An open job's roster is its bids.** While an open-mode job takes bids, its applicants are
//!   its accepted bids, in the order they were stored; nothing rewrites the job per bid, so a bid
//!   costs the same whatever the number of applicants. Its readers see `bid_job_subject_ids`
//!   filled in from the bids ([`crate::Queries`]), and the close writes the final roster into
//!   the job document, in the same conditional write that closes it (the bids are fenced by
//!   then), so a closed job's document is the spec's.
//! * **The record of the request.** The winner queues the evaluation, then records it with the
//!   claim [`request_claim`] on the long request lease; the repair sweep requests it again when
//!   the record is missing or ran out (see [`crate::flows::repair`]).

use crate::error::OrcadeError;
use crate::incarnation::JobKey;
use crate::ports::{Clock, WorkQueue};
use crate::repo::Repo;
use agora_orcade_schema::{BidJob, BidJobMode};
use agora_store::claims::Claims;
use std::sync::Arc;

/// Added to a job's bid counter when it closes: far above any `bid_job_max_subjects`, so that
/// every later counted insert finds the counter full.
pub const FENCE: i64 = 1 << 40;

/// The counter of a job's bids on file (plus [`FENCE`] once closed or deleted).
pub fn bids_counter(job: &JobKey) -> String {
    format!("bids:{job}")
}

/// The claim that records a job's evaluation request.
pub fn request_claim(job: &JobKey) -> String {
    format!("request:{job}")
}

/// The claim the evaluator holds while it works.
pub fn evaluate_claim(job: &JobKey) -> String {
    format!("evaluate:{job}")
}

/// How many bids a counter value says are on file, and whether the job is fenced.
pub fn on_file(counter: i64) -> (i64, bool) {
    (counter.rem_euclid(FENCE), counter >= FENCE)
}

/// The leases of a job's evaluation request.
#[derive(Debug, Clone, Copy)]
pub struct RequestLeases {
    /// While a request is claimed (by the repair sweep) and not yet queued.
    pub claim: chrono::Duration,
    /// Once the queue has it.
    pub request: chrono::Duration,
}

/// Closes jobs once and requests their evaluation.
#[derive(Clone)]
pub struct Closing {
    repo: Repo,
    claims: Claims,
    evaluations: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
    leases: RequestLeases,
}

impl Closing {
    pub fn new(repo: Repo, evaluations: Arc<dyn WorkQueue>, clock: Arc<dyn Clock>, leases: RequestLeases) -> Self {
        Self { claims: Claims::new(repo.store().clone()), repo, evaluations, clock, leases }
    }

    /// Fences the job's bids, then closes it if it is open (writing an open job's final roster
    /// in the same write) and requests its evaluation. Returns whether this call closed it
    /// (false: it was closed already, or is gone). A request the queue refused is logged, not
    /// returned: the job is closed, and the repair sweep requests its evaluation.
    pub async fn close(&self, job: &BidJob, why: &str) -> Result<bool, OrcadeError> {
        let id = job.bid_job_id.as_str();
        let key = JobKey::of(job);
        self.repo.mark_pending(id, self.clock.now()).await?;
        // Fenced first, so without reading the counter (a later fence by the evaluator or the
        // repair sweep reads it, and leaves a fenced counter as it is).
        self.repo.store().increment(&bids_counter(&key), FENCE).await?;
        let roster = match job.bid_job_mode {
            BidJobMode::Open => Some(self.repo.open_roster(id).await?),
            BidJobMode::Closed | BidJobMode::Mixed => None,
        };
        if !self.repo.close_job(job, roster.as_deref()).await? {
            return Ok(false);
        }
        tracing::info!(bid_job_id = id, why, "bid job closed");
        if let Err(e) = self.request(job).await {
            tracing::error!(bid_job_id = id, error = %e, "evaluation request not queued; the repair sweep requests it");
        }
        Ok(true)
    }

    /// Raises the job's bid counter past every limit, unless it is fenced already.
    pub async fn fence(&self, job: &JobKey) -> Result<(), OrcadeError> {
        let counter = bids_counter(job);
        if !on_file(self.repo.store().counter(&counter).await?).1 {
            self.repo.store().increment(&counter, FENCE).await?;
        }
        Ok(())
    }

    /// Queues the job's evaluation and records the request on the long lease.
    pub async fn request(&self, job: &BidJob) -> Result<(), OrcadeError> {
        let id = job.bid_job_id.as_str();
        let body = crate::work::evaluation_request(id);
        self.evaluations
            .send(id, &body, std::time::Duration::ZERO)
            .await
            .map_err(|e| OrcadeError::internal_caused("the evaluation request could not be queued", e))?;
        let now = self.clock.now();
        let key = request_claim(&JobKey::of(job));
        // Taken (a first request) or extended (a repaired one) to the long lease.
        if self.claims.take(&key, now, Some(self.leases.request)).await?.is_none() {
            self.claims.settle(&key, now, self.leases.request).await?;
        }
        tracing::info!(bid_job_id = id, "evaluation requested");
        Ok(())
    }

    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    pub fn leases(&self) -> RequestLeases {
        self.leases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_tells_bids_and_fence_apart() {
        assert_eq!(on_file(3), (3, false));
        assert_eq!(on_file(3 + FENCE), (3, true));
        assert_eq!(on_file(FENCE), (0, true));
    }
}

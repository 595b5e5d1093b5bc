//! Closing a job, once, and the evaluation request that follows it: shared by the bid that
//! completes the roster or fills an open job, the creator's close, the time sweep and the
//! repair sweep.
//!
//! * **The close is the trigger.** Every path closes a job with one conditional write
//!   (`bid_job_status` `open` → `closed`); exactly one caller wins it and requests the
//!   evaluation. A creator's close racing the last bid therefore requests one evaluation.
//! * **The fence.** A job's bids are stored with its counter [`bid_counter`] in one atomic write
//!   (`insert_counted`), under a limit: `bid_job_max_subjects` on an open job, [`FENCE`] on the
//!   others; a withdrawn bid is deleted with the counter lowered in one atomic write under the
//!   limit [`FENCED_AT`] (`delete_counted`). Every closer raises the counter by [`FENCE`] before
//!   the close, so that no bid is stored or withdrawn once the job is closed: such a request is
//!   refused as the job closed, and the evaluation reads every bid there will ever be. The
//!   counter's value less its nearest multiple of [`FENCE`] is the number of bids on file
//!   ([`on_file`]). A job found fenced and still open is one whose closer died between the two:
//!   the repair sweep closes it.
//! * **The counter is sharded** (`agora_store::sharded`), so that a popular open job's bids do
//!   not all write one counter. An open job's `bid_job_max_subjects` places are split over up to
//!   16 shards (one up to 64 places: such a job is counted exactly as before, in the one counter
//!   [`bids_counter`]); a bid starts at the shard its subject hashes to and moves on when that one
//!   is full, and the bid that fills a shard reads the others, so the bid that fills the job sees
//!   it full (two may: closing is once-only, see below). A fence raises every shard (in parallel;
//!   the repair sweep and the evaluator fence the shards a dead closer left unfenced). A withdrawn
//!   bid lowers the shard its subject hashes to, which is the shard it was counted in unless it
//!   moved on: the sum of the shards is still the number of bids on file and no shard passes its
//!   limit, so the job still takes at most `bid_job_max_subjects` bids and its last place is
//!   still seen; a shard may merely read below zero for a while (hence [`on_file`]'s nearest
//!   multiple, and [`FENCED_AT`]). The other jobs keep one counter under [`FENCE`]: a fixed
//!   roster can be replaced while the job is open and its completion is checked on every bid, and
//!   an open job without a maximum has no places to split.
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
use agora_store::sharded::ShardedCounter;
use std::sync::Arc;

/// Added to a job's bid counter when it closes: far above any `bid_job_max_subjects`, so that
/// every later counted insert finds the counter full.
pub const FENCE: i64 = 1 << 40;

/// A shard at this value or above is fenced: its bids on file are far fewer than half a
/// [`FENCE`] either way, so a fenced shard reads at least this even when it went below zero.
pub const FENCED_AT: i64 = FENCE / 2;

/// The name of a job's bid counter: its only shard, or its first (see [`bid_counter`]).
pub fn bids_counter(job: &JobKey) -> String {
    format!("bids:{job}")
}

/// The sharded counter of a job's bids on file (plus [`FENCE`] on each shard once closed or
/// deleted; see the module docs): an open job's `bid_job_max_subjects` places, split over the
/// shards, or one shard under [`FENCE`] for the others.
pub fn bid_counter(job: &BidJob) -> ShardedCounter {
    let name = bids_counter(&JobKey::of(job));
    match (job.bid_job_mode, job.bid_job_max_subjects) {
        (BidJobMode::Open, Some(max)) => ShardedCounter::places(name, max),
        _ => ShardedCounter::unlimited(name, 1).capped(FENCE),
    }
}

/// The claim that records a job's evaluation request.
pub fn request_claim(job: &JobKey) -> String {
    format!("request:{job}")
}

/// The claim the evaluator holds while it works.
pub fn evaluate_claim(job: &JobKey) -> String {
    format!("evaluate:{job}")
}

/// How many bids a counter value (one shard's, or the sum of the shards) says are on file, and
/// whether the job is fenced (any shard of it): the value less its nearest multiple of [`FENCE`],
/// and whether that multiple is above zero.
pub fn on_file(counter: i64) -> (i64, bool) {
    let fences = (counter + FENCED_AT).div_euclid(FENCE);
    (counter - fences * FENCE, fences > 0)
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
        Self { claims: repo.claims(), repo, evaluations, clock, leases }
    }

    /// Fences the job's bids, then closes it if it is open (writing an open job's final roster
    /// in the same write) and requests its evaluation. Returns whether this call closed it
    /// (false: it was closed already, or is gone). A request the queue refused is logged, not
    /// returned: the job is closed, and the repair sweep requests its evaluation. Logs in its
    /// caller's span, which names the job.
    pub async fn close(&self, job: &BidJob, why: &str) -> Result<bool, OrcadeError> {
        let id = job.bid_job_id.as_str();
        self.repo.mark_pending(id, self.clock.now()).await?;
        // Fenced first, so without reading the counter (a later fence by the evaluator or the
        // repair sweep reads it, and leaves a fenced shard as it is).
        self.repo.fence_bids(job).await?;
        let roster = match job.bid_job_mode {
            BidJobMode::Open => Some(self.repo.open_roster(id).await?),
            BidJobMode::Closed | BidJobMode::Mixed => None,
        };
        if !self.repo.close_job(job, roster.as_deref()).await? {
            return Ok(false);
        }
        tracing::info!(why, "bid job closed");
        if let Err(e) = self.request(job).await {
            tracing::error!(error = %e, "evaluation request not queued; the repair sweep requests it");
        }
        Ok(true)
    }

    /// Raises each shard of the job's bid counter past every limit, unless it is fenced already
    /// (a closer that died half-way through the shards left the others unfenced).
    pub async fn fence(&self, job: &BidJob) -> Result<(), OrcadeError> {
        self.repo.fence_unfenced_bids(job).await
    }

    /// Queues the job's evaluation and records the request on the long lease.
    pub async fn request(&self, job: &BidJob) -> Result<(), OrcadeError> {
        let id = job.bid_job_id.as_str();
        let body = crate::messages::evaluation_request(id);
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
        tracing::info!("evaluation requested");
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
        // A shard lowered below zero by a withdrawal, fenced or not; the sum of fenced shards.
        assert_eq!(on_file(-2), (-2, false));
        assert_eq!(on_file(FENCE - 2), (-2, true));
        assert_eq!(on_file(5 + 16 * FENCE), (5, true));
    }
}

//! The repair sweep: closes the open jobs whose bids on file should have closed them, and
//! requests again the evaluation of closed jobs whose evaluation is neither applied, under way
//! nor queued, so that no crash leaves a job open or unevaluated for ever:
//!
//! - **never closed**: the bid that completed a closed or mixed job's roster, or filled an open
//!   job, was stored (with its count) but its process died before the close; or a closer died
//!   between the fence and the close (the counter is fenced, the job open). The count says so:
//!   the sweep closes the job, which requests the evaluation;
//!
//! - **never requested**: the job is closed but no request was recorded (the closer died
//!   between the close and the queue);
//! - **request lost**: the request's claim ran out (queued a day ago and still not applied: the
//!   queue dead-lettered it, so it is requested again at most once a day);
//! - **evaluator gone**: the evaluator's claim is held and its lease ran out unrenewed.
//!
//! Cost: a sweep reads every open job (and its bid counter) and the `pending_evaluations`
//! collection (a mark per job closed and not yet evaluated: written before the close, cleared
//! once the evaluation is applied), then a few reads per pending job. It grows with the jobs
//! open or under evaluation, not with the jobs ever closed.

use crate::closing::{evaluate_claim, request_claim, Closing};
use crate::error::OrcadeError;
use crate::incarnation::JobKey;
use crate::ports::Clock;
use crate::repo::Repo;
use agora_orcade_schema::{BidJob, BidJobMode, BidJobStatus};
use agora_store::claims::{Claim, ClaimState};
use std::sync::Arc;

/// Why the sweep requested a job's evaluation again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    NeverClosed,
    NeverRequested,
    RequestLost,
    EvaluatorGone,
}

/// The repair flow: the store, the clock, and the closing's request.
#[derive(Clone)]
pub struct Repairer {
    repo: Repo,
    clock: Arc<dyn Clock>,
    closing: Closing,
}

impl Repairer {
    pub fn new(repo: Repo, clock: Arc<dyn Clock>, closing: Closing) -> Self {
        Self { repo, clock, closing }
    }

    /// Closes the open jobs whose bids closed them, then requests the evaluation of every
    /// stalled closed job; returns them, with why.
    #[tracing::instrument(skip_all)]
    pub async fn repair_stalled_jobs(&self) -> Result<Vec<(String, Stall)>, OrcadeError> {
        let mut repaired = Vec::new();
        for job in self.repo.open_jobs().await? {
            if self.repair_open(&job).await {
                repaired.push((job.bid_job_id, Stall::NeverClosed));
            }
        }
        for id in self.repo.pending_job_ids().await? {
            if let Some(stall) = self.repair_one(&id).await {
                repaired.push((id, stall));
            }
        }
        Ok(repaired)
    }

    /// [`Self::close_if_complete`] in the job's span, its outcome logged: whether it closed it.
    #[tracing::instrument(skip_all, fields(bid_job_id = %job.bid_job_id))]
    async fn repair_open(&self, job: &BidJob) -> bool {
        match self.close_if_complete(job).await {
            Ok(true) => {
                tracing::warn!("a job its bids had closed is closed now");
                true
            }
            Ok(false) => false,
            Err(e) => {
                tracing::error!(error = %e, "repair check failed");
                false
            }
        }
    }

    /// [`Self::repair_pending`] in the job's span, its outcome logged.
    #[tracing::instrument(skip_all, fields(bid_job_id = id))]
    async fn repair_one(&self, id: &str) -> Option<Stall> {
        match self.repair_pending(id).await {
            Ok(Some(stall)) => {
                tracing::warn!(?stall, "stalled evaluation requested again");
                Some(stall)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::error!(error = %e, "repair check failed");
                None
            }
        }
    }

    /// Closes an open job whose bids on file complete it (the roster of a closed or mixed job,
    /// `bid_job_max_subjects` of an open one), or whose closer died after the fence.
    async fn close_if_complete(&self, job: &BidJob) -> Result<bool, OrcadeError> {
        let (n, fenced) = self.repo.bids_on_file(job).await?;
        if fenced {
            return self.closing.close(job, "repair: its closer died after fencing its bids").await;
        }
        if n == 0 {
            return Ok(false);
        }
        let complete = match job.bid_job_mode {
            BidJobMode::Open => job.bid_job_max_subjects.is_some_and(|max| n >= max),
            BidJobMode::Closed | BidJobMode::Mixed => n >= job.bid_job_subject_ids.len() as i64,
        };
        if !complete {
            return Ok(false);
        }
        self.closing.close(job, "repair: its bids on file complete it").await
    }

    /// A job marked pending: cleared when its evaluation is applied or it is gone, passed over
    /// while open (closing right now, or its closer died before the close: the close sweeps
    /// and the repair of open jobs see to it), else repaired if stalled.
    async fn repair_pending(&self, id: &str) -> Result<Option<Stall>, OrcadeError> {
        if let Some(job) = self.repo.job(id).await? {
            if job.bid_job_status == BidJobStatus::Open {
                return Ok(None);
            }
            if !self.repo.evaluation(&job).await?.is_some_and(|r| r.applied()) {
                return self.repair(&job).await;
            }
        }
        self.repo.clear_pending(id).await?;
        Ok(None)
    }

    async fn repair(&self, job: &BidJob) -> Result<Option<Stall>, OrcadeError> {
        let claims = self.closing.claims();
        let now = self.clock.now();
        let key = JobKey::of(job);
        let stall = match claims.state(&evaluate_claim(&key), now).await? {
            ClaimState::Live | ClaimState::Settled => return Ok(None),
            ClaimState::Expired => Stall::EvaluatorGone,
            ClaimState::Free => match claims.state(&request_claim(&key), now).await? {
                ClaimState::Live | ClaimState::Settled => return Ok(None),
                ClaimState::Expired => Stall::RequestLost,
                ClaimState::Free => Stall::NeverRequested,
            },
        };
        // One repair per lease, however many sweeps run at once.
        if claims.claim(&format!("repair:{key}"), now, Some(self.closing.leases().claim)).await? == Claim::Held {
            return Ok(None);
        }
        self.closing.fence(job).await?;
        self.closing.request(job).await?;
        Ok(Some(stall))
    }
}

//! Closing jobs: `POST /bid-jobs/{id}/close` by the creator (any mode: it evaluates the bids on
//! file; §1's decision for closed and mixed jobs, and an open job's creator may end its call
//! early too), and the sweep of open jobs whose `bid_job_closes_at` has passed (the target of
//! the one-shot `close-<id>` schedule, and of a timer). Both close through
//! [`crate::closing::Closing`]: once, then one evaluation request.

use crate::closing::Closing;
use crate::error::OrcadeError;
use crate::ports::Clock;
use crate::repo::Repo;
use agora_auth::Caller;
use agora_orcade_schema::{BidJob, BidJobMode, BidJobStatus};
use std::sync::Arc;

/// The close flow: the store, the clock, and the closing of jobs.
#[derive(Clone)]
pub struct Closer {
    repo: Repo,
    clock: Arc<dyn Clock>,
    closing: Closing,
}

impl Closer {
    pub fn new(repo: Repo, clock: Arc<dyn Clock>, closing: Closing) -> Self {
        Self { repo, clock, closing }
    }

    /// Closes the job and requests its evaluation; returns the job as it is now. `by` is the
    /// caller when the front door knows it (it must be the creator or an operator); `None`
    /// (authentication off, as in the spec's API) closes for anyone who knows the id.
    #[tracing::instrument(skip_all, fields(bid_job_id = bid_job_id))]
    pub async fn close_job(&self, bid_job_id: &str, by: Option<&Caller>) -> Result<BidJob, OrcadeError> {
        let unknown = || OrcadeError::UnknownJob(bid_job_id.to_owned());
        let job = self.repo.job(bid_job_id).await?.ok_or_else(unknown)?;
        if by.is_some_and(|caller| !caller.may_act_as(&job.bid_job_creator_id)) {
            return Err(OrcadeError::NotCreator { bid_job_id: bid_job_id.to_owned(), action: "close" });
        }
        if job.bid_job_status == BidJobStatus::Closed || !self.closing.close(&job, "closed by its creator").await? {
            return Err(OrcadeError::AlreadyClosed(bid_job_id.to_owned()));
        }
        self.repo.job(bid_job_id).await?.ok_or_else(unknown)
    }

    /// Closes `bid_job_id` if it is an open job whose `bid_job_closes_at` has passed, and
    /// requests its evaluation (the target of its one-shot `close-<id>` schedule). Returns
    /// whether this call closed it: false for a job closed already, not due, not open-mode or
    /// gone, so a schedule that fires twice, or after the sweep, changes nothing.
    #[tracing::instrument(skip_all, fields(bid_job_id = bid_job_id))]
    pub async fn close_job_if_due(&self, bid_job_id: &str) -> Result<bool, OrcadeError> {
        let Some(job) = self.repo.job(bid_job_id).await? else {
            tracing::info!("one-shot close of a job that is gone");
            return Ok(false);
        };
        let due = job.bid_job_mode == BidJobMode::Open
            && job.bid_job_status == BidJobStatus::Open
            && job.bid_job_closes_at.is_some_and(|at| at <= self.clock.now());
        if !due {
            return Ok(false);
        }
        self.closing.close(&job, "bid_job_closes_at passed").await
    }

    /// Closes every open job whose `bid_job_closes_at` has passed, each once, and requests its
    /// evaluation. Idempotent: a job closed already is not found again. Returns the jobs this
    /// call closed.
    #[tracing::instrument(skip_all)]
    pub async fn close_due_jobs(&self) -> Result<Vec<String>, OrcadeError> {
        let mut closed = Vec::new();
        for job in self.repo.jobs_due(self.clock.now()).await? {
            if self.close_due(&job).await {
                closed.push(job.bid_job_id);
            }
        }
        Ok(closed)
    }

    /// Closes one due job, in its span; whether this call closed it (a failure is logged).
    #[tracing::instrument(skip_all, fields(bid_job_id = %job.bid_job_id))]
    async fn close_due(&self, job: &BidJob) -> bool {
        self.closing.close(job, "bid_job_closes_at passed").await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "due job not closed; the next sweep tries again");
            false
        })
    }
}

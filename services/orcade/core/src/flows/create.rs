//! Create a job (`POST /bid-jobs`, §3): parsed with the rules' catalogue, its hooks checked,
//! stored; then a closed or mixed job's `bid_request` deliveries are queued (one per roster
//! subject, through one fan-out item on the delivery queue, [`crate::messages::BidRequests`]: the
//! request writes the job and that item whatever the roster, and the delegate is never called
//! inline), and
//! an open job with a time limit gets its one-shot close at `bid_job_closes_at`.

use crate::error::OrcadeError;
use crate::hooks::OrcadeHooks;
use crate::messages::{close_request, close_schedule_name};
use crate::ports::{Clock, OneShotSchedules, WorkQueue};
use crate::repo::Repo;
use agora_orcade_rules::Catalogue;
use agora_orcade_schema::{new_id, parse_create_request, BidJob};
use agora_store::StoreError;
use serde_json::Value;
use std::sync::Arc;

/// Attempts at a fresh id when a generated one collides.
const ID_ATTEMPTS: usize = 4;

/// The create flow: the store, the hooks (to check the modes), the delivery queue, one-shot
/// schedules and the clock.
#[derive(Clone)]
pub struct JobCreator {
    repo: Repo,
    hooks: OrcadeHooks,
    deliveries: Arc<dyn WorkQueue>,
    schedules: Arc<dyn OneShotSchedules>,
    clock: Arc<dyn Clock>,
}

impl JobCreator {
    pub fn new(
        repo: Repo,
        hooks: OrcadeHooks,
        deliveries: Arc<dyn WorkQueue>,
        schedules: Arc<dyn OneShotSchedules>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { repo, hooks, deliveries, schedules, clock }
    }

    /// Validates a create request and stores the job; returns it as stored. Its span names the
    /// job once the request parses.
    #[tracing::instrument(skip_all, fields(bid_job_id = tracing::field::Empty))]
    pub async fn create_job(&self, body: &Value) -> Result<BidJob, OrcadeError> {
        let chosen = body.get("bid_job_id").is_some_and(|v| !v.is_null());
        for _ in 0..ID_ATTEMPTS {
            let job = parse_create_request(body, &new_id(), self.clock.now(), &Catalogue).map_err(OrcadeError::InvalidJob)?;
            tracing::Span::current().record("bid_job_id", job.bid_job_id.as_str());
            super::check_hooks(&self.hooks, &job)?;
            match self.repo.insert_job(&job).await {
                Ok(()) => {
                    tracing::info!(mode = %job.bid_job_mode, "bid job created");
                    self.request_bids(&job).await;
                    self.schedule_close(&job).await;
                    return Ok(job);
                }
                Err(StoreError::Duplicate { .. }) if chosen => return Err(OrcadeError::JobIdTaken(job.bid_job_id)),
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(OrcadeError::internal("could not generate an unused bid_job_id"))
    }

    /// Queues one `bid_request` per roster subject of a closed or mixed job.
    async fn request_bids(&self, job: &BidJob) {
        if job.bid_job_mode.has_fixed_roster() {
            crate::messages::request_bids(self.deliveries.as_ref(), job, None).await;
        }
    }

    /// Asks for the one-shot close of an open job with a time limit. A failure is logged: the
    /// close sweep closes the job anyway.
    async fn schedule_close(&self, job: &BidJob) {
        let Some(at) = job.bid_job_closes_at else { return };
        let id = &job.bid_job_id;
        if let Err(e) = self.schedules.schedule(&close_schedule_name(id), at, &close_request(id)).await {
            tracing::warn!(error = %e, "one-shot close not scheduled; the close sweep will close the job");
        }
    }
}

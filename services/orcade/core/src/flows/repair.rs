//! The repair sweep: finds closed jobs whose evaluation is neither applied, under way nor
//! queued, and requests it again, so that no crash leaves a closed job unevaluated:
//!
//! - **never requested**: the job is closed but no request was recorded (the closer died
//!   between the close and the queue);
//! - **request lost**: the request's claim ran out (queued a day ago and still not applied: the
//!   queue dead-lettered it, so it is requested again at most once a day);
//! - **evaluator gone**: the evaluator's claim is held and its lease ran out unrenewed.
//!
//! It finds its candidates with two queries (the closed jobs, the applied evaluations), so a
//! sweep costs two reads plus a few per stalled job, not one per job ever closed.

use crate::closing::{evaluate_claim, request_claim, Closing};
use crate::error::OrcadeError;
use crate::ports::Clock;
use crate::repo::Repo;
use agora_store::claims::{Claim, ClaimState};
use std::collections::HashSet;
use std::sync::Arc;

/// Why the sweep requested a job's evaluation again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
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

    /// Requests the evaluation of every stalled closed job; returns them, with why.
    pub async fn repair_stalled_jobs(&self) -> Result<Vec<(String, Stall)>, OrcadeError> {
        let applied: HashSet<String> = self.repo.applied_job_ids().await?.into_iter().collect();
        let mut repaired = Vec::new();
        for id in self.repo.closed_job_ids().await?.into_iter().filter(|id| !applied.contains(id)) {
            match self.repair(&id).await {
                Ok(Some(stall)) => {
                    tracing::warn!(bid_job_id = %id, ?stall, "stalled evaluation requested again");
                    repaired.push((id, stall));
                }
                Ok(None) => {}
                Err(e) => tracing::error!(bid_job_id = %id, error = %e, "repair check failed"),
            }
        }
        Ok(repaired)
    }

    async fn repair(&self, id: &str) -> Result<Option<Stall>, OrcadeError> {
        let claims = self.closing.claims();
        let now = self.clock.now();
        let stall = match claims.state(&evaluate_claim(id), now).await? {
            ClaimState::Live | ClaimState::Settled => return Ok(None),
            ClaimState::Expired => Stall::EvaluatorGone,
            ClaimState::Free => match claims.state(&request_claim(id), now).await? {
                ClaimState::Live | ClaimState::Settled => return Ok(None),
                ClaimState::Expired => Stall::RequestLost,
                ClaimState::Free => Stall::NeverRequested,
            },
        };
        // One repair per lease, however many sweeps run at once.
        if claims.claim(&format!("repair:{id}"), now, Some(self.closing.leases().claim)).await? == Claim::Held {
            return Ok(None);
        }
        self.closing.fence(id).await?;
        self.closing.request(id).await?;
        Ok(Some(stall))
    }
}

//! The repair sweep: finds started tasks whose trigger holds but whose evaluation is neither
//! under way nor queued, and requests it again. It runs beside the start sweep (locally every
//! sweep interval, on AWS in `start-tasks` every minute), so that no crash leaves a task
//! `started` for ever:
//!
//! - **never requested**: the trigger holds (the stored count says so: the sum of the shards
//!   of [`trigger::qualified_counter`], read in parallel) but nobody took the trigger claim: the
//!   process died between storing the triggering vote and claiming;
//! - **request lost**: the trigger claim is leased and its lease ran out unsettled: the
//!   requester died before the queue took the request;
//! - **evaluator gone**: the evaluator's claim is held and its lease ran out unrenewed: the
//!   evaluator died mid-work (its queue message may be gone too).
//!
//! - **deadline passed**: the task has a deadline, it has come, and nobody requested
//!   the evaluation: it is requested now, once (the trigger claim), and evaluates the votes on
//!   file.
//!
//! A recorded request (the trigger claim on its long lease, a day) with no evaluator claim means
//! the queue holds it (waiting, retrying, or dead-lettered after its attempts): the sweep leaves
//! it to the queue, and requests a dead-lettered evaluation again once a day at most. Requests
//! are deduplicated by the claims: at most one per task per lease.

use crate::error::VotingError;
use crate::flows::vote::request_evaluation;
use crate::ports::{Clock, WorkQueue};
use crate::repo::Repo;
use crate::trigger::{self, TriggerLeases};
use agora_store::claims::{Claim, ClaimState, Claims};
use agora_store::DocumentStore;
use agora_voting_schema::SocialTaskCoreData;
use std::sync::Arc;

/// Why the sweep requested a task's evaluation again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    NeverRequested,
    RequestLost,
    EvaluatorGone,
    /// The task's deadline has passed and its evaluation was never requested: it is
    /// evaluated with the votes on file.
    DeadlinePassed,
}

/// Whether the task has a deadline and it has come.
fn deadline_passed(task: &SocialTaskCoreData, now: chrono::DateTime<chrono::Utc>) -> bool {
    task.options().deadline_at(task.start_time).is_some_and(|d| d <= now)
}

/// The repair flow: the store and its claims, the evaluation queue, the clock.
#[derive(Clone)]
pub struct Repairer {
    repo: Repo,
    claims: Claims,
    evaluations: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
    /// The leases of the trigger's claim (the repair's own claim takes the short one).
    leases: TriggerLeases,
}

impl Repairer {
    pub fn new(store: Arc<dyn DocumentStore>, evaluations: Arc<dyn WorkQueue>, clock: Arc<dyn Clock>, leases: TriggerLeases) -> Self {
        Self { repo: Repo::new(store.clone()), claims: Claims::new(store), evaluations, clock, leases }
    }

    /// Requests the evaluation of every stalled started task. Returns the tasks it requested,
    /// with why.
    #[tracing::instrument(skip_all)]
    pub async fn repair_stalled_tasks(&self) -> Result<Vec<(String, Stall)>, VotingError> {
        let mut repaired = Vec::new();
        for task in self.repo.started_tasks().await? {
            if let Some(stall) = self.repair_task(&task).await {
                repaired.push((task.social_task_id.clone(), stall));
            }
        }
        Ok(repaired)
    }

    /// A task's deadline timer is due: requests its evaluation if it is `started`,
    /// its deadline has come and nobody requested it yet (the trigger claim keeps this to once).
    #[tracing::instrument(skip_all, fields(social_task_id = social_task_id))]
    pub async fn close_at_deadline(&self, social_task_id: &str) -> Result<Option<Stall>, VotingError> {
        let Some(task) = self.repo.task(social_task_id).await? else { return Ok(None) };
        if task.status() != Some(&agora_voting_schema::TaskStatus::Started) || !deadline_passed(&task, self.clock.now()) {
            return Ok(None);
        }
        let stall = self.repair(&task).await?;
        if stall.is_some() {
            tracing::info!("deadline reached; evaluation requested");
        }
        Ok(stall)
    }

    /// [`Self::repair`] in the task's span, its outcome logged.
    #[tracing::instrument(skip_all, fields(social_task_id = %task.social_task_id))]
    async fn repair_task(&self, task: &SocialTaskCoreData) -> Option<Stall> {
        match self.repair(task).await {
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

    /// Requests the task's evaluation if it is stalled; says why.
    async fn repair(&self, task: &SocialTaskCoreData) -> Result<Option<Stall>, VotingError> {
        let id = &task.social_task_id;
        let now = self.clock.now();
        match self.claims.state(&trigger::evaluate_claim(id), now).await? {
            ClaimState::Live | ClaimState::Settled => return Ok(None),
            ClaimState::Expired => {
                // The trigger claim is settled: the repair's own claim keeps this to one request
                // per lease while the evaluator picks it up.
                if self.claims.claim(&format!("repair:{id}"), now, Some(self.leases.claim)).await? == Claim::Held {
                    return Ok(None);
                }
                self.evaluations
                    .send(id, &crate::messages::evaluation_request(id), std::time::Duration::ZERO)
                    .await
                    .map_err(|e| VotingError::internal_caused("the evaluation request could not be queued", e))?;
                return Ok(Some(Stall::EvaluatorGone));
            }
            ClaimState::Free => {}
        }
        let stall = match self.claims.state(&trigger::trigger_claim(id), now).await? {
            ClaimState::Settled | ClaimState::Live => return Ok(None),
            ClaimState::Expired => Stall::RequestLost,
            ClaimState::Free if deadline_passed(task, now) => Stall::DeadlinePassed,
            ClaimState::Free => {
                let Some(needed) = trigger::threshold(task) else { return Ok(None) };
                if u64::try_from(self.repo.qualified_count(task).await?).unwrap_or(0) < needed {
                    return Ok(None);
                }
                Stall::NeverRequested
            }
        };
        if self.claims.claim(&trigger::trigger_claim(id), now, Some(self.leases.claim)).await? == Claim::Held {
            return Ok(None);
        }
        request_evaluation(&self.claims, self.evaluations.as_ref(), id, now, self.leases.request).await?;
        Ok(Some(stall))
    }
}

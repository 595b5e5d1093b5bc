//! The handlers of Xchange's queues: the rule that turns each outcome into done or retry, for the
//! SQS consumer and the local queue alike. The messages they read are in [`crate::messages`].

use crate::flows::assign::{AssignOutcome, Assigner};
use crate::flows::bidding::Bidder;
use crate::messages::{parse_resolution, Assignment};
use agora_ports::{WorkHandler, WorkOutcome};
use async_trait::async_trait;

/// Does the work of the assignment queue.
#[derive(Clone)]
pub struct AssignmentWork {
    assigner: Assigner,
    bidder: Bidder,
}

impl AssignmentWork {
    pub fn new(assigner: Assigner, bidder: Bidder) -> Self {
        Self { assigner, bidder }
    }
}

#[async_trait]
impl WorkHandler for AssignmentWork {
    /// Done once the task is assigned, final, or bidding (and its next poll queued); busy while
    /// another worker holds the task; retry on a transient failure. Its span names the task once
    /// the body is read.
    #[tracing::instrument(name = "assignment_work", skip_all, fields(task_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let work = match Assignment::parse(body) {
            Ok(w) => w,
            Err(reason) => {
                tracing::error!(%reason, "assignment dropped");
                return WorkOutcome::Done;
            }
        };
        let (Assignment::Assign { task_id } | Assignment::Poll { task_id, .. }) = &work;
        tracing::Span::current().record("task_id", task_id.as_str());
        match work {
            Assignment::Assign { task_id } => match self.assigner.assign(&task_id).await {
                Ok(AssignOutcome::InProgress) => {
                    WorkOutcome::Busy { reason: format!("task {task_id} is held by another worker"), after: self.assigner.busy_retry() }
                }
                Ok(AssignOutcome::Retry(reason)) => WorkOutcome::Retry(reason),
                Ok(outcome) => {
                    tracing::debug!(?outcome, "assignment handled");
                    WorkOutcome::Done
                }
                Err(e) => WorkOutcome::Retry(e.to_string()),
            },
            Assignment::Poll { task_id, attempt } => match self.bidder.poll(&task_id, attempt).await {
                Ok(_) => WorkOutcome::Done,
                Err(e) => WorkOutcome::Retry(e.to_string()),
            },
        }
    }
}

/// Does the work of the bidding-outcome queue: settles the task of each resolved job.
#[derive(Clone)]
pub struct BiddingOutcomeWork {
    bidder: Bidder,
}

impl BiddingOutcomeWork {
    pub fn new(bidder: Bidder) -> Self {
        Self { bidder }
    }
}

#[async_trait]
impl WorkHandler for BiddingOutcomeWork {
    /// Done once the job's task is settled (or the event names no task of ours); retry on a
    /// transient failure. Its span names the job once the body is read.
    #[tracing::instrument(name = "bidding_outcome_work", skip_all, fields(bid_job_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = match parse_resolution(body) {
            Ok(id) => id,
            Err(reason) => {
                tracing::error!(%reason, "resolution event dropped");
                return WorkOutcome::Done;
            }
        };
        tracing::Span::current().record("bid_job_id", id.as_str());
        match self.bidder.resolved(&id).await {
            Ok(settle) => {
                tracing::debug!(?settle, "resolution event handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

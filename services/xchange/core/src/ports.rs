//! The ports the Xchange flows run over: the platform's (clock, work queue, one-shot schedules,
//! the delegate system, the hook runner) and one of its own, [`Bidding`]: Orcade, which runs in
//! process when both services share a deployment and over HTTP (`ORCADE_URL`) otherwise.

pub use agora_hooks::HookError;
pub use agora_ports::{
    Clock, Delegate, DelegateError, DelegateRequest, NoSchedules, OneShotSchedules, QueueError, ScheduleError, SystemClock, WorkHandler,
    WorkOutcome, WorkQueue,
};
use async_trait::async_trait;
use serde_json::Value;

/// How a bid job stands, as bidding mode reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum BidOutcome {
    /// Not resolved yet: bids are coming, or the evaluation or the winner's delivery is pending.
    Pending,
    /// The winner's `bid_winner` task result is stored: the whole `BidTaskResult` document.
    Winner(Value),
    /// The evaluator found no valid bids.
    NoValidBids,
    /// The evaluation failed for good; why.
    Failed(String),
    /// Read from Orcade §3's routes alone (an Orcade that keeps no evaluation record Xchange can
    /// read): the job is `closed`, none of its bids `is_winner` and no `bid_winner` result is
    /// stored. Either its evaluation has not run yet, or it found no winner (`no_valid_bids`,
    /// or an evaluation that failed): §3's routes do not tell these apart. `accepted_bids` is
    /// the number of bids on file that passed the PQT (not `bid_data.bid_rejected`); with none,
    /// no evaluation can name a winner.
    ClosedWithoutWinner { accepted_bids: usize },
    /// The job no longer exists.
    Gone,
}

/// Why Orcade did not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BiddingError {
    /// Orcade refused the request (a 4xx): asking again cannot help. Says why.
    #[error("{0}")]
    Refused(String),
    /// Orcade could not be reached or failed (a 5xx): ask again later.
    #[error("{0}")]
    Unavailable(String),
}

/// Orcade, as bidding mode uses it.
#[async_trait]
pub trait Bidding: Send + Sync + 'static {
    /// Creates the bid job `request` describes (a `POST /bid-jobs` body with its `bid_job_id`);
    /// a job with that id existing already is success (a repeated request).
    async fn create_job(&self, request: &Value) -> Result<(), BiddingError>;

    /// How the job stands.
    async fn outcome(&self, bid_job_id: &str) -> Result<BidOutcome, BiddingError>;
}

/// No Orcade: bidding tasks fail, saying so.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBidding;

#[async_trait]
impl Bidding for NoBidding {
    async fn create_job(&self, _request: &Value) -> Result<(), BiddingError> {
        Err(BiddingError::Refused("bidding mode is not available in this deployment: no Orcade is configured (ORCADE_URL)".into()))
    }

    async fn outcome(&self, _bid_job_id: &str) -> Result<BidOutcome, BiddingError> {
        Ok(BidOutcome::Gone)
    }
}

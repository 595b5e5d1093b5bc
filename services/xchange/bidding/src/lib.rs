//! Xchange's [`Bidding`] port over Orcade, both ways Orcade can run:
//!
//! * [`InProcessOrcade`]: Orcade's own flows, when both services share a deployment (the local
//!   server, one AWS stack). Orcade's resolution events tell Xchange when a job is resolved.
//! * [`HttpOrcade`]: Orcade's HTTP API at `ORCADE_URL`, when Orcade runs elsewhere. No events
//!   come from there: Xchange polls (`GET /bid-jobs/{id}/task-results` for the `bid_winner`,
//!   Agora's `GET /bid-jobs/{id}/evaluation` for a decision with no winner, and, from an Orcade
//!   without that route, the job's `bid_job_status` and its bids: see [`HttpOrcade`]).

mod http;

pub use http::{HttpOrcade, ORCADE_URL_ENV};

use agora_orcade_core::{Decision, JobCreator, OrcadeError, Queries};
use agora_xchange_core::{BidOutcome, Bidding, BiddingError};
use async_trait::async_trait;
use serde_json::Value;

/// Orcade's flows in this process.
#[derive(Clone)]
pub struct InProcessOrcade {
    /// `None` in a function that only reads outcomes.
    creator: Option<JobCreator>,
    queries: Queries,
}

impl InProcessOrcade {
    pub fn new(creator: JobCreator, queries: Queries) -> Self {
        Self { creator: Some(creator), queries }
    }

    /// Orcade's outcomes only, for a function that creates no job (the bidding-outcome and
    /// deadline functions on AWS): a create is refused, saying so.
    pub fn reader(queries: Queries) -> Self {
        Self { creator: None, queries }
    }
}

fn unavailable(e: OrcadeError) -> BiddingError {
    BiddingError::Unavailable(e.to_string())
}

#[async_trait]
impl Bidding for InProcessOrcade {
    async fn create_job(&self, request: &Value) -> Result<(), BiddingError> {
        let Some(creator) = &self.creator else {
            return Err(BiddingError::Unavailable("this function reads bid jobs' outcomes only; it creates no job".into()));
        };
        match creator.create_job(request).await {
            Ok(_) | Err(OrcadeError::JobIdTaken(_)) => Ok(()),
            Err(e @ OrcadeError::Internal(_)) => Err(unavailable(e)),
            Err(e) => Err(BiddingError::Refused(e.to_string())),
        }
    }

    async fn outcome(&self, bid_job_id: &str) -> Result<BidOutcome, BiddingError> {
        let results = match self.queries.task_results_of(bid_job_id).await {
            Ok(results) => results,
            Err(OrcadeError::UnknownJob(_)) => return Ok(BidOutcome::Gone),
            Err(e) => return Err(unavailable(e)),
        };
        for doc in results {
            let result: Value = serde_json::from_str(doc.get()).map_err(|e| BiddingError::Unavailable(e.to_string()))?;
            if result.get("task_type").and_then(Value::as_str) == Some("bid_winner") {
                return Ok(BidOutcome::Winner(result));
            }
        }
        Ok(match self.queries.evaluation(bid_job_id).await {
            Ok(Some(record)) => match record.decision {
                Decision::NoValidBids { .. } => BidOutcome::NoValidBids,
                Decision::Failed { error } => BidOutcome::Failed(error),
                // Decided; its bid_winner is not stored yet.
                Decision::Winner { .. } => BidOutcome::Pending,
            },
            Ok(None) => BidOutcome::Pending,
            Err(OrcadeError::UnknownJob(_)) => BidOutcome::Gone,
            Err(e) => return Err(unavailable(e)),
        })
    }
}

#[cfg(test)]
mod tests {
    /// Xchange marks its jobs with the key Orcade looks for before it announces a resolution.
    #[test]
    fn xchange_marks_its_jobs_as_orcade_expects() {
        assert_eq!(agora_xchange_core::JOB_MARK, agora_orcade_core::RESOLUTION_MARK);
    }
}

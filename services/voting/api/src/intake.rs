//! The message intake of §5.3: votes arriving as messages (NATS `vote.submit`), the same JSON as
//! `POST /submit-vote`, taken through the same flow. Nothing is replied; the outcome of each is
//! logged with the vote's ids. The transport (`agora-nats`) is wired by the front door.

use crate::error::ApiError;
use agora_voting_core::{Voting, VotingError};
use serde_json::Value;

/// The subject inbound votes arrive on (§5.3).
pub const VOTE_SUBJECT: &str = "vote.submit";

/// What became of one inbound vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoteOutcome {
    /// Stored (or a retry of a stored vote), with the PQT verdict.
    Accepted { qualified: bool },
    /// Refused by the flow; the message is the one `POST /submit-vote` would answer.
    Refused(String),
    /// The payload is not JSON.
    NotJson(String),
    /// The flow failed (store unreachable, queue down); the voter may send it again.
    Failed(String),
}

/// Takes one inbound vote (the payload of a `vote.submit` message) through
/// [`Voting::submit_vote`] and logs the outcome with the vote's ids.
pub async fn take_vote(voting: &Voting, subject: &str, payload: &[u8]) -> VoteOutcome {
    let body: Value = match serde_json::from_slice(payload) {
        Ok(body) => body,
        Err(e) => {
            let preview = String::from_utf8_lossy(&payload[..payload.len().min(200)]).into_owned();
            tracing::warn!(subject, error = %e, payload = %preview, "inbound vote refused: the payload is not JSON");
            return VoteOutcome::NotJson(e.to_string());
        }
    };
    let field = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (vote_id, task, submitter) = (field("vote_id"), field("social_task_id"), field("submitter_subject_id"));
    match voting.submit_vote(&body).await {
        Ok(accepted) => {
            tracing::info!(subject, vote_id, social_task_id = task, submitter, qualified = accepted.qualified, "inbound vote accepted");
            VoteOutcome::Accepted { qualified: accepted.qualified }
        }
        Err(VotingError::Internal(cause)) => {
            tracing::error!(subject, vote_id, social_task_id = task, submitter, error = %cause, "inbound vote failed");
            VoteOutcome::Failed(cause.to_string())
        }
        Err(refusal) => {
            let reason = ApiError::vote(refusal).message().to_owned();
            tracing::info!(subject, vote_id, social_task_id = task, submitter, %reason, "inbound vote refused");
            VoteOutcome::Refused(reason)
        }
    }
}

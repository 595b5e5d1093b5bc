//! The message intake of §5.3: votes arriving as messages (NATS `vote.submit`), the same JSON as
//! `POST /submit-vote`, taken through the same flow. Nothing is replied; the outcome of each is
//! logged in a span that carries the vote's ids. The transport (`agora-nats`) is wired by the
//! front door.

use crate::error::vote_refusal;
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
/// [`Voting::submit_vote`] and logs the outcome, in a span that carries the message's subject and
/// the vote's ids.
#[tracing::instrument(
    skip_all,
    fields(subject = subject, vote_id = tracing::field::Empty, social_task_id = tracing::field::Empty, submitter = tracing::field::Empty)
)]
pub async fn take_vote(voting: &Voting, subject: &str, payload: &[u8]) -> VoteOutcome {
    let body: Value = match serde_json::from_slice(payload) {
        Ok(body) => body,
        Err(e) => {
            let preview = String::from_utf8_lossy(&payload[..payload.len().min(200)]).into_owned();
            tracing::warn!(error = %e, payload = %preview, "inbound vote refused: the payload is not JSON");
            return VoteOutcome::NotJson(e.to_string());
        }
    };
    let span = tracing::Span::current();
    for (field, key) in [("vote_id", "vote_id"), ("social_task_id", "social_task_id"), ("submitter", "submitter_subject_id")] {
        span.record(field, body.get(key).and_then(Value::as_str).unwrap_or_default());
    }
    match voting.submit_vote(&body).await {
        Ok(accepted) => {
            tracing::info!(qualified = accepted.qualified, "inbound vote accepted");
            VoteOutcome::Accepted { qualified: accepted.qualified }
        }
        Err(VotingError::Internal(cause)) => {
            tracing::error!(error = %cause, "inbound vote failed");
            VoteOutcome::Failed(cause.to_string())
        }
        Err(refusal) => {
            let reason = vote_refusal(refusal).message().to_owned();
            tracing::info!(%reason, "inbound vote refused");
            VoteOutcome::Refused(reason)
        }
    }
}

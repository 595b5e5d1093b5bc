//! NATS, the transport of the earlier platform's agents (§5.1, §5.3):
//!
//! - [`NatsPublisher`]: each §5 message is published on the subject = its address, with the
//!   message JSON as payload ([`agora_voting_core::Publisher`]);
//! - [`run_vote_intake`]: votes arriving on `vote.submit` (the same JSON as
//!   `POST /submit-vote`) go through [`agora_voting_core::Voting::submit_vote`]; nothing is replied,
//!   the outcome of each is logged.

use agora_voting_core::{PublishError, Publisher, VotingError};
use async_nats::{Client, Subscriber};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;
use std::sync::Arc;

pub use agora_voting_core::Voting;

/// The subject inbound votes arrive on (§5.3).
pub const VOTE_SUBJECT: &str = "vote.submit";

/// How many inbound votes are taken through the flow at once.
pub const INTAKE_CONCURRENCY: usize = 64;

/// Why connecting or subscribing failed.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// The server could not be reached or refused the connection.
    #[error("cannot connect to NATS at {url}: {reason}")]
    Connect { url: String, reason: String },
    /// The subscription could not be made.
    #[error("cannot subscribe to NATS subject {subject}: {reason}")]
    Subscribe { subject: String, reason: String },
}

/// Connects to the NATS server(s) at `url` (e.g. `nats://127.0.0.1:4222`; comma-separated
/// for several; credentials in the URL as `nats://user:pass@host`).
pub async fn connect(url: &str) -> Result<Client, NatsError> {
    async_nats::connect(url).await.map_err(|e| NatsError::Connect { url: url.to_owned(), reason: e.to_string() })
}

/// Publishes §5 messages on NATS: subject = the address, payload = the message JSON.
#[derive(Clone, Debug)]
pub struct NatsPublisher {
    client: Client,
}

impl NatsPublisher {
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// A publisher on a new connection to `url` (see [`connect`]).
    pub async fn connect(url: &str) -> Result<Self, NatsError> {
        Ok(Self::new(connect(url).await?))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Why `subject` cannot be published to, or `None` when it can: a subject is one or more
/// non-empty tokens separated by `.`, with no whitespace, control characters or wildcards
/// (`*`, `>`).
pub fn subject_problem(subject: &str) -> Option<&'static str> {
    if subject.is_empty() {
        Some("the subject is empty")
    } else if subject.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a NATS subject cannot contain whitespace or control characters")
    } else if subject.contains(['*', '>']) {
        Some("a NATS subject to publish to cannot contain the wildcards '*' or '>'")
    } else if subject.split('.').any(str::is_empty) {
        Some("a NATS subject cannot start or end with '.' or contain '..'")
    } else {
        None
    }
}

#[async_trait]
impl Publisher for NatsPublisher {
    /// Publishes and flushes, so that an `Ok` means the message was written to the server
    /// (core NATS: delivered to the subscribers present, not stored).
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        let error = |reason: String| PublishError { address: address.to_owned(), reason };
        if let Some(problem) = subject_problem(address) {
            return Err(error(format!("{address:?} is not a valid NATS subject: {problem}")));
        }
        let payload = serde_json::to_vec(message).map_err(|e| error(format!("message does not encode: {e}")))?;
        self.client.publish(address.to_owned(), payload.into()).await.map_err(|e| error(format!("NATS publish failed: {e}")))?;
        self.client.flush().await.map_err(|e| error(format!("NATS flush failed: {e}")))?;
        let event_type = message.get("event_type").and_then(Value::as_str).unwrap_or("message");
        tracing::debug!(recipient = address, event_type, "message published on NATS");
        Ok(())
    }
}

/// Takes votes from `vote.submit` through [`Voting::submit_vote`] until the connection closes:
/// [`subscribe_votes`] on [`VOTE_SUBJECT`], then [`serve_votes`].
pub async fn run_vote_intake(client: Client, voting: Arc<Voting>) -> Result<(), NatsError> {
    let votes = subscribe_votes(&client, VOTE_SUBJECT).await?;
    serve_votes(votes, voting).await;
    Ok(())
}

/// Subscribes to `subject` for inbound votes. The subscription is sent before this returns, so
/// a vote published afterwards on the same connection reaches it.
pub async fn subscribe_votes(client: &Client, subject: &str) -> Result<Subscriber, NatsError> {
    let error = |reason: String| NatsError::Subscribe { subject: subject.to_owned(), reason };
    let votes = client.subscribe(subject.to_owned()).await.map_err(|e| error(e.to_string()))?;
    client.flush().await.map_err(|e| error(e.to_string()))?;
    tracing::info!(subject, "NATS vote intake listening");
    Ok(votes)
}

/// Takes each vote on `votes` through [`Voting::submit_vote`], up to [`INTAKE_CONCURRENCY`] at
/// once, until the subscription ends. Nothing is replied; the outcome of each is logged.
pub async fn serve_votes(votes: Subscriber, voting: Arc<Voting>) {
    votes
        .for_each_concurrent(INTAKE_CONCURRENCY, |message| {
            let voting = voting.clone();
            async move {
                take_vote(&voting, &message.subject, &message.payload).await;
            }
        })
        .await;
    tracing::info!("NATS vote intake stopped: the subscription ended");
}

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
            tracing::warn!(subject, error = %e, payload = %preview, "NATS vote refused: the payload is not JSON");
            return VoteOutcome::NotJson(e.to_string());
        }
    };
    let field = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (vote_id, task, submitter) = (field("vote_id"), field("social_task_id"), field("submitter_subject_id"));
    match voting.submit_vote(&body).await {
        Ok(accepted) => {
            tracing::info!(subject, vote_id, social_task_id = task, submitter, qualified = accepted.qualified, "NATS vote accepted");
            VoteOutcome::Accepted { qualified: accepted.qualified }
        }
        Err(VotingError::Internal(reason)) => {
            tracing::error!(subject, vote_id, social_task_id = task, submitter, %reason, "NATS vote failed");
            VoteOutcome::Failed(reason)
        }
        Err(refusal) => {
            tracing::info!(subject, vote_id, social_task_id = task, submitter, reason = %refusal, "NATS vote refused");
            VoteOutcome::Refused(refusal.to_string())
        }
    }
}

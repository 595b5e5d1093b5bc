//! Votes from NATS (§5.3): the subject `vote.submit` handed to voting's message intake.

use agora_voting_api::intake::{take_vote, VOTE_SUBJECT};
use agora_voting_core::Voting;
use async_trait::async_trait;
use std::sync::Arc;

/// Voting's vote intake as a NATS [`agora_nats::Intake`].
pub struct VoteIntake(pub Arc<Voting>);

#[async_trait]
impl agora_nats::Intake for VoteIntake {
    async fn take(&self, subject: &str, payload: &[u8]) {
        take_vote(&self.0, subject, payload).await;
    }
}

/// Takes votes from `vote.submit` on `client` until the connection closes.
pub async fn run_vote_intake(client: async_nats::Client, voting: Arc<Voting>) -> Result<(), agora_nats::NatsError> {
    agora_nats::run_intake(client, VOTE_SUBJECT, Arc::new(VoteIntake(voting))).await
}

/// Connects to the NATS server at `url` and takes votes from it in a task of its own.
pub async fn start(url: &str, voting: Arc<Voting>) -> Result<tokio::task::JoinHandle<()>, agora_nats::NatsError> {
    let client = agora_nats::connect(url).await?;
    tracing::info!(url, subject = VOTE_SUBJECT, "taking votes from NATS");
    Ok(tokio::spawn(async move {
        if let Err(e) = run_vote_intake(client, voting).await {
            tracing::error!(error = %e, "NATS vote intake stopped");
        }
    }))
}

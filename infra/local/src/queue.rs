//! The evaluation queue in process: requests go onto a channel; one worker evaluates them,
//! retrying transient failures a bounded number of times, then giving up with a log line
//! (the local counterpart of SQS with a dead-letter queue).

use agora_voting_core::{EvaluationOutcome, EvaluationQueue, QueueError, Voting};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Attempts per evaluation request before it is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 3;

#[derive(Clone)]
pub struct InProcessQueue {
    tx: mpsc::UnboundedSender<String>,
}

impl InProcessQueue {
    /// The queue and the receiving end its worker consumes.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

#[async_trait]
impl EvaluationQueue for InProcessQueue {
    async fn request_evaluation(&self, social_task_id: &str) -> Result<(), QueueError> {
        self.tx
            .send(social_task_id.to_owned())
            .map_err(|_| QueueError { social_task_id: social_task_id.to_owned(), reason: "the evaluation worker has stopped".into() })
    }
}

/// Consumes evaluation requests until the queue closes. Each request runs in its own task.
pub async fn run_worker(voting: Arc<Voting>, mut rx: mpsc::UnboundedReceiver<String>, retry_delay: Duration) {
    while let Some(id) = rx.recv().await {
        let voting = voting.clone();
        tokio::spawn(async move { evaluate_with_retries(&voting, &id, retry_delay).await });
    }
}

async fn evaluate_with_retries(voting: &Voting, id: &str, retry_delay: Duration) {
    for attempt in 1..=MAX_ATTEMPTS {
        let retry = match voting.evaluate_task(id).await {
            Ok(EvaluationOutcome::Failed { retryable, reason }) => {
                tracing::warn!(social_task_id = id, attempt, retryable, %reason, "evaluation attempt failed");
                retryable
            }
            Ok(outcome) => {
                tracing::debug!(social_task_id = id, ?outcome, "evaluation request done");
                return;
            }
            Err(e) => {
                tracing::warn!(social_task_id = id, attempt, error = %e, "evaluation attempt failed");
                true
            }
        };
        if !retry {
            break;
        }
        if attempt < MAX_ATTEMPTS {
            tokio::time::sleep(retry_delay * attempt).await;
        }
    }
    tracing::error!(social_task_id = id, "evaluation request dead-lettered; the task stays started with no report");
}

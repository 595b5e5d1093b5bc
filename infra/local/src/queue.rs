//! The work queue in process: work goes onto a channel (after its delay); one worker hands each
//! piece to the queue's [`WorkHandler`] in a task of its own, and applies the platform's rule to
//! the outcome: `Done` ends it, `Retry` runs it again after a growing delay, up to
//! [`MAX_ATTEMPTS`], then it is dead-lettered with a log line (the local counterpart of SQS with a
//! dead-letter queue).

use agora_ports::{QueueError, WorkHandler, WorkOutcome, WorkQueue};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Attempts per piece of work before it is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 3;

/// One piece of work: its key and body.
type Work = (String, String);

#[derive(Clone)]
pub struct LocalQueue {
    name: &'static str,
    tx: mpsc::UnboundedSender<Work>,
}

impl LocalQueue {
    /// The queue `name` (for logs) and the receiving end its worker consumes.
    pub fn new(name: &'static str) -> (Self, mpsc::UnboundedReceiver<Work>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { name, tx }, rx)
    }
}

#[async_trait]
impl WorkQueue for LocalQueue {
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
        let work = (key.to_owned(), body.to_owned());
        let stopped = || QueueError { key: key.to_owned(), reason: format!("the {} worker has stopped", self.name) };
        if delay.is_zero() {
            return self.tx.send(work).map_err(|_| stopped());
        }
        if self.tx.is_closed() {
            return Err(stopped());
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let _ = tx.send(work);
        });
        Ok(())
    }
}

/// Consumes work until the queue closes. Each piece runs in its own task.
pub async fn run_worker(handler: Arc<dyn WorkHandler>, mut rx: mpsc::UnboundedReceiver<Work>, retry_delay: Duration) {
    while let Some((key, body)) = rx.recv().await {
        let handler = handler.clone();
        tokio::spawn(async move { handle_with_retries(handler.as_ref(), &key, &body, retry_delay).await });
    }
}

async fn handle_with_retries(handler: &dyn WorkHandler, key: &str, body: &str, retry_delay: Duration) {
    for attempt in 1..=MAX_ATTEMPTS {
        match handler.handle(body).await {
            WorkOutcome::Done => return,
            WorkOutcome::Retry(reason) => {
                tracing::warn!(key, attempt, %reason, "work attempt failed");
                if attempt < MAX_ATTEMPTS {
                    tokio::time::sleep(retry_delay * attempt).await;
                }
            }
        }
    }
    tracing::error!(key, attempts = MAX_ATTEMPTS, "work dead-lettered");
}

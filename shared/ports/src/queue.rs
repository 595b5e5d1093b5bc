//! Work to do later, at least once: a body and a key go in (SQS on AWS, the local queue in
//! process), and a [`WorkHandler`] answers each delivery with a [`WorkOutcome`]. Both queues
//! apply the same rule to it: `Done` removes the work, `Retry` delivers it again later, up to
//! the queue's limit, after which it is dead-lettered.

use async_trait::async_trait;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("work {key} could not be queued: {reason}")]
pub struct QueueError {
    /// The key the work was sent with.
    pub key: String,
    pub reason: String,
}

/// Where work goes.
#[async_trait]
pub trait WorkQueue: Send + Sync + 'static {
    /// Queues `body`, to be delivered once `delay` has passed (rounded as the queue can; zero
    /// for now). `key` names the work: a FIFO queue groups and deduplicates by it, logs show it.
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError>;
}

/// What became of one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkOutcome {
    /// Done: finished, found done already, or failed in a way a retry cannot mend (logged).
    Done,
    /// Deliver it again later; the reason is for the log. Counts as a failed attempt: after the
    /// queue's limit the work is dead-lettered.
    Retry(String),
    /// Another worker holds this work under a lease (or it died holding it): deliver it again
    /// after `after`, not counted as a failed attempt, since the lease bounds the wait.
    Busy { reason: String, after: Duration },
}

/// Does the work of one delivery. The same handler serves the SQS consumer and the local queue.
#[async_trait]
pub trait WorkHandler: Send + Sync + 'static {
    async fn handle(&self, body: &str) -> WorkOutcome;
}

/// A queue nobody reads: what is sent to it is dropped. For a service's events when no other
/// service listens (Orcade's resolutions without Xchange).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoListener;

#[async_trait]
impl WorkQueue for NoListener {
    async fn send(&self, _key: &str, _body: &str, _delay: Duration) -> Result<(), QueueError> {
        Ok(())
    }
}

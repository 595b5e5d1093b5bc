//! The work queue in process, durable: each piece of work is a document of the local server's
//! own database ([`WORK_DB`], collection [`WORK`]) from the moment `send` returns until its handler
//! is done with it, so a `kill -9` loses nothing that was queued. At start-up every piece left
//! over is replayed ([`DurableQueue::open`]).
//!
//! One worker hands each piece to the queue's [`WorkHandler`] in a task of its own and applies the
//! platform's rule to the outcome: `Done` deletes it; `Busy` (held by another worker's lease)
//! runs it again after the time it asks for; `Retry` runs it again after a growing delay,
//! up to [`MAX_ATTEMPTS`] (counted in the document, across restarts), then it is dead-lettered:
//! moved to [`DEAD_LETTERS`] with the last reason and logged (the local counterpart of SQS with a
//! dead-letter queue). Work is done at least once; handlers are idempotent (evaluation holds a
//! claim and completes a task once).
//!
//! ```json
//! {"work_id": "0b6c…", "queue": "evaluation", "key": "task_1", "body": "{\"social_task_id\":\"task_1\"}",
//!  "not_before": "2026-10-22T10:00:00.481203", "attempts": 0}
//! ```

use agora_filter::Filter;
use agora_ports::{QueueError, WorkHandler, WorkOutcome, WorkQueue};
use agora_schema::time::format_datetime;
use agora_store::{to_json, Change, CollectionSpec, DatabaseSpec, DocumentStore};
use async_trait::async_trait;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Attempts per piece of work before it is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 3;

/// Queued work, one document per piece until it is done.
pub const WORK: &str = "agora_work";
/// Work that failed [`MAX_ATTEMPTS`] times, kept for inspection.
pub const DEAD_LETTERS: &str = "agora_dead_letters";

/// The local server's own database: its queues.
pub const WORK_DB: DatabaseSpec = DatabaseSpec::new(
    "agora_local",
    &[
        CollectionSpec { name: WORK, key: "work_id", unique: &[], indexed: &["queue"] },
        CollectionSpec { name: DEAD_LETTERS, key: "work_id", unique: &[], indexed: &["queue"] },
    ],
);

/// One piece of work as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Work {
    work_id: String,
    queue: String,
    key: String,
    body: String,
    not_before: String,
    attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_error: Option<String>,
}

/// The sending end of one queue. Cheap to clone.
#[derive(Clone)]
pub struct DurableQueue {
    name: &'static str,
    store: Arc<dyn DocumentStore>,
    tx: mpsc::UnboundedSender<Work>,
}

/// The receiving end its worker consumes ([`run_worker`]).
pub struct Pending {
    name: &'static str,
    store: Arc<dyn DocumentStore>,
    rx: mpsc::UnboundedReceiver<Work>,
}

impl DurableQueue {
    /// The queue `name` in `store` (which holds [`WORK_DB`]), with every piece of work left over
    /// from an earlier run already on its way to the worker.
    pub async fn open(name: &'static str, store: Arc<dyn DocumentStore>) -> Result<(DurableQueue, Pending), crate::BoxError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let queue = DurableQueue { name, store: store.clone(), tx };
        let left = store.find(WORK, &Filter::must(json!({"queue": name}))).await?;
        if !left.is_empty() {
            tracing::info!(queue = name, pieces = left.len(), "replaying queued work left by the last run");
        }
        for doc in left {
            match serde_json::from_str::<Work>(doc.get()) {
                Ok(work) => queue.deliver(work),
                Err(e) => tracing::error!(queue = name, error = %e, "unreadable queued work skipped"),
            }
        }
        Ok((queue, Pending { name, store, rx }))
    }

    /// Hands `work` to the worker once its `not_before` has come.
    fn deliver(&self, work: Work) {
        let wait = delay_until(&work.not_before);
        if wait.is_zero() {
            let _ = self.tx.send(work);
            return;
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = tx.send(work);
        });
    }
}

/// How long until `at` (a stored datetime); zero when past or unreadable.
fn delay_until(at: &str) -> Duration {
    agora_schema::time::parse_datetime_str(at).and_then(|at| (at - Utc::now()).to_std().ok()).unwrap_or(Duration::ZERO)
}

#[async_trait]
impl WorkQueue for DurableQueue {
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
        if self.tx.is_closed() {
            return Err(QueueError { key: key.to_owned(), reason: format!("the {} worker has stopped", self.name) });
        }
        let not_before = Utc::now() + chrono::Duration::from_std(delay).unwrap_or_default();
        let work = Work {
            work_id: uuid::Uuid::new_v4().simple().to_string(),
            queue: self.name.to_owned(),
            key: key.to_owned(),
            body: body.to_owned(),
            not_before: format_datetime(&not_before),
            attempts: 0,
            last_error: None,
        };
        // Stored before `send` returns: from here on a crash does not lose it.
        self.store
            .insert(vec![(WORK, to_json(&work))])
            .await
            .map_err(|e| QueueError { key: key.to_owned(), reason: format!("the {} queue could not store the work: {e}", self.name) })?;
        self.deliver(work);
        Ok(())
    }
}

/// Consumes work until the queue closes. Each piece runs in its own task.
pub async fn run_worker(handler: Arc<dyn WorkHandler>, mut pending: Pending, retry_delay: Duration) {
    while let Some(work) = pending.rx.recv().await {
        let (handler, store, name) = (handler.clone(), pending.store.clone(), pending.name);
        tokio::spawn(async move { handle_with_retries(handler.as_ref(), store.as_ref(), name, work, retry_delay).await });
    }
}

async fn handle_with_retries(handler: &dyn WorkHandler, store: &dyn DocumentStore, queue: &str, mut work: Work, retry_delay: Duration) {
    let key = work.key.clone();
    loop {
        match handler.handle(&work.body).await {
            WorkOutcome::Done => {
                if let Err(e) = store.delete(WORK, &work.work_id, &Filter::all()).await {
                    // Left in the store, it is replayed (and found done) at the next start.
                    tracing::warn!(queue, key, error = %e, "done work not removed from the queue");
                }
                return;
            }
            WorkOutcome::Busy { reason, after } => {
                tracing::info!(queue, key, %reason, ?after, "work is busy elsewhere; trying again later");
                work.not_before = format_datetime(&(Utc::now() + chrono::Duration::from_std(after).unwrap_or_default()));
                let change = Change::set(&json!({"not_before": work.not_before}));
                if let Err(e) = store.update(WORK, &work.work_id, &Filter::all(), &change).await {
                    tracing::warn!(queue, key, error = %e, "retry time not stored");
                }
                tokio::time::sleep(after).await;
            }
            WorkOutcome::Retry(reason) => {
                work.attempts += 1;
                tracing::warn!(queue, key, attempt = work.attempts, %reason, "work attempt failed");
                if work.attempts >= MAX_ATTEMPTS {
                    dead_letter(store, queue, work, reason).await;
                    return;
                }
                let wait = retry_delay * work.attempts;
                work.not_before = format_datetime(&(Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default()));
                work.last_error = Some(reason);
                let change = Change::set(&json!({"attempts": work.attempts, "not_before": work.not_before, "last_error": work.last_error}));
                if let Err(e) = store.update(WORK, &work.work_id, &Filter::all(), &change).await {
                    tracing::warn!(queue, key, error = %e, "attempt count not stored");
                }
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Moves work that failed its last attempt to the dead letters.
async fn dead_letter(store: &dyn DocumentStore, queue: &str, mut work: Work, reason: String) {
    tracing::error!(queue, key = %work.key, attempts = work.attempts, %reason, "work dead-lettered");
    let id = work.work_id.clone();
    work.last_error = Some(reason);
    if let Err(e) = store.insert(vec![(DEAD_LETTERS, to_json(&work))]).await {
        tracing::warn!(queue, key = %work.key, error = %e, "dead letter not stored");
    }
    if let Err(e) = store.delete(WORK, &id, &Filter::all()).await {
        tracing::warn!(queue, key = %work.key, error = %e, "dead-lettered work not removed from the queue");
    }
}

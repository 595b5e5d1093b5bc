//! The dead letters ([`DEAD_LETTERS`]: work that failed [`crate::queue::MAX_ATTEMPTS`] times),
//! as an operator reads them and puts them back on their queues once the cause is mended (a hook
//! redeployed, a delegate system back). The routes are in [`crate::admin`].
//!
//! A dead letter put back ("redriven") goes to its own queue's worker ([`Queues`]) with its
//! attempts starting again from 0; its `last_error` is kept as its `previous_error`, so that
//! one that dies again shows both reasons. See [`DurableQueue::redrive`] for the order of its
//! writes (no loss on a crash; a repeat may queue it twice).
//!
//! ```json
//! {"work_id": "0b6c…", "queue": "evaluation", "key": "task_1", "body": "{\"social_task_id\":\"task_1\"}",
//!  "attempts": 3, "last_error": "evaluation hook: 502 Bad Gateway", "previous_error": null,
//!  "first_try": "2026-10-22T10:00:00.492010", "last_try": "2026-10-22T10:00:01.131577", "agora_trace_id": "5d2e…"}
//! ```

use crate::queue::{DurableQueue, Queues, Redrive, Work, DEAD_LETTERS};
use agora_filter::Filter;
use agora_store::{to_json, DocumentStore, Json, Page, StoreError};
use agora_telemetry::trace;
use futures::{Stream, StreamExt};
use serde_json::json;

/// Most ids an error names (then how many more).
const NAMED_IDS: usize = 20;

/// A dead letter as an operator reads it.
fn view(work: &Work) -> serde_json::Value {
    json!({
        "work_id": work.work_id,
        "queue": work.queue,
        "key": work.key,
        "body": work.body,
        "attempts": work.attempts,
        "last_error": work.last_error,
        "previous_error": work.previous_error,
        "first_try": work.first_try,
        "last_try": work.last_try,
        trace::ATTRIBUTE: work.trace_id,
    })
}

fn read(doc: &Json) -> Result<Work, StoreError> {
    serde_json::from_str(doc.get()).map_err(|e| StoreError::InvalidDocument { collection: DEAD_LETTERS.into(), reason: e.to_string() })
}

fn of_queue(queue: Option<&str>) -> Filter {
    queue.map_or_else(Filter::all, |q| Filter::must(json!({ "queue": q })))
}

/// The dead letters of `queue` (of every queue: `None`) on `page`, oldest first, each as an
/// operator reads it, streamed as the store reads them.
pub async fn list(
    store: &dyn DocumentStore,
    queue: Option<&str>,
    page: Page,
) -> Result<impl Stream<Item = Result<Json, StoreError>> + Send + 'static, StoreError> {
    let docs = store.find_stream(DEAD_LETTERS, &of_queue(queue), page).await?;
    Ok(docs.map(|doc| doc.and_then(|doc| read(&doc)).map(|work| to_json(&view(&work)))))
}

/// Which dead letters to put back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    /// These (each must be a dead letter, of `queue` when it is given); `None`: every one.
    pub work_ids: Option<Vec<String>>,
    /// Only this queue's.
    pub queue: Option<String>,
}

/// Why a redrive did not happen, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RedriveError {
    /// Nothing was put back: some ids name no dead letter (of the queue asked for).
    #[error("No dead letter{} with work_id {}", queue.as_ref().map(|q| format!(" of queue {q:?}")).unwrap_or_default(), named(ids))]
    Unknown { ids: Vec<String>, queue: Option<String> },
    /// Nothing was put back: a dead letter's queue is not one this server runs.
    #[error("Dead letter {work_id:?} belongs to queue {queue:?}, which this server does not run (its queues: {})", runs.join(", "))]
    NotRun { work_id: String, queue: String, runs: Vec<&'static str> },
    /// Nothing was put back: the dead letters could not be read.
    #[error("The dead letters could not be read: {0}")]
    Store(StoreError),
    /// The store failed part way: the ones before `failed` were put back.
    #[error("Dead letter {failed:?} could not be put back on its queue ({error}); the {} before it were: {}", redriven.len(), named(redriven))]
    Stopped { redriven: Vec<String>, failed: String, error: StoreError },
}

/// `ids` quoted and joined, the first [`NAMED_IDS`] of them.
fn named(ids: &[String]) -> String {
    let mut text = ids.iter().take(NAMED_IDS).map(|id| format!("{id:?}")).collect::<Vec<_>>().join(", ");
    if ids.len() > NAMED_IDS {
        text.push_str(&format!(" and {} more", ids.len() - NAMED_IDS));
    }
    if text.is_empty() {
        text.push_str("none");
    }
    text
}

/// Puts the dead letters `selection` names back on their queues (every one checked first:
/// nothing is put back when one is unknown or its queue is not run here). Returns their ids,
/// in the order put back.
pub async fn redrive(store: &dyn DocumentStore, queues: &Queues, selection: &Selection) -> Result<Vec<String>, RedriveError> {
    let queue = selection.queue.as_deref();
    let letters = match &selection.work_ids {
        None => {
            let docs = store.find(DEAD_LETTERS, &of_queue(queue)).await.map_err(RedriveError::Store)?;
            docs.iter().map(read).collect::<Result<Vec<_>, _>>().map_err(RedriveError::Store)?
        }
        Some(ids) => named_letters(store, ids, queue).await?,
    };
    let mut targets: Vec<(DurableQueue, Work)> = Vec::with_capacity(letters.len());
    for work in letters {
        let Some(target) = queues.get(&work.queue) else {
            return Err(RedriveError::NotRun { work_id: work.work_id, queue: work.queue, runs: queues.names() });
        };
        targets.push((target, work));
    }
    let mut redriven = Vec::with_capacity(targets.len());
    for (target, work) in targets {
        let id = work.work_id.clone();
        match target.redrive(work).await {
            Ok(()) => {}
            Err(Redrive::DeadLetterKept(e)) => {
                tracing::warn!(work_id = %id, error = %e, "work put back on its queue, but its dead letter is still listed");
            }
            Err(Redrive::NotQueued(error)) => return Err(RedriveError::Stopped { redriven, failed: id, error }),
        }
        tracing::info!(work_id = %id, queue = target.name(), "dead letter put back on its queue");
        redriven.push(id);
    }
    Ok(redriven)
}

/// The dead letters `ids` (each once, in the order given), of `queue` when it is given.
async fn named_letters(store: &dyn DocumentStore, ids: &[String], queue: Option<&str>) -> Result<Vec<Work>, RedriveError> {
    let mut seen = std::collections::HashSet::new();
    let (mut letters, mut unknown) = (Vec::new(), Vec::new());
    for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
        let doc = store.get(DEAD_LETTERS, id).await.map_err(RedriveError::Store)?;
        match doc.as_ref().map(read).transpose().map_err(RedriveError::Store)? {
            Some(work) if queue.is_none_or(|q| q == work.queue) => letters.push(work),
            _ => unknown.push(id.clone()),
        }
    }
    if !unknown.is_empty() {
        return Err(RedriveError::Unknown { ids: unknown, queue: queue.map(str::to_owned) });
    }
    Ok(letters)
}

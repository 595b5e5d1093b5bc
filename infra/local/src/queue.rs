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
//! dead-letter queue), where an operator reads it and puts it back on its queue
//! ([`crate::dead_letters`], `/admin/dead-letters`). Work is done at least once; handlers are
//! idempotent (evaluation holds a claim and completes a task once).
//!
//! Each piece carries the trace id of the work that sent it (`agora_trace_id`,
//! [`agora_telemetry::trace::ATTRIBUTE`]), and its handler runs in that trace and in a `work`
//! span naming the trace, the queue, the key and the piece, so that every log line of the
//! handler carries them. A piece also records when it was first and last handed to its handler
//! (`first_try`, `last_try`): written with the outcome of a try that does not finish it, so the
//! first try of a piece done at once costs no write (a try cut short by a crash is not recorded,
//! as it is not counted in `attempts`).
//!
//! `send_batch` stores many pieces per `DocumentStore::insert` (at most [`MAX_INSERT_DOCS`]
//! documents and about [`MAX_INSERT_BYTES`] of bodies each, within DynamoDB's 100 writes per
//! transaction, as the local server may run on any store), then hands every stored piece to the
//! worker at once, in the order given: the worker starts them in that order, as it would the
//! same pieces sent one by one.
//!
//! ```json
//! {"work_id": "0b6c…", "queue": "evaluation", "key": "task_1", "body": "{\"social_task_id\":\"task_1\"}",
//!  "not_before": "2026-10-22T10:00:00.481203", "attempts": 0, "agora_trace_id": "5d2e…"}
//! ```
//!
//! and once tried and failed (so in a dead letter):
//!
//! ```json
//! {…, "attempts": 1, "last_error": "the store is down", "first_try": "2026-10-22T10:00:00.492010",
//!  "last_try": "2026-10-22T10:00:00.492010"}
//! ```

use agora_filter::Filter;
use agora_ports::{QueueError, WorkHandler, WorkOutcome, WorkQueue};
use agora_schema::time::format_datetime;
use agora_store::{to_json, Change, CollectionSpec, DatabaseSpec, DocumentStore, StoreError};
use agora_telemetry::{names, trace};
use async_trait::async_trait;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tracing::Instrument;

/// Attempts per piece of work before it is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 3;

/// Most pieces of work one insert of `send_batch` stores (DynamoDB takes 100 writes per
/// transaction; each piece is one).
pub const MAX_INSERT_DOCS: usize = 100;

/// Bodies of one insert of `send_batch` stay under this many bytes (a larger body goes alone).
pub const MAX_INSERT_BYTES: usize = 1024 * 1024;

/// How many keys of the pieces not queued a `send_batch` error names (then how many more).
const NAMED_KEYS: usize = 50;

/// Queued work, one document per piece until it is done.
pub const WORK: &str = "agora_work";
/// Work that failed [`MAX_ATTEMPTS`] times, kept for inspection.
pub const DEAD_LETTERS: &str = "agora_dead_letters";

/// The local server's own database: its queues, and the record of its runs
/// ([`crate::recovery`]).
pub const WORK_DB: DatabaseSpec = DatabaseSpec::new(
    "agora_local",
    &[
        CollectionSpec { name: WORK, key: "work_id", unique: &[], indexed: &["queue"] },
        CollectionSpec { name: DEAD_LETTERS, key: "work_id", unique: &[], indexed: &["queue"] },
        crate::recovery::RUNS_COLLECTION,
    ],
);

/// One piece of work as stored (in [`WORK`], then perhaps in [`DEAD_LETTERS`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Work {
    pub(crate) work_id: String,
    pub(crate) queue: String,
    pub(crate) key: String,
    pub(crate) body: String,
    pub(crate) not_before: String,
    /// Failed tries since it was queued (or last put back from the dead letters).
    pub(crate) attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_error: Option<String>,
    /// The `last_error` it had when an operator put it back from the dead letters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) previous_error: Option<String>,
    /// When its handler was first handed it (kept when it is put back from the dead letters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) first_try: Option<String>,
    /// When its handler was last handed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_try: Option<String>,
    /// The trace of the work that sent it ([`trace::ATTRIBUTE`]).
    #[serde(rename = "agora_trace_id", default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace_id: Option<String>,
}

/// The sending end of one queue. Cheap to clone.
#[derive(Clone)]
pub struct DurableQueue {
    name: &'static str,
    store: Arc<dyn DocumentStore>,
    /// Pieces due now, a batch per message: one wake-up of the worker for a whole batch.
    tx: mpsc::UnboundedSender<Vec<Work>>,
}

/// Every queue of a server by name, so that work put back from the dead letters reaches its
/// queue's worker. Cheap to clone.
#[derive(Clone, Default)]
pub struct Queues(Arc<Mutex<BTreeMap<&'static str, DurableQueue>>>);

impl Queues {
    /// Adds `queue` under its name (replacing one of the same name).
    pub fn add(&self, queue: DurableQueue) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(queue.name, queue);
    }

    /// The queue `name`, if the server runs it.
    pub fn get(&self, name: &str) -> Option<DurableQueue> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(name).cloned()
    }

    /// The names of the queues, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).keys().copied().collect()
    }
}

/// The receiving end its worker consumes ([`run_worker`]).
pub struct Pending {
    name: &'static str,
    store: Arc<dyn DocumentStore>,
    rx: mpsc::UnboundedReceiver<Vec<Work>>,
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
        let mut due = Vec::new();
        for doc in left {
            match serde_json::from_str::<Work>(doc.get()) {
                Ok(work) if delay_until(&work.not_before).is_zero() => due.push(work),
                Ok(work) => queue.deliver(work),
                Err(e) => tracing::error!(queue = name, error = %e, "unreadable queued work skipped"),
            }
        }
        queue.deliver_now(due);
        Ok((queue, Pending { name, store, rx }))
    }

    /// Hands `work` to the worker once its `not_before` has come.
    fn deliver(&self, work: Work) {
        let wait = delay_until(&work.not_before);
        if wait.is_zero() {
            self.deliver_now(vec![work]);
            return;
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = tx.send(vec![work]);
        });
    }

    /// Hands `works` to the worker now, in this order, with one wake-up.
    fn deliver_now(&self, works: Vec<Work>) {
        if !works.is_empty() {
            let _ = self.tx.send(works);
        }
    }

    /// A new piece of work: `body` under `key`, due at `not_before`.
    fn work(&self, key: &str, body: &str, not_before: &chrono::DateTime<Utc>) -> Work {
        Work {
            work_id: uuid::Uuid::new_v4().simple().to_string(),
            queue: self.name.to_owned(),
            key: key.to_owned(),
            body: body.to_owned(),
            not_before: format_datetime(not_before),
            attempts: 0,
            last_error: None,
            previous_error: None,
            first_try: None,
            last_try: None,
            trace_id: trace::current(),
        }
    }

    /// The queue's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Puts `work` (a dead letter of this queue) back on the queue: its attempts start again
    /// from 0 and its `last_error` becomes its `previous_error`. Stored in the queue before its
    /// dead letter is deleted, so that a crash between the two loses nothing (the dead letter is
    /// still listed, and putting it back again queues it twice, which idempotent handlers
    /// tolerate); handed to the worker only once the dead letter is gone, so that failing again
    /// makes a new dead letter rather than meeting the old one.
    pub(crate) async fn redrive(&self, mut work: Work) -> Result<(), Redrive> {
        work.previous_error = work.last_error.take().or(work.previous_error);
        work.attempts = 0;
        work.not_before = format_datetime(&Utc::now());
        match self.store.insert(vec![(WORK, to_json(&work))]).await {
            Ok(()) => {}
            // Still queued: its dead-lettering could not remove it from the queue.
            Err(StoreError::Duplicate { .. }) => {
                let change = Change::set(&json!({
                    "attempts": 0, "not_before": work.not_before, "last_error": null, "previous_error": work.previous_error,
                }));
                self.store.update(WORK, &work.work_id, &Filter::all(), &change).await.map_err(Redrive::NotQueued)?;
            }
            Err(e) => return Err(Redrive::NotQueued(e)),
        }
        let removed = self.store.delete(DEAD_LETTERS, &work.work_id, &Filter::all()).await;
        self.deliver_now(vec![work]);
        removed.map(drop).map_err(Redrive::DeadLetterKept)
    }

    pub(crate) fn stopped(&self, key: &str) -> Option<QueueError> {
        self.tx.is_closed().then(|| QueueError { key: key.to_owned(), reason: format!("the {} worker has stopped", self.name) })
    }
}

/// Why [`DurableQueue::redrive`] failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Redrive {
    /// Nothing changed: the work is not queued, its dead letter is kept.
    #[error("not queued: {0}")]
    NotQueued(StoreError),
    /// The work is queued (and handed to the worker) but its dead letter was not deleted.
    #[error("queued, but its dead letter was not deleted: {0}")]
    DeadLetterKept(StoreError),
}

/// `items` cut into runs of consecutive items, one insert each: at most [`MAX_INSERT_DOCS`]
/// items and [`MAX_INSERT_BYTES`] of bodies (a larger body alone).
fn insert_chunks(items: &[(String, String)]) -> Vec<std::ops::Range<usize>> {
    agora_ports::chunks(items, MAX_INSERT_DOCS, MAX_INSERT_BYTES)
}

/// How long until `at` (a stored datetime); zero when past or unreadable.
fn delay_until(at: &str) -> Duration {
    agora_schema::time::parse_datetime_str(at).and_then(|at| (at - Utc::now()).to_std().ok()).unwrap_or(Duration::ZERO)
}

#[async_trait]
impl WorkQueue for DurableQueue {
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
        if let Some(stopped) = self.stopped(key) {
            return Err(stopped);
        }
        let work = self.work(key, body, &(Utc::now() + chrono::Duration::from_std(delay).unwrap_or_default()));
        // Stored before `send` returns: from here on a crash does not lose it.
        self.store
            .insert(vec![(WORK, to_json(&work))])
            .await
            .map_err(|e| QueueError { key: key.to_owned(), reason: format!("the {} queue could not store the work: {e}", self.name) })?;
        self.deliver(work);
        Ok(())
    }

    /// Stores the pieces a chunk per insert (see the module docs), then hands all of them to
    /// the worker with one wake-up. A failed insert stops the batch: the pieces stored before it
    /// are delivered, and the error names the ones from that chunk on.
    async fn send_batch(&self, items: &[(String, String)]) -> Result<(), QueueError> {
        let Some((first, _)) = items.first() else { return Ok(()) };
        if let Some(stopped) = self.stopped(first) {
            return Err(stopped);
        }
        let now = Utc::now();
        let mut stored = Vec::with_capacity(items.len());
        for chunk in insert_chunks(items) {
            let works: Vec<Work> = items[chunk.clone()].iter().map(|(key, body)| self.work(key, body, &now)).collect();
            let docs = works.iter().map(|w| (WORK, to_json(w))).collect();
            if let Err(e) = self.store.insert(docs).await {
                self.deliver_now(stored);
                let unqueued = &items[chunk.start..];
                let mut named = unqueued.iter().take(NAMED_KEYS).map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ");
                if unqueued.len() > NAMED_KEYS {
                    named.push_str(&format!(" and {} more", unqueued.len() - NAMED_KEYS));
                }
                let reason = format!(
                    "the {} queue could not store the work: {e}; items #{} to #{} of {} not queued ({}); the ones before them were",
                    self.name,
                    chunk.start + 1,
                    items.len(),
                    items.len(),
                    named
                );
                return Err(QueueError { key: items[chunk.start].0.clone(), reason });
            }
            stored.extend(works);
        }
        // Stored before `send_batch` returns: from here on a crash does not lose them.
        self.deliver_now(stored);
        Ok(())
    }
}

/// Consumes work until the queue closes. Each piece runs in its own task, in its trace (a new
/// one when it carries none) and its `work` span.
pub async fn run_worker(handler: Arc<dyn WorkHandler>, mut pending: Pending, retry_delay: Duration) {
    while let Some(works) = pending.rx.recv().await {
        for mut work in works {
            let (handler, store) = (handler.clone(), pending.store.clone());
            let trace_id = work.trace_id.get_or_insert_with(trace::new_id).clone();
            let span = tracing::info_span!("work", trace_id = %trace_id, queue = pending.name, key = %work.key, work_id = %work.work_id);
            let handled =
                async move { trace::scope(&trace_id, handle_with_retries(handler.as_ref(), store.as_ref(), work, retry_delay)).await };
            tokio::spawn(handled.instrument(span));
        }
    }
}

/// Hands `work` to `handler` until it is done or dead-lettered (see the module docs); counts
/// each try by its queue and outcome (`agora_work_items`).
async fn handle_with_retries(handler: &dyn WorkHandler, store: &dyn DocumentStore, mut work: Work, retry_delay: Duration) {
    loop {
        let now = format_datetime(&Utc::now());
        work.first_try.get_or_insert_with(|| now.clone());
        work.last_try = Some(now);
        let outcome = handler.handle(&work.body).await;
        let counted = match &outcome {
            WorkOutcome::Done => "done",
            WorkOutcome::Busy { .. } => "busy",
            WorkOutcome::Retry(_) if work.attempts + 1 >= MAX_ATTEMPTS => "dead_lettered",
            WorkOutcome::Retry(_) => "retried",
        };
        metrics::counter!(names::WORK_ITEMS, "queue" => work.queue.clone(), "outcome" => counted).increment(1);
        match outcome {
            WorkOutcome::Done => {
                if let Err(e) = store.delete(WORK, &work.work_id, &Filter::all()).await {
                    // Left in the store, it is replayed (and found done) at the next start.
                    tracing::warn!(error = %e, "done work not removed from the queue");
                }
                return;
            }
            WorkOutcome::Busy { reason, after } => {
                tracing::info!(%reason, ?after, "work is busy elsewhere; trying again later");
                work.not_before = format_datetime(&(Utc::now() + chrono::Duration::from_std(after).unwrap_or_default()));
                if let Err(e) = store.update(WORK, &work.work_id, &Filter::all(), &work.tried()).await {
                    tracing::warn!(error = %e, "retry time not stored");
                }
                tokio::time::sleep(after).await;
            }
            WorkOutcome::Retry(reason) => {
                work.attempts += 1;
                tracing::warn!(attempt = work.attempts, %reason, "work attempt failed");
                work.last_error = Some(reason);
                if work.attempts >= MAX_ATTEMPTS {
                    dead_letter(store, work).await;
                    return;
                }
                let wait = retry_delay * work.attempts;
                work.not_before = format_datetime(&(Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default()));
                if let Err(e) = store.update(WORK, &work.work_id, &Filter::all(), &work.tried()).await {
                    tracing::warn!(error = %e, "attempt count not stored");
                }
                tokio::time::sleep(wait).await;
            }
        }
    }
}

impl Work {
    /// What a try that does not finish the piece changes in its document: when it runs next,
    /// its attempts, its last error and tries, and its trace (so that a replay after a restart
    /// stays in it).
    fn tried(&self) -> Change {
        Change::set(&json!({
            "not_before": self.not_before, "attempts": self.attempts, "last_error": self.last_error,
            "first_try": self.first_try, "last_try": self.last_try, trace::ATTRIBUTE: self.trace_id,
        }))
    }
}

/// Moves work that failed its last attempt (its reason in `last_error`) to the dead letters.
async fn dead_letter(store: &dyn DocumentStore, work: Work) {
    tracing::error!(attempts = work.attempts, reason = work.last_error.as_deref(), "work dead-lettered");
    let stored = match store.insert(vec![(DEAD_LETTERS, to_json(&work))]).await {
        // The dead letter it was put back from is still there (its deletion failed): replaced.
        Err(StoreError::Duplicate { .. }) => store.update(DEAD_LETTERS, &work.work_id, &Filter::all(), &Change::set(&work)).await.map(drop),
        stored => stored,
    };
    if let Err(e) = stored {
        // Kept in the queue instead, replayed (and tried once more) at the next start.
        tracing::warn!(error = %e, "dead letter not stored; the work stays queued");
        return;
    }
    if let Err(e) = store.delete(WORK, &work.work_id, &Filter::all()).await {
        tracing::warn!(error = %e, "dead-lettered work not removed from the queue");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::memory::MemoryStore;
    use agora_store::{Counted, DocStream, Json, Page, StoreError, Uncounted};
    use std::collections::{HashMap, HashSet};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// The memory store, counting inserts; the insert numbered `fail_at` (from 1) fails.
    struct CountingStore {
        inner: MemoryStore,
        inserts: AtomicUsize,
        fail_at: usize,
    }

    #[async_trait]
    impl DocumentStore for CountingStore {
        async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
            if self.inserts.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
                return Err(StoreError::Backend("the disk is full".into()));
            }
            self.inner.insert(docs).await
        }
        async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
            self.inner.get(collection, id).await
        }
        async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
            self.inner.find(collection, filter).await
        }
        async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
            self.inner.find_stream(collection, filter, page).await
        }
        async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
            self.inner.count(collection, filter, limit).await
        }
        async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
            self.inner.update(collection, id, condition, change).await
        }
        async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
            self.inner.delete(collection, id, condition).await
        }
        async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
            self.inner.insert_counted(docs, counter, limit).await
        }
        async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
            self.inner.delete_counted(collection, id, counter, limit).await
        }
        async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
            self.inner.increment(counter, by).await
        }
    }

    fn store(fail_at: usize) -> Arc<CountingStore> {
        Arc::new(CountingStore { inner: MemoryStore::new(WORK_DB).expect("store"), inserts: AtomicUsize::new(0), fail_at })
    }

    /// Records the bodies it is handed, in the order it is handed them; done at once.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    #[async_trait]
    impl WorkHandler for Recorder {
        async fn handle(&self, body: &str) -> WorkOutcome {
            self.0.lock().unwrap().push(body.to_owned());
            WorkOutcome::Done
        }
    }

    impl Recorder {
        fn handled(&self) -> Vec<String> {
            self.0.lock().unwrap().clone()
        }
        async fn wait_for(&self, n: usize) -> Vec<String> {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while self.handled().len() < n && std::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            // A while longer: nothing more comes.
            tokio::time::sleep(Duration::from_millis(100)).await;
            self.handled()
        }
    }

    /// `n` items over seven keys, each body `<key>:<n>`.
    fn items(n: usize) -> Vec<(String, String)> {
        (0..n).map(|i| (format!("key{}", i % 7), format!("key{}:{i}", i % 7))).collect()
    }

    async fn left_in(store: &dyn DocumentStore) -> usize {
        for _ in 0..200 {
            let left = store.find(WORK, &Filter::all()).await.unwrap().len();
            if left == 0 {
                return 0;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        store.find(WORK, &Filter::all()).await.unwrap().len()
    }

    #[test]
    fn inserts_hold_100_pieces_and_1_mib_at_most() {
        assert!(insert_chunks(&[]).is_empty());
        let chunks = insert_chunks(&items(1200));
        assert_eq!(chunks.len(), 12);
        assert!(chunks.iter().all(|c| c.len() == 100));
        let big: Vec<(String, String)> = (0..5).map(|i| (i.to_string(), "x".repeat(400 * 1024))).collect();
        assert_eq!(insert_chunks(&big), [0..2, 2..4, 4..5]);
    }

    #[tokio::test]
    async fn a_batch_of_1200_is_stored_a_chunk_per_insert_and_each_piece_delivered_once_in_order() {
        let store = store(0);
        let (queue, pending) = DurableQueue::open("batch", store.clone()).await.unwrap();
        let recorder = Arc::new(Recorder::default());
        tokio::spawn(run_worker(recorder.clone(), pending, Duration::from_millis(10)));
        let items = items(1200);
        queue.send_batch(&items).await.unwrap();
        assert_eq!(store.inserts.load(Ordering::SeqCst), 12, "100 pieces per insert, not one insert per piece");

        let handled = recorder.wait_for(items.len()).await;
        assert_eq!(handled.len(), items.len(), "every piece once");
        let distinct: HashSet<&String> = handled.iter().collect();
        assert_eq!(distinct.len(), items.len(), "no piece twice");
        // In the order given, as the same pieces sent one by one would be: by key, and overall.
        let mut last: HashMap<&str, usize> = HashMap::new();
        for body in &handled {
            let (key, n) = body.split_once(':').unwrap();
            let n: usize = n.parse().unwrap();
            assert!(last.insert(key, n).is_none_or(|before| before < n), "{key}: {n} after a later one");
        }
        assert_eq!(handled, items.iter().map(|(_, b)| b.clone()).collect::<Vec<_>>());
        assert_eq!(left_in(store.as_ref()).await, 0, "done pieces are removed");
        assert!(queue.send_batch(&[]).await.is_ok());
        assert_eq!(store.inserts.load(Ordering::SeqCst), 12, "an empty batch stores nothing");
    }

    #[tokio::test]
    async fn a_batch_is_in_the_store_before_send_batch_returns_and_replayed_after_a_crash() {
        let store = store(0);
        // No worker: the run "crashes" before any piece is handled.
        let (queue, pending) = DurableQueue::open("batch", store.clone()).await.unwrap();
        queue.send_batch(&items(250)).await.unwrap();
        drop((queue, pending));
        assert_eq!(store.find(WORK, &Filter::all()).await.unwrap().len(), 250);

        let (_queue, pending) = DurableQueue::open("batch", store.clone()).await.unwrap();
        let recorder = Arc::new(Recorder::default());
        tokio::spawn(run_worker(recorder.clone(), pending, Duration::from_millis(10)));
        let handled: HashSet<String> = recorder.wait_for(250).await.into_iter().collect();
        assert_eq!(handled, items(250).into_iter().map(|(_, b)| b).collect());
        assert_eq!(left_in(store.as_ref()).await, 0);
    }

    /// Records the trace each body is handled in.
    #[derive(Default)]
    struct Traces(Mutex<Vec<(String, Option<String>)>>);

    #[async_trait]
    impl WorkHandler for Traces {
        async fn handle(&self, body: &str) -> WorkOutcome {
            self.0.lock().unwrap().push((body.to_owned(), trace::current()));
            WorkOutcome::Done
        }
    }

    #[tokio::test]
    async fn a_piece_is_stored_with_the_trace_it_was_sent_in_and_handled_in_it_or_in_a_new_one() {
        let store = store(0);
        let (queue, pending) = DurableQueue::open("traced", store.clone()).await.unwrap();
        trace::scope("trace-1", queue.send("k", "in a trace", Duration::from_secs(3600))).await.unwrap();
        queue.send("k", "in none", Duration::from_secs(3600)).await.unwrap();
        let stored: Vec<serde_json::Value> =
            store.find(WORK, &Filter::all()).await.unwrap().iter().map(|d| serde_json::from_str(d.get()).unwrap()).collect();
        let traced = stored.iter().find(|w| w["body"] == "in a trace").unwrap();
        assert_eq!(traced[trace::ATTRIBUTE], "trace-1", "under the attribute's name: {traced}");
        assert!(stored.iter().find(|w| w["body"] == "in none").unwrap().get(trace::ATTRIBUTE).is_none());

        // Replayed at the next start: handled in the trace it carries, or in a new one.
        drop((queue, pending));
        for w in store.find(WORK, &Filter::all()).await.unwrap() {
            let id = serde_json::from_str::<serde_json::Value>(w.get()).unwrap()["work_id"].as_str().unwrap().to_owned();
            store.update(WORK, &id, &Filter::all(), &Change::set(&json!({"not_before": "2020-01-01T00:00:00"}))).await.unwrap();
        }
        let (_queue, pending) = DurableQueue::open("traced", store.clone()).await.unwrap();
        let traces = Arc::new(Traces::default());
        tokio::spawn(run_worker(traces.clone(), pending, Duration::from_millis(10)));
        assert_eq!(left_in(store.as_ref()).await, 0);
        let mut handled = traces.0.lock().unwrap().clone();
        handled.sort();
        assert_eq!(handled[0], ("in a trace".to_owned(), Some("trace-1".to_owned())));
        let fresh = handled[1].1.clone().expect("a new trace");
        assert_eq!((handled[1].0.as_str(), fresh.len()), ("in none", 32), "{fresh}");
    }

    #[tokio::test]
    async fn a_failed_insert_names_the_pieces_not_queued_and_delivers_the_ones_stored() {
        // The third insert fails: pieces 1 to 200 are queued, 201 to 260 are not.
        let store = store(3);
        let (queue, pending) = DurableQueue::open("batch", store.clone()).await.unwrap();
        let recorder = Arc::new(Recorder::default());
        tokio::spawn(run_worker(recorder.clone(), pending, Duration::from_millis(10)));
        let items = items(260);
        let e = queue.send_batch(&items).await.unwrap_err();
        assert_eq!(e.key, items[200].0);
        assert!(e.reason.contains("the disk is full") && e.reason.contains("items #201 to #260 of 260 not queued"), "{e}");
        assert!(e.reason.contains("and 10 more"), "names 50 keys, then counts: {e}");
        let handled = recorder.wait_for(200).await;
        assert_eq!(handled, items[..200].iter().map(|(_, b)| b.clone()).collect::<Vec<_>>());
    }
}

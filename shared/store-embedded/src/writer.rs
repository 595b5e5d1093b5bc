//! The one writer connection, committing the writes of concurrent tasks together (group
//! commit).
//!
//! Each write is a closure run inside the batch's transaction (in a savepoint of its own when it
//! shares the batch): a write that fails is rolled back alone, the others commit together, and
//! every caller learns its own outcome only once the batch's `COMMIT` is done. Writes that
//! arrive together thus share one commit: one lock round, one WAL append, and one copy of the
//! index pages they both touch.

use crate::error::backend;
use agora_store::StoreError;
use rusqlite::Connection;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use tokio::sync::oneshot;

/// Writes committed together at most.
const MAX_BATCH: usize = 256;
/// Batches a caller commits for others before handing the rest to the blocking pool.
const MAX_LEADER_BATCHES: usize = 4;

/// A queued write, type-erased.
trait Pending: Send {
    /// Runs the write on the open transaction; returns whether it failed (its savepoint is then
    /// rolled back).
    fn run(&mut self, conn: &Connection) -> bool;
    /// Hands the outcome to the caller once the batch is over: its own result when the batch
    /// committed, else the batch's error.
    fn deliver(self: Box<Self>, batch: Result<(), StoreError>);
}

/// A write and the channel its caller waits on.
struct Write<T, F> {
    work: Option<F>,
    outcome: Option<Result<T, StoreError>>,
    reply: oneshot::Sender<Result<T, StoreError>>,
}

impl<T, F> Pending for Write<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection) -> bool {
        let outcome = match self.work.take() {
            Some(work) => work(conn),
            None => Err(StoreError::Backend("write ran twice".to_string())),
        };
        let failed = outcome.is_err();
        self.outcome = Some(outcome);
        failed
    }

    fn deliver(self: Box<Self>, batch: Result<(), StoreError>) {
        let outcome = match (self.outcome, batch) {
            // A write that failed was rolled back whatever became of the batch: its own error.
            (Some(Err(e)), _) => Err(e),
            (Some(Ok(v)), Ok(())) => Ok(v),
            (Some(Ok(_)), Err(e)) => Err(e),
            (None, Err(e)) => Err(e),
            (None, Ok(())) => Err(StoreError::Backend("write was not run".to_string())),
        };
        // The caller may have gone away (its future dropped); the write stands regardless.
        let _ = self.reply.send(outcome);
    }
}

/// The one write connection and the writes waiting for it.
///
/// There is no writer thread: the caller that finds the connection free becomes the leader and
/// commits everything queued so far, its own write included, in one transaction; callers that
/// find it busy queue their write and wait for the leader's commit. An uncontended write thus
/// runs on the caller's thread without any thread switch, and contended writes share commits.
pub(crate) struct Writer {
    conn: Mutex<Connection>,
    queue: Mutex<Vec<Box<dyn Pending>>>,
}

impl Writer {
    pub fn new(conn: Connection) -> Arc<Writer> {
        Arc::new(Writer { conn: Mutex::new(conn), queue: Mutex::new(Vec::new()) })
    }

    /// Runs `work` in a write transaction; resolves once it is committed.
    pub async fn write<T, F>(self: &Arc<Self>, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, outcome) = oneshot::channel();
        lock(&self.queue).push(Box::new(Write { work: Some(work), outcome: None, reply }));
        self.lead(Some(MAX_LEADER_BATCHES));
        outcome.await.map_err(|_| StoreError::Backend("the write was abandoned".to_string()))?
    }

    /// Commits the queued writes, batch after batch, if the connection is free. Stops after
    /// `max_batches` and hands what is left to the blocking pool, so that no caller stays the
    /// leader for long under a steady stream of writes.
    fn lead(self: &Arc<Self>, max_batches: Option<usize>) {
        let mut batches = 0usize;
        loop {
            let conn = match self.conn.try_lock() {
                Ok(conn) => conn,
                // A write panicked: `run_batch` rolls back whatever it left open.
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                // The leader will see the queued write: it checks the queue after unlocking.
                Err(TryLockError::WouldBlock) => return,
            };
            loop {
                let batch = self.take_batch();
                if batch.is_empty() {
                    break;
                }
                commit_batch(&conn, batch);
                batches += 1;
                if max_batches.is_some_and(|max| batches >= max) && !lock(&self.queue).is_empty() {
                    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                        drop(conn);
                        let this = Arc::clone(self);
                        runtime.spawn_blocking(move || this.lead(None));
                        return;
                    }
                }
            }
            drop(conn);
            // A write queued while the connection was being released would otherwise wait for
            // the next writer.
            if lock(&self.queue).is_empty() {
                return;
            }
        }
    }

    /// The oldest queued writes, at most [`MAX_BATCH`].
    fn take_batch(&self) -> Vec<Box<dyn Pending>> {
        let mut queue = lock(&self.queue);
        if queue.len() <= MAX_BATCH {
            std::mem::take(&mut *queue)
        } else {
            let rest = queue.split_off(MAX_BATCH);
            std::mem::replace(&mut *queue, rest)
        }
    }
}

/// Runs a batch and tells every caller its outcome.
fn commit_batch(conn: &Connection, mut batch: Vec<Box<dyn Pending>>) {
    let outcome = run_batch(conn, &mut batch);
    for job in batch {
        job.deliver(outcome.clone());
    }
}

/// Locks a mutex, carrying on after a panic elsewhere (the queue stays a valid vector).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One transaction over `batch`. A write alone in its batch is rolled back with the transaction
/// when it fails; writes sharing a batch each run in a savepoint of their own.
fn run_batch(conn: &Connection, batch: &mut [Box<dyn Pending>]) -> Result<(), StoreError> {
    if !conn.is_autocommit() {
        // Left open by a write that panicked.
        exec(conn, "ROLLBACK")?;
    }
    exec(conn, "BEGIN IMMEDIATE")?;
    let outcome = match batch {
        [job] => {
            if job.run(conn) {
                // Its own error is what the caller gets.
                if !conn.is_autocommit() {
                    let _ = exec(conn, "ROLLBACK");
                }
                return Ok(());
            }
            Ok(())
        }
        jobs => jobs.iter_mut().try_for_each(|job| run_one(conn, job.as_mut())),
    };
    let outcome = outcome.and_then(|()| exec(conn, "COMMIT"));
    if outcome.is_err() && !conn.is_autocommit() {
        let _ = exec(conn, "ROLLBACK");
    }
    outcome
}

/// Runs one write in a savepoint, rolling it back when it fails. An `Err` means the whole
/// transaction is lost (SQLite ended it, or the savepoint could not be handled).
fn run_one(conn: &Connection, job: &mut dyn Pending) -> Result<(), StoreError> {
    exec(conn, "SAVEPOINT agora_write")?;
    let failed = job.run(conn);
    if conn.is_autocommit() {
        return Err(StoreError::Backend("the write transaction was aborted".to_string()));
    }
    if failed {
        exec(conn, "ROLLBACK TO agora_write")?;
    }
    exec(conn, "RELEASE agora_write")
}

/// Runs a statement of transaction control (cached: these run on every write).
fn exec(conn: &Connection, sql: &str) -> Result<(), StoreError> {
    conn.prepare_cached(sql).and_then(|mut stmt| stmt.execute([])).map(|_| ()).map_err(backend)
}

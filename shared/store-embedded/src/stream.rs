//! Streaming finds: the matching documents read in batches of insertion order (keyset paging on
//! `seq`), so that a stream over a million documents holds one batch at a time.
//!
//! Each batch is one statement on a pooled reader connection, `seq > <last seq read> ORDER BY
//! seq LIMIT <rows>` (see [`Query::select_batch`]): nothing stays open between batches (no
//! statement, transaction or connection), so a stream read slowly by a client holds back no
//! checkpoint and no writer. The first batch runs on the calling thread, as small reads do (see
//! `store.rs`); the following ones on tokio's blocking pool.
//!
//! Streams read on connections of their own ([`Caching::ONE_PASS`](crate::connection::Caching)):
//! no memory map and a 2 MiB page cache, where the other readers map the file. A stream reads
//! each page once; through a map, every page it read would stay in the process's resident
//! memory (the whole file, for a stream through every vote).
//!
//! The page is applied where it costs least: when SQLite checks the whole filter, the skip is
//! the first batch's `OFFSET` (SQLite steps over those rows without reading their documents) and
//! the limit caps each batch's `LIMIT`; otherwise both are counted here, on the documents that
//! match.

use crate::document::{text_of, trusted_raw};
use crate::error::backend;
use crate::schema::Table;
use crate::sql::Query;
use crate::store::{satisfies, Inner, INLINE_ROWS};
use agora_store::{DocStream, Json, Page, StoreError};
use futures::stream::{self, StreamExt};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params_from_iter, Connection};
use std::sync::Arc;

/// Rows a batch steps through at most.
const BATCH_ROWS: u64 = INLINE_ROWS as u64;
/// Bytes of documents after which a batch ends (a batch holds at least one document, however
/// large).
const BATCH_BYTES: usize = 4 << 20;

/// Where a streaming find is.
struct Cursor {
    inner: Arc<Inner>,
    table: Arc<Table>,
    query: Arc<Query>,
    /// The `seq` of the last row read (matching or not).
    after: i64,
    /// Matches still to skip.
    skip: u64,
    /// Matches still to return (`None`: all).
    left: Option<u64>,
    /// No batch has been read yet.
    first: bool,
    done: bool,
}

/// What one batch read.
struct Batch {
    docs: Vec<Json>,
    /// The `seq` of the last row it read.
    last: Option<i64>,
    /// Whether it reached the end of the rows (or of the page).
    finished: bool,
    /// Matches of the skip it used up.
    skipped: u64,
}

/// The `page` of the documents of `table` matching `query`, read lazily in batches.
pub(crate) fn find_stream(inner: Arc<Inner>, table: Arc<Table>, query: Query, page: Page) -> DocStream {
    if page.is_empty() {
        return stream::empty().boxed();
    }
    let cursor =
        Cursor { inner, table, query: Arc::new(query), after: i64::MIN, skip: page.skip, left: page.limit, first: true, done: false };
    stream::unfold(cursor, |mut cursor| async move {
        if cursor.done {
            return None;
        }
        let batch = cursor.next_batch().await;
        if batch.is_err() {
            cursor.done = true;
        }
        Some((batch, cursor))
    })
    .flat_map(|batch| match batch {
        Ok(docs) => stream::iter(docs.into_iter().map(Ok)).left_stream(),
        Err(e) => stream::once(async move { Err(e) }).right_stream(),
    })
    .boxed()
}

impl Cursor {
    /// The next documents of the page: at least one, unless the page is over (`done` is then
    /// set).
    async fn next_batch(&mut self) -> Result<Vec<Json>, StoreError> {
        loop {
            let pushed = self.query.is_pushed_down();
            // Skip and limit go to SQLite when it checks the whole filter.
            let ask = Ask {
                after: self.after,
                rows: match self.left {
                    Some(left) if pushed => left.min(BATCH_ROWS),
                    _ => BATCH_ROWS,
                },
                offset: if pushed { self.skip } else { 0 },
                skip: self.skip,
                left: self.left,
            };
            let batch = if self.first && ask.offset == 0 {
                self.inner.stream_readers.read(|conn| read_batch(conn, &self.table, &self.query, ask))?
            } else {
                let (inner, table, query) = (Arc::clone(&self.inner), Arc::clone(&self.table), Arc::clone(&self.query));
                let read = move || inner.stream_readers.read(|conn| read_batch(conn, &table, &query, ask));
                tokio::task::spawn_blocking(read).await.map_err(|e| StoreError::Backend(format!("store read failed: {e}")))??
            };
            self.first = false;
            self.skip -= batch.skipped;
            self.left = self.left.map(|left| left - batch.docs.len() as u64);
            if let Some(last) = batch.last {
                self.after = last;
            }
            if batch.finished || self.left == Some(0) {
                self.done = true;
            }
            if !batch.docs.is_empty() || self.done {
                return Ok(batch.docs);
            }
        }
    }
}

/// What one batch reads.
#[derive(Debug, Clone, Copy)]
struct Ask {
    /// The rows after this `seq`...
    after: i64,
    /// ... at most this many of them ...
    rows: u64,
    /// ... after SQLite skipped this many;
    offset: u64,
    /// the first matches dropped until this many are skipped (counting the offset's),
    skip: u64,
    /// and no more than this many matches kept (`None`: any number).
    left: Option<u64>,
}

/// Reads the batch `ask` describes, ending it early once it holds [`BATCH_BYTES`] of documents.
fn read_batch(conn: &Connection, table: &Table, query: &Query, ask: Ask) -> Result<Batch, StoreError> {
    let Ask { after, rows, offset, skip, left } = ask;
    let mut params = query.params_with(SqlValue::Integer(after));
    params.push(SqlValue::Integer(i64::try_from(rows).unwrap_or(i64::MAX)));
    params.push(SqlValue::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
    let mut stmt = conn.prepare_cached(&query.select_batch(table)).map_err(backend)?;
    let mut cursor = stmt.query(params_from_iter(params)).map_err(backend)?;
    let mut batch = Batch { docs: Vec::new(), last: None, finished: false, skipped: offset.min(skip) };
    let (mut stepped, mut bytes) = (0u64, 0usize);
    let pushed = query.is_pushed_down();
    while let Some(row) = cursor.next().map_err(backend)? {
        stepped += 1;
        batch.last = Some(row.get(0).map_err(backend)?);
        let text = text_of(row.get_ref(1).map_err(backend)?).map_err(StoreError::Backend)?;
        if !pushed && !satisfies(table, &text, &query.rest)? {
            continue;
        }
        if batch.skipped < skip {
            batch.skipped += 1;
            continue;
        }
        bytes += text.len();
        batch.docs.push(trusted_raw(text.into_owned()));
        if left.is_some_and(|left| batch.docs.len() as u64 >= left) {
            batch.finished = true;
            return Ok(batch);
        }
        if bytes >= BATCH_BYTES {
            return Ok(batch);
        }
    }
    // Fewer rows than the limit asked for: there are no more.
    batch.finished = stepped < rows;
    Ok(batch)
}

//! [`EmbeddedStore`]: the [`DocumentStore`] over one SQLite file, which holds one database.
//!
//! Where the work runs:
//!
//! * Writes go to the one writer connection ([`crate::writer`]): on the calling thread when it
//!   is free, else queued for the caller holding it, which commits them together with its own.
//! * Reads run on a pooled reader connection right on the calling task's thread, as long as
//!   they stay small: a `get`, or a `find`/`count` that steps through at most [`INLINE_ROWS`]
//!   rows. (Handing every read to the blocking pool would cost two thread switches per call,
//!   more than the read itself.) A read that goes beyond is abandoned and run again, whole, on
//!   tokio's blocking pool, so that a million-vote `find` never stalls an async worker.
//! * A large `find` is split there into ranges of insertion order read in parallel, each on a
//!   connection of its own. Each range is a consistent snapshot; together they hold every
//!   document that matched when the read began and was left alone meanwhile, each once.
//! * A streaming find reads batches of insertion order, one statement each, on connections of
//!   its own that do not map the file (see `stream.rs`).

use crate::connection::{self, Caching, Readers};
use crate::document::{column_value, stored_form, text_of, trusted_raw};
use crate::error::{backend, invalid, write_error};
use crate::schema::{quote_ident, FieldColumn, Table, KEY_COLUMN};
use crate::sql::Query;
use crate::writer::Writer;
use agora_filter::Filter;
use agora_store::change::apply;
use agora_store::document::{key_of, top_level};
use agora_store::{Change, Counted, DatabaseSpec, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use async_trait::async_trait;
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows a read may step through on the calling thread before it moves to the blocking pool.
pub(crate) const INLINE_ROWS: usize = 1_000;
/// Reads a large `find` is split into (at most; and no more than the machine has cores).
const MAX_PARALLEL_READS: usize = 4;
/// Narrowest range of insertion order a parallel read covers.
const MIN_PARALLEL_ROWS: i64 = 20_000;
/// WAL pages after which a commit checkpoints.
const WAL_CHECKPOINT_PAGES: i64 = 4_000;
/// Bytes the WAL file is cut back to after a checkpoint let it start over.
const WAL_SIZE_LIMIT: i64 = 64 << 20;

/// A [`DocumentStore`] in one SQLite database file (WAL mode). Cheap to clone: clones share the
/// connections.
#[derive(Clone)]
pub struct EmbeddedStore {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    spec: DatabaseSpec,
    tables: Vec<Arc<Table>>,
    readers: Readers,
    /// The readers of streaming finds (`stream.rs`), tuned for reading each page once.
    pub(crate) stream_readers: Readers,
    writer: Arc<Writer>,
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedStore").field("database", &self.inner.spec.name).finish()
    }
}

impl EmbeddedStore {
    /// Opens (creating when needed) the database `db` in the directory `dir`: the file
    /// `<dir>/<db.name>.sqlite` (see [`EmbeddedStore::file_in`]). The directory is created when
    /// missing. Several databases in one directory are independent.
    pub fn open_in(dir: &Path, db: DatabaseSpec) -> Result<EmbeddedStore, StoreError> {
        db.check()?;
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Backend(format!("creating the data directory {}: {e}", dir.display())))?;
        let path = EmbeddedStore::file_in(dir, &db);
        EmbeddedStore::open(&path, db)
    }

    /// The file of the database `db` in the directory `dir`: `<dir>/<db.name>.sqlite`.
    pub fn file_in(dir: &Path, db: &DatabaseSpec) -> PathBuf {
        dir.join(format!("{}.sqlite", db.name()))
    }

    /// Opens (creating when needed) the database file at `path` with `db`'s tables and indexes:
    /// the file holds that one database (its name is not written in it). Opening an existing
    /// file again is harmless: missing tables, columns and indexes are added.
    pub fn open(path: &Path, db: DatabaseSpec) -> Result<EmbeddedStore, StoreError> {
        db.check()?;
        let tables = db.collections.iter().map(|spec| Table::new(spec).map(Arc::new)).collect::<Result<Vec<_>, StoreError>>()?;
        let mut conn = connection::open(path, false, Caching::RANDOM_ACCESS)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(backend)?;
        // The writer checkpoints the WAL after a commit takes it past `WAL_CHECKPOINT_PAGES`
        // (doing it between its own writes is what lets the WAL start over), and cuts the file
        // back to `WAL_SIZE_LIMIT` when it does.
        conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES).map_err(backend)?;
        conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT).map_err(backend)?;
        create_schema(&mut conn, &tables)?;
        let readers = Readers::new(path)?;
        let stream_readers = Readers::one_pass(path);
        let writer = Writer::new(conn);
        tracing::debug!(path = %path.display(), database = db.name(), "embedded store open");
        Ok(EmbeddedStore { inner: Arc::new(Inner { spec: db, tables, readers, stream_readers, writer }) })
    }

    /// The database this store holds.
    pub fn spec(&self) -> &DatabaseSpec {
        &self.inner.spec
    }

    fn table(&self, collection: &str) -> Result<Arc<Table>, StoreError> {
        self.inner.table(collection).cloned()
    }

    /// Runs the read `f` with a row budget on the calling thread; when it runs out of budget
    /// (answers `None`), runs it again without one on the blocking pool.
    async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: Fn(&Connection, usize) -> Result<Option<T>, StoreError> + Send + 'static,
    {
        if let Some(out) = self.inner.readers.read(|conn| f(conn, INLINE_ROWS))? {
            return Ok(out);
        }
        let inner = Arc::clone(&self.inner);
        let unbounded = move || {
            inner.readers.read(|conn| f(conn, usize::MAX))?.ok_or_else(|| StoreError::Backend("read without budget gave up".into()))
        };
        tokio::task::spawn_blocking(unbounded).await.map_err(|e| StoreError::Backend(format!("store read failed: {e}")))?
    }
}

impl Inner {
    fn table(&self, collection: &str) -> Result<&Arc<Table>, StoreError> {
        self.tables.iter().find(|t| t.spec.name == collection).ok_or_else(|| StoreError::UnknownCollection(collection.to_string()))
    }
}

/// The table of counters ([`DocumentStore::increment`]): beside the collections, in no query.
const COUNTERS_TABLE: &str = "_agora_counters";
const COUNTER_SQL: &str = "SELECT value FROM _agora_counters WHERE name = ?1";
const INCREMENT_SQL: &str = "INSERT INTO _agora_counters (name, value) VALUES (?1, ?2) \
     ON CONFLICT (name) DO UPDATE SET value = value + excluded.value RETURNING value";

/// Creates every table, missing column and index, in one transaction. A table of an earlier
/// layout (its field columns generated by SQLite) is rebuilt in the current one.
fn create_schema(conn: &mut Connection, tables: &[Arc<Table>]) -> Result<(), StoreError> {
    if let Some(t) = tables.iter().find(|t| t.spec.name == COUNTERS_TABLE) {
        return Err(StoreError::Backend(format!("collection name {} is reserved for the store's counters", t.spec.name)));
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(backend)?;
    tx.execute(&format!("CREATE TABLE IF NOT EXISTS {COUNTERS_TABLE} (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID"), [])
        .map_err(backend)?;
    for table in tables {
        let existing = existing_columns(&tx, table)?;
        if existing.is_empty() {
            tx.execute(&table.create_table(&table.name), []).map_err(backend)?;
        } else if existing.iter().any(|(_, generated)| *generated) {
            rebuild(&tx, table)?;
        } else {
            for column in &table.columns {
                if !existing.iter().any(|(name, _)| name == column.column.trim_matches('"')) {
                    tx.execute(&table.add_column(column), []).map_err(backend)?;
                    fill_column(&tx, table, column)?;
                }
            }
        }
        for index in table.create_indexes() {
            tx.execute(&index, []).map_err(backend)?;
        }
    }
    tx.commit().map_err(backend)
}

/// Writes `column` of every stored document, as an insert would have written it.
fn fill_column(tx: &Connection, table: &Table, column: &FieldColumn) -> Result<(), StoreError> {
    let mut read = tx.prepare(&format!("SELECT doc, seq FROM {}", table.name)).map_err(backend)?;
    let mut write = tx.prepare(&format!("UPDATE {} SET {} = ?1 WHERE seq = ?2", table.name, column.column)).map_err(backend)?;
    let mut rows = read.query([]).map_err(backend)?;
    while let Some(row) = rows.next().map_err(backend)? {
        let text = row_text(row)?;
        let fields = top_level(&text).map_err(|r| StoreError::Backend(format!("{}: stored document unreadable: {r}", table.spec.name)))?;
        let seq: i64 = row.get(1).map_err(backend)?;
        write.execute(params![column_value(&fields, column.field), seq]).map_err(backend)?;
    }
    Ok(())
}

/// The columns a table has now (none when it does not exist), each with whether SQLite
/// generates it.
fn existing_columns(conn: &Connection, table: &Table) -> Result<Vec<(String, bool)>, StoreError> {
    let mut stmt = conn.prepare("SELECT name, hidden FROM pragma_table_xinfo(?1)").map_err(backend)?;
    let rows = stmt.query_map([table.spec.name], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? >= 2))).map_err(backend)?;
    rows.collect::<Result<_, _>>().map_err(backend)
}

/// Moves a table of generated columns to the current layout: the documents keep their `seq`
/// (insertion order) and key; the field columns are computed once more from the documents.
fn rebuild(tx: &Connection, table: &Table) -> Result<(), StoreError> {
    let old = quote_ident(&format!("{}__before_rebuild", table.spec.name));
    tracing::info!(collection = table.spec.name, "embedded store: moving the table to the current layout");
    tx.execute(&format!("ALTER TABLE {} RENAME TO {old}", table.name), []).map_err(backend)?;
    tx.execute(&table.create_table(&table.name), []).map_err(backend)?;
    tx.execute(&format!("INSERT INTO {} (seq, {KEY_COLUMN}, doc) SELECT seq, {KEY_COLUMN}, doc FROM {old}", table.name), [])
        .map_err(backend)?;
    for column in &table.columns {
        fill_column(tx, table, column)?;
    }
    tx.execute(&format!("DROP TABLE {old}"), []).map_err(backend)?;
    Ok(())
}

/// Whether the stored `doc` matches `rest` (the part of a filter SQLite did not check).
pub(crate) fn satisfies(table: &Table, doc: &str, rest: &Filter) -> Result<bool, StoreError> {
    if rest.is_all() {
        return Ok(true);
    }
    let value: serde_json::Value =
        serde_json::from_str(doc).map_err(|e| StoreError::Backend(format!("{}: stored document unreadable: {e}", table.spec.name)))?;
    Ok(rest.matches(&value))
}

/// The document text in a row's first column.
fn row_text<'r>(row: &'r rusqlite::Row<'_>) -> Result<Cow<'r, str>, StoreError> {
    text_of(row.get_ref(0).map_err(backend)?).map_err(StoreError::Backend)
}

/// The documents matching `query`, in insertion order, within the `seq` range `between` if
/// given; `None` when more than `budget` rows had to be stepped through.
fn find_rows(
    conn: &Connection,
    table: &Table,
    query: &Query,
    between: Option<(i64, i64)>,
    budget: usize,
) -> Result<Option<Vec<Json>>, StoreError> {
    let (sql, params) = match between {
        None => (query.select_docs(table), query.params.clone()),
        Some((first, last)) => {
            let mut params = query.params_with(SqlValue::Integer(first));
            params.push(SqlValue::Integer(last));
            (query.select_docs_between(table), params)
        }
    };
    let mut stmt = conn.prepare_cached(&sql).map_err(backend)?;
    let mut rows = stmt.query(params_from_iter(params)).map_err(backend)?;
    let mut out = Vec::new();
    let mut stepped = 0usize;
    while let Some(row) = rows.next().map_err(backend)? {
        stepped += 1;
        if stepped > budget {
            return Ok(None);
        }
        let text = row_text(row)?;
        if satisfies(table, &text, &query.rest)? {
            out.push(trusted_raw(text.into_owned()));
        }
    }
    Ok(Some(out))
}

/// The `seq` of the first and last rows meeting the conditions SQLite checks, if any.
fn seq_bounds(conn: &Connection, table: &Table, query: &Query) -> Result<Option<(i64, i64)>, StoreError> {
    let bound = |last: bool| -> Result<Option<i64>, StoreError> {
        let mut stmt = conn.prepare_cached(&query.select_bound(table, last)).map_err(backend)?;
        stmt.query_row(params_from_iter(&query.params), |row| row.get(0)).optional().map_err(backend)
    };
    Ok(bound(false)?.zip(bound(true)?))
}

/// `first..=last` cut into `parts` ranges of about equal width (fewer when it is narrow).
fn split_range(first: i64, last: i64, parts: usize) -> Vec<(i64, i64)> {
    let width = last.saturating_sub(first).saturating_add(1).max(1);
    let parts = i64::try_from(parts).unwrap_or(1).clamp(1, (width / MIN_PARALLEL_ROWS).max(1));
    let step = width / parts;
    (0..parts)
        .map(|i| {
            let start = first + i * step;
            let end = if i == parts - 1 { last } else { start + step - 1 };
            (start, end)
        })
        .collect()
}

/// How many documents match `query`, up to `limit`; `None` when more than `budget` rows had to
/// be stepped through.
fn count_rows(conn: &Connection, table: &Table, query: &Query, limit: Option<u64>, budget: usize) -> Result<Option<u64>, StoreError> {
    let budget = u64::try_from(budget).unwrap_or(u64::MAX);
    if query.is_pushed_down() {
        // Count at most one row past the budget: reaching it means the count must go on elsewhere.
        let cap = limit.map_or(budget.saturating_add(1), |limit| limit.min(budget.saturating_add(1)));
        let unbounded = limit.is_none() && budget == u64::MAX;
        let mut stmt = conn.prepare_cached(&query.select_count(table, !unbounded)).map_err(backend)?;
        let n: i64 = if unbounded {
            stmt.query_row(params_from_iter(&query.params), |row| row.get(0))
        } else {
            let cap = SqlValue::Integer(i64::try_from(cap).unwrap_or(i64::MAX));
            stmt.query_row(params_from_iter(query.params_with(cap)), |row| row.get(0))
        }
        .map_err(backend)?;
        let n = u64::try_from(n).unwrap_or(0);
        return Ok(if n > budget { None } else { Some(n) });
    }
    let mut stmt = conn.prepare_cached(&query.select_docs(table)).map_err(backend)?;
    let mut rows = stmt.query(params_from_iter(&query.params)).map_err(backend)?;
    let (mut n, mut stepped) = (0u64, 0u64);
    while limit.is_none_or(|limit| n < limit) {
        let Some(row) = rows.next().map_err(backend)? else { break };
        stepped += 1;
        if stepped > budget {
            return Ok(None);
        }
        if satisfies(table, &row_text(row)?, &query.rest)? {
            n += 1;
        }
    }
    Ok(Some(n))
}

/// The stored text of the document keyed `id` if it meets `condition`, inside the writer's
/// transaction.
fn doc_if(conn: &Connection, table: &Table, id: &str, condition: &Query) -> Result<Option<String>, StoreError> {
    let mut stmt = conn.prepare_cached(&condition.select_by_key(table)).map_err(backend)?;
    let params = condition.params_with(SqlValue::Text(id.to_string()));
    let doc =
        stmt.query_row(params_from_iter(params), |row| Ok(row_text(row).map(Cow::into_owned))).optional().map_err(backend)?.transpose()?;
    match doc {
        Some(doc) if satisfies(table, &doc, &condition.rest)? => Ok(Some(doc)),
        _ => Ok(None),
    }
}

#[async_trait]
impl DocumentStore for EmbeddedStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        if docs.is_empty() {
            return Ok(());
        }
        let rows = self.rows(docs)?;
        self.inner.writer.write(move |conn| insert_rows(conn, &rows)).await
    }

    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        let rows = self.rows(docs)?;
        let counter = counter.to_string();
        self.inner
            .writer
            .write(move |conn| {
                if is_full(conn, &counter, limit)? {
                    // A duplicate is reported before a full counter: try the inserts, undo them.
                    exec(conn, "SAVEPOINT agora_probe")?;
                    let probe = insert_rows(conn, &rows);
                    exec(conn, "ROLLBACK TO agora_probe")?;
                    exec(conn, "RELEASE agora_probe")?;
                    return probe.map(|()| Counted::Full);
                }
                insert_rows(conn, &rows)?;
                add(conn, &counter, 1).map(Counted::Stored)
            })
            .await
    }

    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        let table = self.table(collection)?;
        let (id, counter, everything) = (id.to_string(), counter.to_string(), Query::plan(&table, &Filter::all()));
        self.inner
            .writer
            .write(move |conn| {
                if is_full(conn, &counter, limit)? {
                    // A missing document is reported before a full counter.
                    let found = doc_if(conn, &table, &id, &everything)?.is_some();
                    return Ok(if found { Uncounted::Full } else { Uncounted::Missing });
                }
                if !delete_row(conn, &table, &id, &everything)? {
                    return Ok(Uncounted::Missing);
                }
                add(conn, &counter, -1).map(Uncounted::Deleted)
            })
            .await
    }

    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        let table = self.table(collection)?;
        self.inner.readers.read(|conn| {
            let mut stmt = conn.prepare_cached(&table.sql.get).map_err(backend)?;
            let doc = stmt.query_row(params![id], |row| Ok(row_text(row).map(Cow::into_owned))).optional().map_err(backend)?.transpose()?;
            Ok(doc.map(trusted_raw))
        })
    }

    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        let table = self.table(collection)?;
        let query = Arc::new(Query::plan(&table, filter));
        if let Some(docs) = self.inner.readers.read(|conn| find_rows(conn, &table, &query, None, INLINE_ROWS))? {
            return Ok(docs);
        }
        // A large result: read ranges of insertion order in parallel on the blocking pool.
        let Some((first, last)) = self.inner.readers.read(|conn| seq_bounds(conn, &table, &query))? else {
            return Ok(Vec::new());
        };
        let parts = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_PARALLEL_READS);
        let reads: Vec<_> = split_range(first, last, parts)
            .into_iter()
            .map(|range| {
                let (inner, table, query) = (Arc::clone(&self.inner), Arc::clone(&table), Arc::clone(&query));
                tokio::task::spawn_blocking(move || inner.readers.read(|conn| find_rows(conn, &table, &query, Some(range), usize::MAX)))
            })
            .collect();
        let mut docs = Vec::new();
        for read in reads {
            let part = read.await.map_err(|e| StoreError::Backend(format!("store read failed: {e}")))??;
            docs.extend(part.unwrap_or_default());
        }
        Ok(docs)
    }

    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        let table = self.table(collection)?;
        let query = Query::plan(&table, filter);
        Ok(crate::stream::find_stream(Arc::clone(&self.inner), table, query, page))
    }

    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        let table = self.table(collection)?;
        let query = Query::plan(&table, filter);
        self.read(move |conn, budget| count_rows(conn, &table, &query, limit, budget)).await
    }

    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        let table = self.table(collection)?;
        let (id, condition, change) = (id.to_string(), Query::plan(&table, condition), change.clone());
        self.inner
            .writer
            .write(move |conn| {
                // Read once, here: the change's values are not parsed (a set may carry a report
                // of a million votes), and a refused change fails this write alone.
                let plan = change.plan(table.spec.key, &id).map_err(|e| StoreError::invalid_change(table.spec.name, e))?;
                let Some(doc) = doc_if(conn, &table, &id, &condition)? else { return Ok(false) };
                if !plan.is_empty() {
                    let merged = apply(&doc, &plan).map_err(|e| StoreError::invalid_change(table.spec.name, e))?;
                    let fields = merged.fields();
                    let columns: Vec<SqlValue> = table.columns.iter().map(|c| column_value(&fields, c.field)).collect();
                    let text = merged.to_text().map_err(|r| invalid(&table, r))?;
                    drop(fields);
                    drop(merged);
                    let mut stmt = conn.prepare_cached(&table.sql.update).map_err(backend)?;
                    stmt.execute(params_from_iter(
                        [rusqlite::types::ToSqlOutput::from(id.as_str()), stored_form(&text)]
                            .into_iter()
                            .chain(columns.iter().map(rusqlite::types::ToSqlOutput::from)),
                    ))
                    .map_err(|e| write_error(&table, e))?;
                }
                Ok(true)
            })
            .await
    }

    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        let table = self.table(collection)?;
        let (id, condition) = (id.to_string(), Query::plan(&table, condition));
        self.inner.writer.write(move |conn| delete_row(conn, &table, &id, &condition)).await
    }

    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        let counter = counter.to_string();
        self.inner.writer.write(move |conn| add(conn, &counter, by)).await
    }
}

/// One row to insert: its table, key, document and indexed column values.
type Row = (Arc<Table>, String, Json, Vec<SqlValue>);

impl EmbeddedStore {
    /// The rows of `docs`, checked before anything is written.
    fn rows(&self, docs: Vec<(&'static str, Json)>) -> Result<Vec<Row>, StoreError> {
        let mut rows = Vec::with_capacity(docs.len());
        for (collection, doc) in docs {
            let table = self.table(collection)?;
            let fields = top_level(doc.get()).map_err(|r| invalid(&table, r))?;
            let key = key_of(&fields, table.spec.key).map_err(|r| invalid(&table, r))?;
            let columns: Vec<SqlValue> = table.columns.iter().map(|c| column_value(&fields, c.field)).collect();
            drop(fields);
            rows.push((table, key, doc, columns));
        }
        Ok(rows)
    }
}

/// Inserts `rows` on the open write transaction.
fn insert_rows(conn: &Connection, rows: &[Row]) -> Result<(), StoreError> {
    for (table, key, doc, columns) in rows {
        let mut stmt = conn.prepare_cached(&table.sql.insert).map_err(backend)?;
        stmt.execute(params_from_iter(
            [rusqlite::types::ToSqlOutput::from(key.as_str()), stored_form(doc.get())]
                .into_iter()
                .chain(columns.iter().map(rusqlite::types::ToSqlOutput::from)),
        ))
        .map_err(|e| write_error(table, e))?;
    }
    Ok(())
}

/// Deletes the document keyed `id` if it meets `condition`, on the open write transaction (its
/// unique indexes are the table's own); whether it did.
fn delete_row(conn: &Connection, table: &Table, id: &str, condition: &Query) -> Result<bool, StoreError> {
    if !condition.is_pushed_down() && doc_if(conn, table, id, condition)?.is_none() {
        return Ok(false);
    }
    let mut stmt = conn.prepare_cached(&condition.delete_by_key(table)).map_err(backend)?;
    let deleted = stmt.execute(params_from_iter(condition.params_with(SqlValue::Text(id.to_string())))).map_err(backend)?;
    Ok(deleted > 0)
}

/// Whether the counter is at `limit` or above, on the open write transaction.
fn is_full(conn: &Connection, counter: &str, limit: Option<i64>) -> Result<bool, StoreError> {
    let Some(limit) = limit else { return Ok(false) };
    let now: Option<i64> = conn
        .prepare_cached(COUNTER_SQL)
        .and_then(|mut stmt| stmt.query_row(params![counter], |row| row.get(0)).optional())
        .map_err(backend)?;
    Ok(now.unwrap_or(0) >= limit)
}

/// Adds `by` to the counter on the open write transaction; its new value.
fn add(conn: &Connection, counter: &str, by: i64) -> Result<i64, StoreError> {
    let mut stmt = conn.prepare_cached(INCREMENT_SQL).map_err(backend)?;
    stmt.query_row(params![counter, by], |row| row.get(0)).map_err(backend)
}

/// Runs a statement of transaction control.
fn exec(conn: &Connection, sql: &str) -> Result<(), StoreError> {
    conn.prepare_cached(sql).and_then(|mut stmt| stmt.execute([])).map(|_| ()).map_err(backend)
}

#[cfg(test)]
mod tests {
    use super::split_range;

    #[test]
    fn ranges_cover_the_whole_span_once() {
        assert_eq!(split_range(1, 100, 4), [(1, 100)], "too narrow to split");
        assert_eq!(split_range(1, 100_000, 2), [(1, 50_000), (50_001, 100_000)]);
        let parts = split_range(7, 80_006, 3);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0].0, 7);
        assert_eq!(parts[2].1, 80_006);
        assert!(parts.windows(2).all(|w| w[0].1 + 1 == w[1].0));
        assert_eq!(split_range(5, 5, 4), [(5, 5)]);
    }
}

//! [`DynamoStore`]: the [`DocumentStore`] on one DynamoDB table.

use crate::config::DynamoConfig;
use crate::document::raw;
use crate::items::{self, Body, Item, Prepared};
use crate::key_writes::Written;
use crate::parts;
use crate::query::{self, AccessPath, Plan};
use crate::table::{Collection, Layout};
use crate::writes::{self, Condition, Failure, Write, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS};
use agora_filter::Filter;
use agora_store::change::{apply, Plan as ChangePlan};
use agora_store::document::{key_of, top_level};
use agora_store::{Change, Counted, DatabaseSpec, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

use crate::connection::{Counters, Inner, StoreStats};
use crate::read::{get_main, get_text, MAX_ATTEMPTS};

/// The DynamoDB [`DocumentStore`]: every collection of a [`DatabaseSpec`] in one table, keyed
/// under the database's name (the crate documentation describes the table). Several stores of
/// different databases may share one table. Cheap to clone.
#[derive(Clone)]
pub struct DynamoStore {
    inner: Arc<Inner>,
}

impl DynamoStore {
    /// A store for the database `db` (its name prefixes every key) in the table `config` names.
    /// Makes no call yet: the table must exist (see [`DynamoStore::ensure_table`]).
    pub async fn connect(config: DynamoConfig, db: DatabaseSpec) -> Result<DynamoStore, StoreError> {
        let client = config.client().await?;
        DynamoStore::with_client(client, config.table, db)
    }

    /// A store for `db` in `table`, through a client built elsewhere (several databases then
    /// share it: clone the client).
    pub fn with_client(client: aws_sdk_dynamodb::Client, table: impl Into<String>, db: DatabaseSpec) -> Result<DynamoStore, StoreError> {
        let layout = Layout::new(&db)?;
        Ok(DynamoStore {
            inner: Arc::new(Inner {
                client,
                table: table.into(),
                layout,
                stats: Counters::default(),
                key_writes: crate::key_writes::Tally::from_env(),
            }),
        })
    }

    /// Creates the table and its GSIs if it does not exist, and waits until it is active; checks
    /// an existing table has the GSIs the store needs. For local and test use: in AWS the
    /// deployment template creates the table.
    pub async fn ensure_table(&self) -> Result<(), StoreError> {
        crate::admin::ensure_table(&self.inner).await
    }

    /// Deletes the table (for tests). A missing table is not an error.
    pub async fn delete_table(&self) -> Result<(), StoreError> {
        crate::admin::delete_table(&self.inner).await
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        &self.inner.table
    }

    /// The DynamoDB client.
    pub fn client(&self) -> &aws_sdk_dynamodb::Client {
        &self.inner.client
    }

    /// The calls made so far.
    pub fn stats(&self) -> StoreStats {
        self.inner.stats.snapshot()
    }

    /// Switches the per-partition write tally on or off (off unless [`KEY_WRITES_ENV`] was set
    /// when the store was made); shared by the store's clones. Switching off keeps the counts.
    ///
    /// [`KEY_WRITES_ENV`]: crate::KEY_WRITES_ENV
    pub fn track_key_writes(&self, on: bool) {
        self.inner.key_writes.switch(on);
    }

    /// The writes per partition key counted so far (see [`crate::KeyWrites`]), with the `top`
    /// most written keys:
    ///
    /// ```ignore
    /// store.track_key_writes(true);
    /// // ... 10,000 votes of one task ...
    /// let writes = store.key_writes(5);
    /// let hottest = writes.hottest_index_key().expect("a GSI written");
    /// println!("{} {}: {} writes, {:.1}% of the votes", hottest.index.as_deref().unwrap_or("table"), hottest.key,
    ///     hottest.writes, 100.0 * hottest.writes as f64 / 10_000.0);
    /// println!("hottest key of all (the task's counter): {:.0}%", 100.0 * writes.share_of(10_000));
    /// ```
    pub fn key_writes(&self, top: usize) -> crate::KeyWrites {
        self.inner.key_writes.snapshot(top)
    }

    /// Forgets the writes counted so far.
    pub fn reset_key_writes(&self) {
        self.inner.key_writes.reset();
    }

    /// How `find` and `count` serve `filter` on `collection`.
    pub fn access_path(&self, collection: &str, filter: &Filter) -> Result<AccessPath, StoreError> {
        let c = self.inner.layout.collection(collection)?;
        Ok(Plan::new(c, filter).path().clone())
    }

    fn collection(&self, name: &str) -> Result<&Collection, StoreError> {
        self.inner.layout.collection(name)
    }
}

/// A document refused by the store.
fn invalid(c: &Collection, reason: impl Into<String>) -> StoreError {
    StoreError::InvalidDocument { collection: c.name().to_string(), reason: reason.into() }
}

/// The writes of new documents: each main item (must be new), then its markers (must be new).
fn insert_writes(docs: &[(&Collection, Prepared)]) -> Vec<Write> {
    let mut out = Vec::new();
    for (c, p) in docs {
        let duplicate = |fields: &str| Failure::Duplicate { collection: c.name().to_string(), fields: fields.to_string() };
        out.push(Write::Put { item: p.main.clone(), condition: Condition::New, failure: duplicate(c.spec.key) });
        for marker in &p.markers {
            out.push(Write::Put { item: items::marker_item(marker, &p.id), condition: Condition::New, failure: duplicate(&marker.set) });
        }
    }
    out
}

/// Commits `writes` together with the new `parts` of the documents they store: in the same
/// transaction when it stays within DynamoDB's limits, else the parts first (they are reachable
/// only once the main item naming them is written). Parts written ahead of a failed commit are
/// deleted again.
async fn commit_with_parts(
    inner: &Inner,
    mut writes: Vec<Write>,
    new_parts: &[(&Collection, &Prepared)],
) -> Result<Result<(), Failure>, StoreError> {
    let part_items: usize = new_parts.iter().map(|(_, p)| p.parts.len()).sum();
    if part_items == 0 {
        return writes::commit(inner, writes).await;
    }
    let bytes: usize =
        writes.iter().map(write_size).sum::<usize>() + new_parts.iter().flat_map(|(_, p)| &p.parts).map(items::item_size).sum::<usize>();
    if writes.len() + part_items <= MAX_TRANSACTION_ITEMS && bytes <= MAX_TRANSACTION_BYTES {
        for (_, p) in new_parts {
            for part in &p.parts {
                // Parts of a new generation: nobody else writes these keys.
                writes.push(Write::Put { item: part.clone(), condition: Condition::None, failure: Failure::Changed });
            }
        }
        return writes::commit(inner, writes).await;
    }
    let ahead: Vec<Item> = new_parts.iter().flat_map(|(_, p)| p.parts.iter().cloned()).collect();
    let (outcome, unwritten) = match parts::put_all(inner, &ahead).await {
        Ok(()) => {
            let outcome = writes::commit(inner, writes).await;
            // A failed condition wrote nothing; after another error the main items may have
            // been written (a lost response), so their parts stay.
            let unwritten = matches!(outcome, Ok(Err(_)));
            (outcome, unwritten)
        }
        Err(e) => (Err(e), true),
    };
    if unwritten {
        for (c, p) in new_parts {
            parts::delete_items(inner, c, &p.id, p.gen.as_deref(), p.parts.len()).await;
        }
    }
    outcome
}

fn write_size(write: &Write) -> usize {
    match write {
        Write::Put { item, .. } => items::item_size(item),
        Write::Delete { pk, .. } | Write::Raise { pk, .. } => pk.len(),
    }
}

/// The checked change for the document keyed `id`.
fn plan<'a>(c: &Collection, change: &'a Change, id: &str) -> Result<ChangePlan<'a>, StoreError> {
    change.plan(c.spec.key, id).map_err(|e| StoreError::invalid_change(c.name(), e))
}

/// Does the document `text` match `condition`?
fn meets(c: &Collection, text: &str, condition: &Filter) -> Result<bool, StoreError> {
    if condition.is_all() {
        return Ok(true);
    }
    let doc: Value = serde_json::from_str(text).map_err(|e| items::corrupt(c, &format!("a stored document is not JSON: {e}")))?;
    Ok(condition.matches(&doc))
}

/// Drops the old parts of a document once its main item no longer names them.
async fn drop_parts(inner: &Inner, c: &Collection, id: &str, body: &Body) {
    if let Body::Parts { gen, count } = body {
        parts::delete(inner, c, id, gen, *count).await;
    }
}

impl DynamoStore {
    /// Inserts `docs` (their items and unique markers) with `extra` in one transaction; false
    /// when `extra`'s condition failed (nothing written).
    async fn insert_with(&self, docs: Vec<(&'static str, Json)>, extra: Option<Write>) -> Result<bool, StoreError> {
        if docs.is_empty() && extra.is_none() {
            return Ok(true);
        }
        let mut prepared: Vec<(&Collection, Prepared)> = Vec::with_capacity(docs.len());
        for (collection, doc) in &docs {
            let c = self.collection(collection)?;
            let fields = top_level(doc.get()).map_err(|r| invalid(c, r))?;
            let id = key_of(&fields, c.spec.key).map_err(|r| invalid(c, r))?;
            let p = items::prepare(c, doc.get(), &fields, &id, &crate::order::next_token(), 1)?;
            prepared.push((c, p));
        }
        // Two documents of the batch on the same key or unique values: DynamoDB refuses a
        // transaction writing one item twice, so the batch is refused here, naming the constraint.
        let mut seen: HashSet<&str> = HashSet::new();
        for (c, p) in &prepared {
            let duplicate = |fields: &str| StoreError::Duplicate { collection: c.name().to_string(), fields: fields.to_string() };
            if !seen.insert(&p.pk) {
                return Err(duplicate(c.spec.key));
            }
            for marker in &p.markers {
                if !seen.insert(&marker.pk) {
                    return Err(duplicate(&marker.set));
                }
            }
        }
        let mut writes = insert_writes(&prepared);
        writes.extend(extra);
        if writes.len() > MAX_TRANSACTION_ITEMS {
            return Err(StoreError::Backend(format!(
                "an insert of {} documents needs {} writes, more than DynamoDB's {MAX_TRANSACTION_ITEMS} per transaction",
                prepared.len(),
                writes.len()
            )));
        }
        let with_parts: Vec<(&Collection, &Prepared)> =
            prepared.iter().map(|(c, p)| (*c, p)).filter(|(_, p)| !p.parts.is_empty()).collect();
        match commit_with_parts(&self.inner, writes, &with_parts).await? {
            Ok(()) => Ok(true),
            Err(Failure::Duplicate { collection, fields }) => Err(StoreError::Duplicate { collection, fields }),
            Err(Failure::Full) => Ok(false),
            Err(Failure::Changed) => Err(StoreError::Backend("an insert failed on a write that cannot fail".to_string())),
        }
    }

    /// Deletes the document keyed `id` if it matches `condition` (its item and unique markers,
    /// then its parts once no item names them), with `extra` in the same transaction.
    /// [`Uncounted::Full`] when `extra`'s condition failed (nothing written); `Deleted(0)` when
    /// deleted (the caller reads its counter).
    async fn delete_with(&self, collection: &str, id: &str, condition: &Filter, extra: Option<Write>) -> Result<Uncounted, StoreError> {
        let c = self.collection(collection)?;
        let inner = &self.inner;
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(writes::backoff(attempt)).await;
            }
            let Some(stored) = get_main(inner, c, id).await? else { return Ok(Uncounted::Missing) };
            let (ver, body, markers, index_keys) = (stored.ver, stored.body.clone(), stored.markers.clone(), stored.index_keys.clone());
            if !condition.is_all() {
                let Some(text) = parts::text_of(inner, c, stored).await? else { continue };
                if !meets(c, &text, condition)? {
                    return Ok(Uncounted::Missing);
                }
            }
            let mut plan = vec![Write::Delete { pk: c.doc_pk(id), condition: Condition::Version(ver), failure: Failure::Changed }];
            for pk in markers {
                plan.push(Write::Delete { pk, condition: Condition::None, failure: Failure::Changed });
            }
            plan.extend(extra.clone());
            match writes::commit(inner, plan).await? {
                Ok(()) => {
                    // Deleting the item removed its GSI entries.
                    inner.key_writes.record(false, index_keys.iter().map(|(attr, key)| Written::IndexEntry { attr, key }));
                    drop_parts(inner, c, id, &body).await;
                    return Ok(Uncounted::Deleted(0));
                }
                Err(Failure::Changed) => continue,
                Err(Failure::Full) => return Ok(Uncounted::Full),
                Err(Failure::Duplicate { collection, fields }) => return Err(StoreError::Duplicate { collection, fields }),
            }
        }
        Err(StoreError::Backend(format!("{collection}/{id}: gave up deleting after {MAX_ATTEMPTS} concurrent changes")))
    }
}

#[async_trait]
impl DocumentStore for DynamoStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        self.insert_with(docs, None).await.map(|_| ())
    }

    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        let raise = crate::counters::raise(&self.inner, counter, 1, limit)?;
        if !self.insert_with(docs, Some(raise)).await? {
            return Ok(Counted::Full);
        }
        Ok(Counted::Stored(crate::counters::value(&self.inner, counter).await?))
    }

    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        let lower = crate::counters::raise(&self.inner, counter, -1, limit)?;
        match self.delete_with(collection, id, &Filter::all(), Some(lower)).await? {
            Uncounted::Deleted(_) => Ok(Uncounted::Deleted(crate::counters::value(&self.inner, counter).await?)),
            other => Ok(other),
        }
    }

    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        let c = self.collection(collection)?;
        match get_text(&self.inner, c, id).await? {
            Some(text) => Ok(Some(raw(text).map_err(|r| items::corrupt(c, &r))?)),
            None => Ok(None),
        }
    }

    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        let c = self.collection(collection)?;
        query::find(&self.inner, c, &Plan::new(c, filter)).await
    }

    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        let c = self.collection(collection)?;
        crate::stream::find_stream(Arc::clone(&self.inner), c, Plan::new(c, filter), page).await
    }

    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        let c = self.collection(collection)?;
        query::count(&self.inner, c, &Plan::new(c, filter), limit).await
    }

    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        let c = self.collection(collection)?;
        let plan = plan(c, change, id)?;
        let inner = &self.inner;
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(writes::backoff(attempt)).await;
            }
            let Some(stored) = get_main(inner, c, id).await? else { return Ok(false) };
            let (ver, seq, old_body, old_markers) = (stored.ver, stored.seq.clone(), stored.body.clone(), stored.markers.clone());
            let old_index_keys = stored.index_keys.clone();
            let Some(text) = parts::text_of(inner, c, stored).await? else { continue };
            if !meets(c, &text, condition)? {
                return Ok(false);
            }
            if plan.is_empty() {
                return Ok(true);
            }
            let merged = apply(&text, &plan).map_err(|e| StoreError::invalid_change(c.name(), e))?;
            let merged_text = merged.to_text().map_err(|r| invalid(c, r))?;
            let p = items::prepare(c, &merged_text, &merged.fields(), id, &seq, ver + 1)?;
            // The document first: its failure (a concurrent change) outranks the others.
            let mut plan = vec![Write::Put { item: p.main.clone(), condition: Condition::Version(ver), failure: Failure::Changed }];
            for marker in p.markers.iter().filter(|m| !old_markers.contains(&m.pk)) {
                let failure = Failure::Duplicate { collection: c.name().to_string(), fields: marker.set.clone() };
                plan.push(Write::Put { item: items::marker_item(marker, id), condition: Condition::New, failure });
            }
            for pk in old_markers.iter().filter(|pk| !p.markers.iter().any(|m| &m.pk == *pk)) {
                plan.push(Write::Delete { pk: pk.clone(), condition: Condition::None, failure: Failure::Changed });
            }
            match commit_with_parts(inner, plan, &[(c, &p)]).await? {
                Ok(()) => {
                    // The GSI entries the document moved out of were removed.
                    let moved =
                        old_index_keys.iter().filter(|(attr, key)| !matches!(p.main.get(attr), Some(AttributeValue::S(new)) if new == key));
                    inner.key_writes.record(false, moved.map(|(attr, key)| Written::IndexEntry { attr, key }));
                    drop_parts(inner, c, id, &old_body).await;
                    return Ok(true);
                }
                Err(Failure::Changed) => continue,
                Err(Failure::Full) => return Err(StoreError::Backend("a write raised no counter, yet one was full".to_string())),
                Err(Failure::Duplicate { collection, fields }) => return Err(StoreError::Duplicate { collection, fields }),
            }
        }
        Err(StoreError::Backend(format!("{collection}/{id}: gave up updating after {MAX_ATTEMPTS} concurrent changes")))
    }

    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        Ok(self.delete_with(collection, id, condition, None).await? != Uncounted::Missing)
    }

    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        crate::counters::increment(&self.inner, counter, by).await
    }

    async fn counter(&self, counter: &str) -> Result<i64, StoreError> {
        crate::counters::value(&self.inner, counter).await
    }
}

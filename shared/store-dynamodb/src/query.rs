//! `find` and `count`: how a filter is served (its access path), and the reads that serve it.
//!
//! The filter's top-level equalities on the key, indexed and unique fields
//! ([`Filter::take_equalities`]) choose the access path, most selective first:
//!
//! 1. the key: one consistent `GetItem`;
//! 2. every field of a unique set: the set's marker (a consistent `GetItem`), then the document
//!    it names;
//! 3. a field GSI: composites (two equalities) before single fields, single fields in `indexed`
//!    order;
//! 4. otherwise the collection GSI.
//!
//! Every GSI key is write-sharded over [`GSI_SHARDS`] partitions (`table.rs`): a GSI read is one
//! `Query` per shard, all at once, merged in insertion order (`seq`, the GSIs' sort key). A
//! count with a limit stops reading once the shards' counts together reach it.
//!
//! Whatever the access path does not check is matched in Rust ([`Filter::matches`]); when
//! nothing is left, documents are handed back as stored, and `count` asks DynamoDB for counts
//! (`Select::COUNT`) without reading documents. The store never calls `Scan`.

use crate::connection::Inner;
use crate::document::raw;
use crate::items::{self, Item, Stored};
use crate::parts;
use crate::table::{self, Collection, ALL_ATTR, ALL_INDEX, DOC, GSI_SHARDS, OWNER, PART_COUNT, PART_GEN, PK, SEQ};
use agora_filter::Filter;
use agora_store::{Json, StoreError};
use aws_sdk_dynamodb::types::{AttributeValue, Select};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};

/// How a filter is served; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessPath {
    /// Nothing can match (an equality on the key with a value that is not a string).
    Nothing,
    /// `GetItem` of the document.
    Key,
    /// `GetItem` of the marker of this unique set (fields joined by `,`), then of the document.
    Unique { fields: String },
    /// `Query` of the shards of this field GSI (`gsi<n>`) key on these fields (joined by `,`).
    Index { index: String, fields: String },
    /// `Query` of every shard of the collection GSI: a read of the whole collection.
    Collection,
}

/// An access path with its keys (a field GSI's: its shard 0, see [`Collection::index_shard_pk`]).
#[derive(Debug, Clone)]
pub(crate) enum Access {
    Nothing,
    Key(String),
    Unique { marker: String },
    Index { slot: usize, pk: String },
    Collection,
}

/// A filter split between the access path and the matcher.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) access: Access,
    path: AccessPath,
    /// What the documents the access path yields must still match; [`Filter::all`] when none.
    pub(crate) rest: Filter,
}

impl Plan {
    /// Plans `filter` on `c`.
    pub fn new(c: &Collection, filter: &Filter) -> Plan {
        if filter.is_all() {
            return Plan { access: Access::Collection, path: AccessPath::Collection, rest: Filter::all() };
        }
        let (pairs, rest) = filter.take_equalities(&c.pushable_fields());
        let value_of = |field: &str| pairs.iter().position(|(f, _)| f == field);
        let (access, path, used): (Access, AccessPath, Vec<usize>) = 'chosen: {
            if let Some(i) = value_of(c.spec.key) {
                break 'chosen match &pairs[i].1 {
                    Value::String(id) => (Access::Key(id.clone()), AccessPath::Key, vec![i]),
                    _ => (Access::Nothing, AccessPath::Nothing, vec![i]),
                };
            }
            for set in c.spec.unique {
                let used: Option<Vec<usize>> = set.iter().map(|f| value_of(f)).collect();
                let Some(used) = used else { continue };
                let values: Vec<&Value> = used.iter().map(|i| &pairs[*i].1).collect();
                if let Some(marker) = c.marker_pk(set, &values) {
                    // The marker and the document are two reads: the whole filter is checked on
                    // the document.
                    let path = AccessPath::Unique { fields: set.join(",") };
                    return Plan { access: Access::Unique { marker }, path, rest: filter.clone() };
                }
            }
            let composites = c.indexes.iter().filter(|i| i.fields.len() > 1);
            for index in composites.chain(c.indexes.iter().filter(|i| i.fields.len() == 1)) {
                let used: Option<Vec<usize>> = index.fields.iter().map(|f| value_of(f)).collect();
                let Some(used) = used else { continue };
                let values: Vec<&Value> = used.iter().map(|i| &pairs[*i].1).collect();
                if let Some(pk) = c.index_pk(index, &values) {
                    let path = AccessPath::Index { index: table::index_name(index.slot), fields: index.fields.join(",") };
                    break 'chosen (Access::Index { slot: index.slot, pk }, path, used);
                }
            }
            (Access::Collection, AccessPath::Collection, Vec::new())
        };
        // The equalities the access path does not check go back to the matcher.
        let mut rest = rest;
        for (i, (field, value)) in pairs.into_iter().enumerate() {
            if !used.contains(&i) {
                rest = Filter::must(Value::Object(Map::from_iter([(field, value)]))).and(rest);
            }
        }
        Plan { access, path, rest }
    }

    pub fn path(&self) -> &AccessPath {
        &self.path
    }
}

/// The documents of `c` matching `plan`, in insertion order.
pub(crate) async fn find(inner: &Inner, c: &Collection, plan: &Plan) -> Result<Vec<Json>, StoreError> {
    match &plan.access {
        Access::Nothing => Ok(Vec::new()),
        Access::Key(id) => one(inner, c, id, &plan.rest).await.map(|doc| doc.into_iter().collect()),
        Access::Unique { marker } => match owner_of(inner, marker).await? {
            Some(id) => one(inner, c, &id, &plan.rest).await.map(|doc| doc.into_iter().collect()),
            None => Ok(Vec::new()),
        },
        Access::Index { .. } | Access::Collection => {
            let shards = partitions(c, &plan.access).into_iter().map(|source| async move { read(inner, c, &source, &plan.rest).await });
            // Each shard in insertion order; merged by `seq` (a sort of sorted runs).
            let mut docs: Vec<(String, Json)> = futures::future::try_join_all(shards).await?.into_iter().flatten().collect();
            docs.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(docs.into_iter().map(|(_, doc)| doc).collect())
        }
    }
}

/// The GSI partitions a GSI access path reads: every shard of its key (none for the other
/// paths).
pub(crate) fn partitions(c: &Collection, access: &Access) -> Vec<Source> {
    match access {
        Access::Index { slot, pk } => (0..GSI_SHARDS).map(|shard| index_source(*slot, &c.index_shard_pk(pk, shard))).collect(),
        Access::Collection => (0..GSI_SHARDS).map(|shard| shard_source(c, shard)).collect(),
        Access::Nothing | Access::Key(_) | Access::Unique { .. } => Vec::new(),
    }
}

/// How many documents of `c` match `plan`, counting no further than `limit`.
pub(crate) async fn count(inner: &Inner, c: &Collection, plan: &Plan, limit: Option<u64>) -> Result<u64, StoreError> {
    if limit == Some(0) {
        return Ok(0);
    }
    let capped = |n: u64| limit.map_or(n, |limit| n.min(limit));
    match &plan.access {
        Access::Nothing | Access::Key(_) | Access::Unique { .. } => Ok(capped(find(inner, c, plan).await?.len() as u64)),
        Access::Index { .. } | Access::Collection => {
            // Every shard at once; together they stop at the limit.
            let counted = AtomicU64::new(0);
            let counted = &counted;
            let shards = partitions(c, &plan.access)
                .into_iter()
                .map(|source| async move { count_source(inner, c, &source, &plan.rest, limit, counted).await });
            let total: u64 = futures::future::try_join_all(shards).await?.into_iter().sum();
            Ok(capped(total))
        }
    }
}

/// The document keyed `id`, if it matches `rest`.
async fn one(inner: &Inner, c: &Collection, id: &str, rest: &Filter) -> Result<Option<Json>, StoreError> {
    match crate::read::get_text(inner, c, id).await? {
        Some(text) if satisfies(c, &text, rest)? => Ok(Some(raw(text).map_err(|r| items::corrupt(c, &r))?)),
        _ => Ok(None),
    }
}

/// The owner named by a unique marker.
async fn owner_of(inner: &Inner, marker: &str) -> Result<Option<String>, StoreError> {
    inner.stats.count_get();
    let out = inner
        .client
        .get_item()
        .table_name(&inner.table)
        .key(PK, AttributeValue::S(marker.to_string()))
        .consistent_read(true)
        .send()
        .await
        .map_err(|e| crate::error::backend("GetItem (unique marker)", e))?;
    Ok(match out.item.and_then(|mut item| item.remove(OWNER)) {
        Some(AttributeValue::S(owner)) => Some(owner),
        _ => None,
    })
}

/// Does the document `text` match `rest`?
fn satisfies(c: &Collection, text: &str, rest: &Filter) -> Result<bool, StoreError> {
    if rest.is_all() {
        return Ok(true);
    }
    let doc: Value = serde_json::from_str(text).map_err(|e| items::corrupt(c, &format!("a stored document is not JSON: {e}")))?;
    Ok(rest.matches(&doc))
}

/// A GSI partition to query.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Index { name: String, attr: String, pk: String },
    Shard { pk: String },
}

/// The partition of field GSI `slot` keyed `pk`.
pub(crate) fn index_source(slot: usize, pk: &str) -> Source {
    Source::Index { name: table::index_name(slot), attr: table::index_attr(slot), pk: pk.to_string() }
}

pub(crate) fn shard_source(c: &Collection, shard: u32) -> Source {
    Source::Shard { pk: c.shard_pk(shard) }
}

/// What a page of a `Query` brings back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fetch {
    /// The items' documents (and keys).
    Documents,
    /// Their number only (`Select::COUNT`).
    Count,
    /// Their `seq` only.
    Seq,
}

/// One page of a `Query` of `source` (of its items after `seq` `after`, when given).
pub(crate) async fn page(
    inner: &Inner,
    source: &Source,
    start: Option<Item>,
    fetch: Fetch,
    limit: Option<u64>,
    after: Option<&str>,
) -> Result<aws_sdk_dynamodb::operation::query::QueryOutput, StoreError> {
    let (index, attr, pk) = match source {
        Source::Index { name, attr, pk } => {
            inner.stats.count_index_query();
            (name.as_str(), attr.as_str(), pk)
        }
        Source::Shard { pk } => {
            inner.stats.count_collection_query();
            (ALL_INDEX, ALL_ATTR, pk)
        }
    };
    let mut call = inner
        .client
        .query()
        .table_name(&inner.table)
        .index_name(index)
        .expression_attribute_names("#k", attr)
        .expression_attribute_values(":k", AttributeValue::S(pk.clone()))
        .set_exclusive_start_key(start)
        .set_limit(limit.map(|l| i32::try_from(l).unwrap_or(i32::MAX)));
    call = match after {
        Some(seq) => call
            .key_condition_expression("#k = :k AND #seq > :after")
            .expression_attribute_values(":after", AttributeValue::S(seq.to_string()))
            .expression_attribute_names("#seq", SEQ),
        None => call.key_condition_expression("#k = :k"),
    };
    call = match fetch {
        Fetch::Count => call.select(Select::Count),
        Fetch::Seq => call.projection_expression("#seq").expression_attribute_names("#seq", SEQ),
        Fetch::Documents => call
            .projection_expression("#pk, #seq, #doc, #pgen, #pn")
            .expression_attribute_names("#pk", PK)
            .expression_attribute_names("#seq", SEQ)
            .expression_attribute_names("#doc", DOC)
            .expression_attribute_names("#pgen", PART_GEN)
            .expression_attribute_names("#pn", PART_COUNT),
    };
    call.send().await.map_err(|e| crate::error::backend("Query", e))
}

/// The documents of `source` matching `rest`, in insertion order, with their `seq`.
async fn read(inner: &Inner, c: &Collection, source: &Source, rest: &Filter) -> Result<Vec<(String, Json)>, StoreError> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = page(inner, source, start, Fetch::Documents, None, None).await?;
        for item in page.items.unwrap_or_default() {
            if let Some(doc) = document(inner, c, item, rest).await? {
                out.push(doc);
            }
        }
        start = page.last_evaluated_key.filter(|key| !key.is_empty());
        if start.is_none() {
            return Ok(out);
        }
    }
}

/// How many documents of `source` match `rest`, one of the partitions of a count up to `limit`:
/// adds them to `counted` (the count of every partition so far), and stops once it reaches
/// `limit`. Counts with `Select::COUNT` when nothing is left to the matcher.
async fn count_source(
    inner: &Inner,
    c: &Collection,
    source: &Source,
    rest: &Filter,
    limit: Option<u64>,
    counted: &AtomicU64,
) -> Result<u64, StoreError> {
    let left = || limit.map(|limit| limit.saturating_sub(counted.load(Ordering::Relaxed)));
    let mut total = 0u64;
    let mut start = None;
    loop {
        if left() == Some(0) {
            return Ok(total);
        }
        let next = if rest.is_all() {
            let page = page(inner, source, start, Fetch::Count, left(), None).await?;
            let n = u64::try_from(page.count).unwrap_or(0);
            total += n;
            counted.fetch_add(n, Ordering::Relaxed);
            page.last_evaluated_key
        } else {
            let page = page(inner, source, start, Fetch::Documents, None, None).await?;
            for item in page.items.unwrap_or_default() {
                if left() == Some(0) {
                    return Ok(total);
                }
                if document(inner, c, item, rest).await?.is_some() {
                    total += 1;
                    counted.fetch_add(1, Ordering::Relaxed);
                }
            }
            page.last_evaluated_key
        };
        start = next.filter(|key| !key.is_empty());
        if start.is_none() {
            return Ok(total);
        }
    }
}

/// A queried item as a document matching `rest`, with its `seq`.
pub(crate) async fn document(inner: &Inner, c: &Collection, item: Item, rest: &Filter) -> Result<Option<(String, Json)>, StoreError> {
    let stored: Stored = items::stored(c, item)?;
    let seq = stored.seq.clone();
    let id = stored.id.clone();
    let text = match parts::text_of(inner, c, stored).await? {
        Some(text) => text,
        // Replaced since the query read it: read the document as it is now.
        None => match crate::read::get_text(inner, c, &id).await? {
            Some(text) => text,
            None => return Ok(None),
        },
    };
    if !satisfies(c, &text, rest)? {
        return Ok(None);
    }
    Ok(Some((seq, raw(text).map_err(|r| items::corrupt(c, &r))?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Layout;
    use agora_store::{CollectionSpec, DatabaseSpec};
    use serde_json::json;

    const VOTES: CollectionSpec = CollectionSpec {
        name: "votes",
        key: "vote_id",
        unique: &[&["social_task_id", "submitter_subject_id"]],
        indexed: &["social_task_id", "submitter_subject_id", "qualified"],
    };
    const TASKS: CollectionSpec = CollectionSpec { name: "tasks", key: "social_task_id", unique: &[], indexed: &["status"] };
    const DB: DatabaseSpec = DatabaseSpec::new("db", &[TASKS, VOTES]);

    fn path(collection: &str, filter: Value) -> (AccessPath, Filter) {
        let layout = Layout::new(&DB).expect("layout");
        let plan = Plan::new(layout.collection(collection).expect("collection"), &Filter::must(filter));
        (plan.path, plan.rest)
    }

    fn index(n: usize, fields: &str) -> AccessPath {
        AccessPath::Index { index: format!("gsi{n}"), fields: fields.to_string() }
    }

    #[test]
    fn hot_paths_never_read_a_whole_collection() {
        // Vote intake.
        assert_eq!(path("votes", json!({"vote_id": "v"})).0, AccessPath::Key);
        let (p, rest) = path("votes", json!({"social_task_id": "t", "submitter_subject_id": "s"}));
        assert_eq!(p, AccessPath::Unique { fields: "social_task_id,submitter_subject_id".to_string() });
        assert!(rest.matches(&json!({"social_task_id": "t", "submitter_subject_id": "s"})));
        assert!(!rest.matches(&json!({"social_task_id": "t", "submitter_subject_id": "x"})));
        // Trigger count.
        let (p, rest) = path("votes", json!({"social_task_id": "t", "qualified": true}));
        assert_eq!(p, index(4, "social_task_id,qualified"));
        assert!(rest.is_all());
        let (p, rest) = path("votes", json!({"social_task_id": "t", "qualified": true, "submitter_subject_id": {"$in": ["a"]}}));
        assert_eq!(p, index(4, "social_task_id,qualified"));
        assert!(!rest.is_all());
        // Start sweep.
        let (p, rest) = path("tasks", json!({"status": "scheduled", "scheduled_time": {"$lte": "2026-10-22T10:00:00"}}));
        assert_eq!(p, index(1, "status"));
        assert!(!rest.is_all());
        // Votes of a task.
        assert_eq!(path("votes", json!({"social_task_id": "t"})).0, index(1, "social_task_id"));
    }

    #[test]
    fn other_filters() {
        assert_eq!(path("votes", json!({})).0, AccessPath::Collection);
        assert_eq!(path("votes", json!({"vote_data.x": 1})).0, AccessPath::Collection);
        assert_eq!(path("votes", json!({"vote_id": 3})).0, AccessPath::Nothing);
        assert_eq!(path("votes", json!({"submitter_subject_id": "s", "qualified": false})).0, index(2, "submitter_subject_id"));
        let (p, rest) = path("votes", json!({"$and": [{"qualified": true}, {"qualified": false}]}));
        assert_eq!(p, index(3, "qualified"));
        assert!(!rest.matches(&json!({"qualified": true})), "the second equality stays in the rest");
        // A unique set with a value that cannot be keyed is not a marker lookup.
        assert_eq!(path("votes", json!({"social_task_id": "t", "submitter_subject_id": {"$in": ["s"]}})).0, index(1, "social_task_id"));
    }
}

//! The indexes of a collection, named so that a duplicate key error tells which constraint broke.
//!
//! For each [`CollectionSpec`]:
//!
//! * `unique:<key>`: unique on the key field (`get`, `update` and `delete` look documents up by it);
//! * `unique:<a>,<b>`: unique compound index per `unique` set (the name is the
//!   [`StoreError::Duplicate`](agora_store::StoreError::Duplicate) `fields` string);
//! * `by:<field>`: `{field: 1, _id: 1}` per `indexed` field. The trailing `_id` lets an equality
//!   on the field come back in insertion order (`find` sorts by `_id`) straight from the index,
//!   with no in-memory sort, whatever the number of matches.
//!
//! `createIndexes` with the same names and specifications is a no-op on the server; an existing
//! index of the same name with another specification makes start-up fail (the server refuses),
//! which is wanted. A database's index record ([`RECORD`]) lists the indexes once they all
//! exist, so that a start-up that finds them listed makes one read instead of a
//! `createIndexes` per collection ([`ensure`]).

use crate::convert::ID_FIELD;
use crate::error::backend;
use agora_store::{CollectionSpec, DatabaseSpec, StoreError};
use bson::{doc, Document};
use mongodb::options::IndexOptions;
use mongodb::{Database, IndexModel};

/// The unique constraints of a collection: index name and the `fields` string naming it.
pub(crate) fn unique_constraints(spec: &CollectionSpec) -> Vec<(String, String)> {
    let mut out = vec![(format!("unique:{}", spec.key), spec.key.to_string())];
    for set in spec.unique {
        let fields = set.join(",");
        out.push((format!("unique:{fields}"), fields));
    }
    out
}

/// The name of the index on an `indexed` field.
fn lookup_index_name(field: &str) -> String {
    format!("by:{field}")
}

/// One index: its keys, name and uniqueness.
struct Index {
    keys: Document,
    name: String,
    unique: bool,
}

/// Every index the collection needs.
fn needed(spec: &CollectionSpec) -> Vec<Index> {
    let mut out = Vec::new();
    let mut key = Document::new();
    key.insert(spec.key, 1);
    out.push(Index { keys: key, name: format!("unique:{}", spec.key), unique: true });
    for set in spec.unique {
        let mut keys = Document::new();
        for field in *set {
            keys.insert(*field, 1);
        }
        out.push(Index { keys, name: format!("unique:{}", set.join(",")), unique: true });
    }
    for field in spec.indexed.iter().filter(|f| **f != spec.key) {
        let mut keys = Document::new();
        keys.insert(*field, 1);
        keys.insert(ID_FIELD, 1);
        out.push(Index { keys, name: lookup_index_name(field), unique: false });
    }
    out
}

/// The driver's models of a collection's indexes.
fn models(spec: &CollectionSpec) -> Vec<IndexModel> {
    needed(spec)
        .into_iter()
        .map(|index| {
            let options = IndexOptions::builder().name(index.name).unique(index.unique.then_some(true)).build();
            IndexModel::builder().keys(index.keys).options(options).build()
        })
        .collect()
}

/// The collection of the database's index record: `{_id: "indexes", indexes: [...]}`, one line
/// per index of every collection, written once all of them exist.
pub(crate) const RECORD: &str = "_agora_indexes";
const RECORD_ID: &str = "indexes";

/// The record's lines for `db`: collection, index name, keys, uniqueness.
fn record_lines(db: &DatabaseSpec) -> Vec<String> {
    db.collections
        .iter()
        .flat_map(|spec| needed(spec).into_iter().map(move |i| format!("{} {} {} unique={}", spec.name, i.name, i.keys, i.unique)))
        .collect()
}

/// Ensures `db`'s indexes. When the database's index record lists exactly the indexes `db`
/// needs, they were all created before: one read, nothing written (a cold start costs one round
/// trip, not one per collection). Otherwise every collection's indexes are created (a no-op for
/// those that exist) and the record written after them. An index dropped by hand is therefore not
/// remade while the record stands: delete the record (`db._agora_indexes.deleteMany({})`) and
/// the next start-up creates what is missing.
pub(crate) async fn ensure(handle: &Database, db: &DatabaseSpec) -> Result<(), StoreError> {
    let wanted = record_lines(db);
    let records = handle.collection::<Document>(RECORD);
    let found = records.find_one(doc! { "_id": RECORD_ID }).await.map_err(|e| backend("reading the index record", &e))?;
    let recorded =
        found.as_ref().and_then(|d| d.get_array("indexes").ok()).map(|lines| lines.iter().filter_map(|l| l.as_str()).collect::<Vec<_>>());
    if recorded.is_some_and(|lines| lines == wanted) {
        return Ok(());
    }
    for spec in db.collections {
        let coll = handle.collection::<Document>(spec.name);
        coll.create_indexes(models(spec)).await.map_err(|e| backend(&format!("creating the indexes of {}", spec.name), &e))?;
    }
    records
        .replace_one(doc! { "_id": RECORD_ID }, doc! { "_id": RECORD_ID, "indexes": &wanted })
        .upsert(true)
        .await
        .map_err(|e| backend("writing the index record", &e))?;
    tracing::info!(database = db.name(), indexes = wanted.len(), "mongodb indexes created");
    Ok(())
}

/// The constraint a duplicate key error message names (`... index: <name> dup key: ...`), as
/// the `fields` string of [`StoreError::Duplicate`](agora_store::StoreError::Duplicate). `None`
/// when the message names none of the collection's unique indexes.
pub(crate) fn constraint_in_message(spec: &CollectionSpec, message: &str) -> Option<String> {
    unique_constraints(spec).into_iter().find(|(name, _)| message.contains(&format!("index: {name} dup key"))).map(|(_, fields)| fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOTES: CollectionSpec = CollectionSpec {
        name: "votes",
        key: "vote_id",
        unique: &[&["social_task_id", "submitter_subject_id"]],
        indexed: &["social_task_id", "submitter_subject_id", "qualified"],
    };

    #[test]
    fn names_and_keys() {
        let models = models(&VOTES);
        let described: Vec<(String, String, bool)> = models
            .iter()
            .map(|m| {
                let options = m.options.as_ref().expect("options");
                let keys: Vec<&str> = m.keys.keys().map(String::as_str).collect();
                (options.name.clone().expect("name"), keys.join(" "), options.unique == Some(true))
            })
            .collect();
        let expect = |name: &str, keys: &str, unique| (name.to_string(), keys.to_string(), unique);
        assert_eq!(
            described,
            [
                expect("unique:vote_id", "vote_id", true),
                expect("unique:social_task_id,submitter_subject_id", "social_task_id submitter_subject_id", true),
                expect("by:social_task_id", "social_task_id _id", false),
                expect("by:submitter_subject_id", "submitter_subject_id _id", false),
                expect("by:qualified", "qualified _id", false),
            ]
        );
    }

    #[test]
    fn duplicate_messages_name_their_constraint() {
        let key = r#"E11000 duplicate key error collection: db.votes index: unique:vote_id dup key: { vote_id: "v-1" }"#;
        let pair = "E11000 duplicate key error collection: db.votes index: unique:social_task_id,submitter_subject_id dup key: { : 1 }";
        assert_eq!(constraint_in_message(&VOTES, key).as_deref(), Some("vote_id"));
        assert_eq!(constraint_in_message(&VOTES, pair).as_deref(), Some("social_task_id,submitter_subject_id"));
        assert_eq!(constraint_in_message(&VOTES, "E11000 duplicate key error index: _id_ dup key"), None);
    }
}

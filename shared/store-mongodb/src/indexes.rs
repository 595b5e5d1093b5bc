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
//! `createIndexes` with the same names and specifications is a no-op on the server, so creating
//! them at every start-up is harmless; an existing index of the same name with another
//! specification makes start-up fail (the server refuses), which is wanted.

use crate::convert::ID_FIELD;
use agora_store::CollectionSpec;
use bson::Document;
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

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

/// Every index the collection needs.
pub(crate) fn models(spec: &CollectionSpec) -> Vec<IndexModel> {
    let mut out = Vec::new();
    let mut key = Document::new();
    key.insert(spec.key, 1);
    out.push(model(key, format!("unique:{}", spec.key), true));
    for set in spec.unique {
        let mut keys = Document::new();
        for field in *set {
            keys.insert(*field, 1);
        }
        out.push(model(keys, format!("unique:{}", set.join(",")), true));
    }
    for field in spec.indexed.iter().filter(|f| **f != spec.key) {
        let mut keys = Document::new();
        keys.insert(*field, 1);
        keys.insert(ID_FIELD, 1);
        out.push(model(keys, lookup_index_name(field), false));
    }
    out
}

fn model(keys: Document, name: String, unique: bool) -> IndexModel {
    let options = IndexOptions::builder().name(name).unique(unique.then_some(true)).build();
    IndexModel::builder().keys(keys).options(options).build()
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

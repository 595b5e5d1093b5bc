//! Splitting indexable equalities off a filter.

use serde_json::{json, Value};

use super::{filter, samples};
use crate::Filter;

const FIELDS: &[&str] = &["status", "n", "kind", "flag"];

/// Does `doc` match every pair and `rest`? (The pairs are re-checked with MongoDB equality.)
fn pairs_and_rest_match(pairs: &[(String, Value)], rest: &Filter, doc: &Value) -> bool {
    pairs.iter().all(|(field, value)| filter(json!({field.as_str(): value.clone()})).matches(doc)) && rest.matches(doc)
}

fn assert_equivalent_split(v: Value) {
    let f = filter(v.clone());
    let (pairs, rest) = f.take_equalities(FIELDS);
    for doc in samples() {
        assert_eq!(pairs_and_rest_match(&pairs, &rest, &doc), f.matches(&doc), "{v} split into {pairs:?} and {} on {doc}", rest.to_json());
    }
}

#[test]
fn takes_plain_and_eq_scalars_of_listed_fields() {
    let f = filter(json!({"status": "open", "n": {"$eq": 3}, "flag": true, "other": 1}));
    let (pairs, rest) = f.take_equalities(FIELDS);
    assert_eq!(pairs, vec![("status".to_owned(), json!("open")), ("n".to_owned(), json!(3)), ("flag".to_owned(), json!(true)),]);
    assert_eq!(rest, filter(json!({"other": 1})));
}

#[test]
fn rest_is_all_when_everything_is_taken() {
    let (pairs, rest) = filter(json!({"status": "open", "kind": 2.5})).take_equalities(FIELDS);
    assert_eq!(pairs.len(), 2);
    assert!(rest.is_all());
    assert_eq!(rest, Filter::all());
}

#[test]
fn takes_from_and() {
    let f = filter(json!({"$and": [{"status": "open"}, {"n": {"$gt": 1}}, {"status": "closed"}]}));
    let (pairs, rest) = f.take_equalities(FIELDS);
    assert_eq!(pairs, vec![("status".to_owned(), json!("open")), ("status".to_owned(), json!("closed"))]);
    assert_eq!(rest, filter(json!({"n": {"$gt": 1}})));
}

#[test]
fn leaves_everything_else() {
    let untouched = [
        json!({"status": null}),
        json!({"status": {"$eq": null}}),
        json!({"status": ["open"]}),
        json!({"status": {"a": 1}}),
        json!({"status": {}}),
        json!({"status": {"$ne": "open"}}),
        json!({"status": {"$in": ["open"]}}),
        json!({"status": {"$eq": "open", "$exists": true}}),
        json!({"status": {"$not": {"$eq": "open"}}}),
        json!({"n": {"$gt": 1}}),
        json!({"unlisted": "open"}),
        json!({"status.sub": "open"}),
        json!({"$or": [{"status": "open"}, {"n": 1}]}),
        json!({"$or": [{"status": "open"}]}),
    ];
    for v in untouched {
        let f = filter(v.clone());
        let (pairs, rest) = f.take_equalities(FIELDS);
        assert!(pairs.is_empty(), "{v}: {pairs:?}");
        assert_eq!(rest, f, "{v}");
    }
}

#[test]
fn dotted_fields_are_not_taken_even_if_listed() {
    let (pairs, _) = filter(json!({"a.b": 1})).take_equalities(&["a.b", "a"]);
    assert!(pairs.is_empty());
}

#[test]
fn no_fields_means_nothing_taken() {
    let f = filter(json!({"status": "open"}));
    let (pairs, rest) = f.take_equalities(&[]);
    assert!(pairs.is_empty());
    assert_eq!(rest, f);
}

#[test]
fn pairs_and_rest_are_equivalent_to_the_filter() {
    for v in [
        json!({}),
        json!({"status": "open"}),
        json!({"status": "open", "n": 3}),
        json!({"status": "open", "n": {"$gt": 2}}),
        json!({"status": "open", "n": 2.5, "tags": {"$exists": true}}),
        json!({"status": true, "$or": [{"n": 10}, {"n": "3"}]}),
        json!({"$and": [{"status": "open"}, {"status": {"$ne": "closed"}}], "a": {"$in": [5, null]}}),
        json!({"n": 1, "status": null}),
        json!({"n": {"$eq": 20}, "status": {"$exists": true}}),
        json!({"status": "closed", "tags": "x"}),
    ] {
        assert_equivalent_split(v);
    }
}

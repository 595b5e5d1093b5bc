//! How each operator treats missing fields and explicit nulls.

use serde_json::json;

use super::hit;

#[test]
fn null_equality_matches_missing_and_null() {
    assert!(hit(json!({"a": null}), json!({})));
    assert!(hit(json!({"a": null}), json!({"a": null})));
    assert!(!hit(json!({"a": null}), json!({"a": 0})));
    assert!(!hit(json!({"a": null}), json!({"a": false})));
    assert!(hit(json!({"a": {"$eq": null}}), json!({"b": 1})));
    assert!(hit(json!({"a": null}), json!({"a": [1, null]})));
    assert!(!hit(json!({"a": null}), json!({"a": [1, 2]})));
    assert!(hit(json!({"a.b.c": null}), json!({"a": {"b": {}}})));
    assert!(hit(json!({"a.b.c": null}), json!({"x": 1})));
}

#[test]
fn ne_matches_missing() {
    assert!(hit(json!({"a": {"$ne": 1}}), json!({})));
    assert!(hit(json!({"a.b": {"$ne": 1}}), json!({"a": 5})));
    // ...but $ne null requires a non-null value.
    assert!(!hit(json!({"a": {"$ne": null}}), json!({})));
    assert!(!hit(json!({"a": {"$ne": null}}), json!({"a": null})));
    assert!(hit(json!({"a": {"$ne": null}}), json!({"a": 0})));
}

#[test]
fn in_with_null_matches_missing() {
    assert!(hit(json!({"a": {"$in": [null, 1]}}), json!({})));
    assert!(hit(json!({"a": {"$in": [null, 1]}}), json!({"a": null})));
    assert!(!hit(json!({"a": {"$in": [1]}}), json!({})));
}

#[test]
fn nin_matches_missing() {
    assert!(hit(json!({"a": {"$nin": [1, 2]}}), json!({})));
    assert!(!hit(json!({"a": {"$nin": [null]}}), json!({})));
    assert!(hit(json!({"a": {"$nin": [null]}}), json!({"a": 1})));
}

#[test]
fn not_matches_missing() {
    assert!(hit(json!({"a": {"$not": {"$gt": 1}}}), json!({})));
    assert!(hit(json!({"a": {"$not": {"$eq": 1}}}), json!({})));
    assert!(!hit(json!({"a": {"$not": {"$eq": null}}}), json!({})));
}

#[test]
fn exists_on_missing_and_null() {
    assert!(hit(json!({"a": {"$exists": false}}), json!({})));
    assert!(!hit(json!({"a": {"$exists": true}}), json!({})));
    assert!(hit(json!({"a": {"$exists": true}}), json!({"a": null})));
    assert!(hit(json!({"a.b": {"$exists": true}}), json!({"a": {"b": null}})));
    assert!(hit(json!({"a.b": {"$exists": false}}), json!({"a": {"c": 1}})));
}

#[test]
fn comparisons_never_match_missing_or_null() {
    for op in ["$gt", "$gte", "$lt", "$lte"] {
        for operand in [json!(0), json!(""), json!(false)] {
            assert!(!hit(json!({"a": {op: operand.clone()}}), json!({})), "{op} {operand}");
            assert!(!hit(json!({"a": {op: operand.clone()}}), json!({"a": null})), "{op} {operand}");
        }
    }
}

#[test]
fn non_object_documents_are_treated_as_empty() {
    assert!(hit(json!({}), json!(5)));
    assert!(hit(json!({"a": null}), json!([1])));
    assert!(!hit(json!({"a": 1}), json!("a")));
}

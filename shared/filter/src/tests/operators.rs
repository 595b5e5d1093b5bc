//! Each supported operator on plain (non-array) fields.

use serde_json::json;

use super::hit;

#[test]
fn empty_filter_matches_everything() {
    assert!(hit(json!({}), json!({})));
    assert!(hit(json!({}), json!({"a": 1})));
}

#[test]
fn implicit_equality() {
    assert!(hit(json!({"a": 1}), json!({"a": 1})));
    assert!(!hit(json!({"a": 1}), json!({"a": 2})));
    assert!(!hit(json!({"a": 1}), json!({"b": 1})));
    assert!(hit(json!({"s": "x"}), json!({"s": "x"})));
    assert!(!hit(json!({"s": "x"}), json!({"s": "X"})));
    assert!(hit(json!({"t": true}), json!({"t": true})));
    assert!(!hit(json!({"t": true}), json!({"t": false})));
}

#[test]
fn implicit_and_of_fields() {
    let f = json!({"a": 1, "b": "x"});
    assert!(hit(f.clone(), json!({"a": 1, "b": "x", "c": 0})));
    assert!(!hit(f.clone(), json!({"a": 1, "b": "y"})));
    assert!(!hit(f, json!({"a": 1})));
}

#[test]
fn literal_object_equality_ignores_key_order() {
    let f = json!({"o": {"x": 1, "y": [1, 2]}});
    assert!(hit(f.clone(), json!({"o": {"y": [1, 2], "x": 1}})));
    assert!(hit(f.clone(), json!({"o": {"x": 1.0, "y": [1, 2.0]}})));
    assert!(!hit(f.clone(), json!({"o": {"x": 1}})));
    assert!(!hit(f.clone(), json!({"o": {"x": 1, "y": [1, 2], "z": 3}})));
    assert!(!hit(f, json!({"o": {"x": 1, "y": [2, 1]}})));
    assert!(hit(json!({"o": {}}), json!({"o": {}})));
    assert!(!hit(json!({"o": {}}), json!({"o": {"a": 1}})));
}

#[test]
fn eq_operator() {
    assert!(hit(json!({"a": {"$eq": 1}}), json!({"a": 1})));
    assert!(!hit(json!({"a": {"$eq": 1}}), json!({"a": 0})));
    assert!(hit(json!({"a": {"$eq": {"b": 1}}}), json!({"a": {"b": 1}})));
    // The operand of $eq is literal, even when it looks like an operator object.
    assert!(hit(json!({"a": {"$eq": {"$gt": 1}}}), json!({"a": {"$gt": 1}})));
    assert!(!hit(json!({"a": {"$eq": {"$gt": 1}}}), json!({"a": 5})));
}

#[test]
fn ne_operator() {
    assert!(hit(json!({"a": {"$ne": 1}}), json!({"a": 2})));
    assert!(!hit(json!({"a": {"$ne": 1}}), json!({"a": 1})));
    assert!(!hit(json!({"a": {"$ne": 1}}), json!({"a": 1.0})));
    assert!(hit(json!({"a": {"$ne": 1}}), json!({"a": "1"})));
}

#[test]
fn gt_gte_lt_lte_on_numbers() {
    let doc = json!({"n": 5});
    assert!(hit(json!({"n": {"$gt": 4}}), doc.clone()));
    assert!(!hit(json!({"n": {"$gt": 5}}), doc.clone()));
    assert!(hit(json!({"n": {"$gte": 5}}), doc.clone()));
    assert!(!hit(json!({"n": {"$gte": 5.5}}), doc.clone()));
    assert!(hit(json!({"n": {"$lt": 6}}), doc.clone()));
    assert!(!hit(json!({"n": {"$lt": 5}}), doc.clone()));
    assert!(hit(json!({"n": {"$lte": 5}}), doc.clone()));
    assert!(!hit(json!({"n": {"$lte": 4.99}}), doc.clone()));
    assert!(hit(json!({"n": {"$gt": -1.5}}), json!({"n": -1})));
}

#[test]
fn gt_gte_lt_lte_on_strings_and_booleans() {
    assert!(hit(json!({"s": {"$gt": "abc"}}), json!({"s": "abd"})));
    assert!(hit(json!({"s": {"$gt": "ab"}}), json!({"s": "abc"})));
    assert!(!hit(json!({"s": {"$gt": "b"}}), json!({"s": "B"})));
    assert!(hit(json!({"s": {"$lt": "é"}}), json!({"s": "z"})));
    assert!(hit(json!({"s": {"$lte": "x"}}), json!({"s": "x"})));
    assert!(hit(json!({"s": {"$gte": ""}}), json!({"s": ""})));
    assert!(hit(json!({"t": {"$gt": false}}), json!({"t": true})));
    assert!(!hit(json!({"t": {"$gt": true}}), json!({"t": true})));
    assert!(hit(json!({"t": {"$lte": false}}), json!({"t": false})));
}

#[test]
fn range_with_two_operators() {
    let f = json!({"n": {"$gte": 2, "$lt": 5}});
    assert!(hit(f.clone(), json!({"n": 2})));
    assert!(hit(f.clone(), json!({"n": 4.9})));
    assert!(!hit(f.clone(), json!({"n": 5})));
    assert!(!hit(f.clone(), json!({"n": 1})));
    assert!(!hit(f, json!({})));
}

#[test]
fn in_operator() {
    let f = json!({"a": {"$in": [1, "x", true]}});
    assert!(hit(f.clone(), json!({"a": 1})));
    assert!(hit(f.clone(), json!({"a": 1.0})));
    assert!(hit(f.clone(), json!({"a": "x"})));
    assert!(hit(f.clone(), json!({"a": true})));
    assert!(!hit(f.clone(), json!({"a": 2})));
    assert!(!hit(f.clone(), json!({"a": "1"})));
    assert!(!hit(f, json!({})));
    assert!(!hit(json!({"a": {"$in": []}}), json!({"a": 1})));
    assert!(hit(json!({"a": {"$in": [{"b": 1}]}}), json!({"a": {"b": 1}})));
    assert!(hit(json!({"a": {"$in": [[1, 2]]}}), json!({"a": [1, 2]})));
}

#[test]
fn nin_operator() {
    let f = json!({"a": {"$nin": [1, "x"]}});
    assert!(hit(f.clone(), json!({"a": 2})));
    assert!(!hit(f.clone(), json!({"a": 1})));
    assert!(!hit(f.clone(), json!({"a": "x"})));
    assert!(hit(f, json!({})));
    assert!(hit(json!({"a": {"$nin": []}}), json!({"a": 1})));
}

#[test]
fn exists_operator() {
    assert!(hit(json!({"a": {"$exists": true}}), json!({"a": 0})));
    assert!(hit(json!({"a": {"$exists": true}}), json!({"a": null})));
    assert!(!hit(json!({"a": {"$exists": true}}), json!({"b": 1})));
    assert!(hit(json!({"a": {"$exists": false}}), json!({"b": 1})));
    assert!(!hit(json!({"a": {"$exists": false}}), json!({"a": null})));
}

#[test]
fn exists_accepts_numbers_like_mongodb() {
    assert!(hit(json!({"a": {"$exists": 1}}), json!({"a": 0})));
    assert!(hit(json!({"a": {"$exists": -2.5}}), json!({"a": 0})));
    assert!(hit(json!({"a": {"$exists": 0}}), json!({})));
    assert!(hit(json!({"a": {"$exists": 0.0}}), json!({})));
    assert!(!hit(json!({"a": {"$exists": 0}}), json!({"a": 0})));
}

#[test]
fn not_operator() {
    let f = json!({"n": {"$not": {"$gt": 5}}});
    assert!(hit(f.clone(), json!({"n": 5})));
    assert!(!hit(f.clone(), json!({"n": 6})));
    assert!(hit(f.clone(), json!({"n": "z"})));
    // $not of several operators negates their conjunction.
    let range = json!({"n": {"$not": {"$gt": 1, "$lt": 5}}});
    assert!(hit(range.clone(), json!({"n": 1})));
    assert!(!hit(range.clone(), json!({"n": 3})));
    assert!(hit(range, json!({"n": 5})));
    // Nested $not.
    assert!(hit(json!({"n": {"$not": {"$not": {"$eq": 1}}}}), json!({"n": 1})));
    assert!(!hit(json!({"n": {"$not": {"$not": {"$eq": 1}}}}), json!({"n": 2})));
    assert!(hit(json!({"n": {"$not": {"$in": [1, 2]}}}), json!({"n": 3})));
    assert!(hit(json!({"n": {"$not": {"$exists": true}}}), json!({})));
}

#[test]
fn and_operator() {
    let f = json!({"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 5}}, {"b": "x"}]});
    assert!(hit(f.clone(), json!({"a": 3, "b": "x"})));
    assert!(!hit(f.clone(), json!({"a": 5, "b": "x"})));
    assert!(!hit(f, json!({"a": 3, "b": "y"})));
    assert!(hit(json!({"$and": [{}]}), json!({"a": 1})));
    // Nested and combined with plain fields.
    let nested = json!({"c": 1, "$and": [{"$and": [{"a": 1}]}, {"b": 2}]});
    assert!(hit(nested.clone(), json!({"a": 1, "b": 2, "c": 1})));
    assert!(!hit(nested, json!({"a": 1, "b": 2, "c": 2})));
}

#[test]
fn or_operator() {
    let f = json!({"$or": [{"a": 1}, {"b": {"$gt": 5}}]});
    assert!(hit(f.clone(), json!({"a": 1})));
    assert!(hit(f.clone(), json!({"b": 6})));
    assert!(hit(f.clone(), json!({"a": 1, "b": 6})));
    assert!(!hit(f.clone(), json!({"a": 2, "b": 5})));
    assert!(!hit(f, json!({})));
    assert!(hit(json!({"$or": [{"a": 1}, {}]}), json!({"z": 0})));
}

#[test]
fn or_combined_with_fields_and_and() {
    let f = json!({
        "kind": "vote",
        "$or": [{"a": 1, "b": 1}, {"$and": [{"c": 1}, {"$or": [{"d": 1}, {"e": 1}]}]}]
    });
    assert!(hit(f.clone(), json!({"kind": "vote", "a": 1, "b": 1})));
    assert!(!hit(f.clone(), json!({"kind": "vote", "a": 1})));
    assert!(hit(f.clone(), json!({"kind": "vote", "c": 1, "e": 1})));
    assert!(!hit(f.clone(), json!({"kind": "vote", "c": 1})));
    assert!(!hit(f, json!({"kind": "bid", "a": 1, "b": 1})));
}

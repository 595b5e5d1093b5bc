//! Type brackets and numeric representations.

use serde_json::json;

use super::hit;

#[test]
fn integers_and_floats_are_equal_by_value() {
    assert!(hit(json!({"n": 1}), json!({"n": 1.0})));
    assert!(hit(json!({"n": 1.0}), json!({"n": 1})));
    assert!(hit(json!({"n": 0}), json!({"n": -0.0})));
    assert!(hit(json!({"n": {"$in": [2.0]}}), json!({"n": 2})));
    assert!(!hit(json!({"n": {"$ne": 3.0}}), json!({"n": 3})));
    assert!(!hit(json!({"n": 1}), json!({"n": 1.5})));
}

#[test]
fn integers_and_floats_order_by_value() {
    assert!(hit(json!({"n": {"$gt": 1}}), json!({"n": 1.5})));
    assert!(hit(json!({"n": {"$lt": 1.5}}), json!({"n": 1})));
    assert!(hit(json!({"n": {"$gte": 2.0}}), json!({"n": 2})));
    assert!(hit(json!({"n": {"$lte": 2}}), json!({"n": 2.0})));
    assert!(hit(json!({"n": {"$gt": u64::MAX - 1}}), json!({"n": u64::MAX})));
    assert!(hit(json!({"n": {"$lt": 0}}), json!({"n": i64::MIN})));
}

#[test]
fn large_integers_compare_exactly() {
    let big = 9_007_199_254_740_993_u64; // 2^53 + 1, not representable as f64
    assert!(!hit(json!({"n": 9_007_199_254_740_992.0}), json!({"n": big})));
    assert!(hit(json!({"n": {"$gt": 9_007_199_254_740_992.0}}), json!({"n": big})));
    assert!(hit(json!({"n": big}), json!({"n": big})));
    assert!(!hit(json!({"n": big - 1}), json!({"n": big})));
}

#[test]
fn comparisons_never_cross_type_brackets() {
    assert!(!hit(json!({"n": {"$gt": "a"}}), json!({"n": 5})));
    assert!(!hit(json!({"n": {"$lt": "a"}}), json!({"n": 5})));
    assert!(!hit(json!({"s": {"$gt": 0}}), json!({"s": "5"})));
    assert!(!hit(json!({"s": {"$lt": 0}}), json!({"s": "5"})));
    assert!(!hit(json!({"b": {"$gte": 0}}), json!({"b": true})));
    assert!(!hit(json!({"b": {"$lte": 1}}), json!({"b": false})));
    assert!(!hit(json!({"n": {"$gte": false}}), json!({"n": 0})));
    for doc in [json!({"x": null}), json!({"x": {"a": 1}}), json!({"x": []})] {
        assert!(!hit(json!({"x": {"$gte": 0}}), doc.clone()), "{doc}");
        assert!(!hit(json!({"x": {"$lte": ""}}), doc.clone()), "{doc}");
    }
}

#[test]
fn equality_never_crosses_types() {
    assert!(!hit(json!({"a": 1}), json!({"a": "1"})));
    assert!(!hit(json!({"a": 1}), json!({"a": true})));
    assert!(!hit(json!({"a": 0}), json!({"a": false})));
    assert!(!hit(json!({"a": ""}), json!({"a": null})));
    assert!(!hit(json!({"a": {}}), json!({"a": []})));
}

#[test]
fn strings_order_by_code_point() {
    assert!(hit(json!({"s": {"$lt": "a"}}), json!({"s": "Z"})));
    assert!(hit(json!({"s": {"$gt": "z"}}), json!({"s": "é"})));
    assert!(hit(json!({"s": {"$gt": "\u{ffff}"}}), json!({"s": "\u{1F600}"})));
    assert!(hit(json!({"s": {"$lt": "10"}}), json!({"s": "1"})));
    assert!(hit(json!({"s": {"$gt": "10"}}), json!({"s": "9"})));
}

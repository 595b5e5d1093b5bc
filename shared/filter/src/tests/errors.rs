//! Rejection of unsupported operators and malformed filters, with messages naming the problem.

use serde_json::{json, Value};

use crate::{Filter, FilterError};

/// Parses a filter the test expects to be rejected, returning the error and its message.
fn reject(v: Value) -> (FilterError, String) {
    match Filter::parse(&v) {
        Ok(f) => panic!("{v} should be rejected, parsed as {f:?}"),
        Err(e) => {
            let message = e.to_string();
            (e, message)
        }
    }
}

/// Operators outside the language, each of which must be named in the error.
const UNSUPPORTED_FIELD_OPERATORS: &[&str] = &[
    "$regex",
    "$options",
    "$size",
    "$elemMatch",
    "$all",
    "$type",
    "$mod",
    "$bitsAllSet",
    "$bitsAnyClear",
    "$geoWithin",
    "$near",
    "$jsonSchema",
    "$foo",
    "$",
    "$EQ",
];

const UNSUPPORTED_TOP_LEVEL_OPERATORS: &[&str] = &["$nor", "$where", "$text", "$expr", "$jsonSchema", "$comment", "$regex", "$foo", "$OR"];

#[test]
fn unsupported_field_operators_are_named() {
    for &op in UNSUPPORTED_FIELD_OPERATORS {
        let (err, msg) = reject(json!({"a": {op: 1}}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
        assert_eq!(msg, format!("unsupported operator {op}"));
        // Also when mixed with supported operators, and inside $not, $and and $or.
        let (err, _) = reject(json!({"a": {"$gt": 1, op: 1}}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
        let (err, _) = reject(json!({"a": {"$not": {op: 1}}}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
        let (err, _) = reject(json!({"$and": [{"b": 1}, {"a": {op: 1}}]}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
        let (err, _) = reject(json!({"$or": [{"b": 1}, {"a": {op: 1}}]}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
    }
}

#[test]
fn unsupported_top_level_operators_are_named() {
    for &op in UNSUPPORTED_TOP_LEVEL_OPERATORS {
        let (err, msg) = reject(json!({op: [{"a": 1}]}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
        assert_eq!(msg, format!("unsupported operator {op}"));
        let (err, _) = reject(json!({"$or": [{op: "x"}]}));
        assert_eq!(err, FilterError::UnsupportedOperator(op.to_owned()));
    }
}

#[test]
fn nor_is_rejected() {
    let (_, msg) = reject(json!({"$nor": [{"a": 1}]}));
    assert_eq!(msg, "unsupported operator $nor");
    let (_, msg) = reject(json!({"a": {"$nor": [1]}}));
    assert!(msg.contains("$nor"), "{msg}");
}

#[test]
fn field_operators_at_the_top_level_are_misplaced() {
    for op in ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$not"] {
        let (err, msg) = reject(json!({op: 1}));
        assert!(matches!(&err, FilterError::MisplacedOperator { op: o, .. } if o == op), "{err:?}");
        assert!(msg.starts_with(&format!("{op} is not allowed at the top level")), "{msg}");
    }
}

#[test]
fn logical_operators_inside_field_conditions_are_misplaced() {
    for op in ["$and", "$or"] {
        let (err, msg) = reject(json!({"a": {op: [{"b": 1}]}}));
        assert!(matches!(&err, FilterError::MisplacedOperator { op: o, .. } if o == op), "{err:?}");
        assert!(msg.contains(op) && msg.contains("\"a\""), "{msg}");
    }
}

#[test]
fn filter_must_be_an_object() {
    let cases = [
        (json!([{"a": 1}]), "an array"),
        (json!("a"), "a string"),
        (json!(1), "a number"),
        (json!(null), "null"),
        (json!(true), "a boolean"),
    ];
    for (v, kind) in cases {
        let (err, msg) = reject(v);
        assert_eq!(err, FilterError::NotAnObject(kind));
        assert_eq!(msg, format!("filter must be a JSON object, got {kind}"));
    }
}

#[test]
fn and_or_need_non_empty_arrays_of_objects() {
    for op in ["$and", "$or"] {
        for operand in [json!([]), json!({"a": 1}), json!("x"), json!(null), json!([{"a": 1}, 2]), json!([[]])] {
            let (err, msg) = reject(json!({op: operand.clone()}));
            assert!(matches!(&err, FilterError::BadOperand { op: o, .. } if o == op), "{operand}: {err:?}");
            assert!(msg.starts_with(&format!("{op} needs a non-empty array of filter objects, got ")), "{msg}");
        }
    }
    let (_, msg) = reject(json!({"$and": [{"a": 1}, 2]}));
    assert_eq!(msg, "$and needs a non-empty array of filter objects, got a number 2 at index 1");
    let (_, msg) = reject(json!({"$or": []}));
    assert_eq!(msg, "$or needs a non-empty array of filter objects, got an empty array");
}

#[test]
fn in_and_nin_need_arrays() {
    for op in ["$in", "$nin"] {
        let (_, msg) = reject(json!({"a": {op: "x"}}));
        assert_eq!(msg, format!("{op} needs an array, got a string \"x\""));
        let (_, msg) = reject(json!({"a": {op: null}}));
        assert_eq!(msg, format!("{op} needs an array, got null"));
        let (_, msg) = reject(json!({"a": {op: {"b": 1}}}));
        assert_eq!(msg, format!("{op} needs an array, got an object {{\"b\":1}}"));
        let (_, msg) = reject(json!({"a": {op: [1, {"$gt": 1}]}}));
        assert!(msg.starts_with(&format!("{op} needs an array of values without operators")), "{msg}");
        assert!(msg.contains("index 1"), "{msg}");
    }
}

#[test]
fn comparisons_need_scalar_operands() {
    for op in ["$gt", "$gte", "$lt", "$lte"] {
        for operand in [json!(null), json!([1]), json!({"b": 1}), json!({})] {
            let (err, msg) = reject(json!({"a": {op: operand.clone()}}));
            assert!(matches!(&err, FilterError::BadOperand { op: o, .. } if o == op), "{err:?}");
            assert!(msg.starts_with(&format!("{op} needs a number, a string or a boolean, got ")), "{msg}");
        }
    }
}

#[test]
fn exists_needs_a_boolean_or_number() {
    for operand in [json!("yes"), json!(null), json!([true]), json!({})] {
        let (_, msg) = reject(json!({"a": {"$exists": operand}}));
        assert!(msg.starts_with("$exists needs a boolean"), "{msg}");
    }
}

#[test]
fn not_needs_an_operator_object() {
    for operand in [json!(5), json!("x"), json!(null), json!([1]), json!({}), json!({"b": 1}), json!({"$gt": 1, "b": 1})] {
        let (err, msg) = reject(json!({"a": {"$not": operand.clone()}}));
        assert!(matches!(&err, FilterError::BadOperand { op, .. } if op == "$not"), "{operand}: {err:?}");
        assert!(msg.starts_with("$not needs a non-empty operator object"), "{msg}");
    }
}

#[test]
fn mixing_operators_and_plain_keys_is_rejected() {
    let (err, msg) = reject(json!({"a": {"$gt": 1, "b": 2}}));
    assert_eq!(err, FilterError::MixedOperatorObject { field: "a".to_owned(), key: "b".to_owned() });
    assert!(msg.contains("\"a\"") && msg.contains("\"b\""), "{msg}");
    let (err, _) = reject(json!({"a": {"b": 2, "$gt": 1}}));
    assert!(matches!(err, FilterError::MixedOperatorObject { .. }));
}

#[test]
fn invalid_field_paths_are_rejected() {
    for path in ["", "a..b", ".a", "a.", "a.$b"] {
        let (err, msg) = reject(json!({path: 1}));
        assert!(matches!(err, FilterError::InvalidFieldPath { .. }), "{path:?}: {err:?}");
        assert!(msg.starts_with(&format!("invalid field path {path:?}")), "{msg}");
    }
    let (err, _) = reject(json!({"$or": [{"a..b": 1}]}));
    assert!(matches!(err, FilterError::InvalidFieldPath { .. }));
}

#[test]
fn errors_inside_or_are_reported_even_when_a_branch_is_empty() {
    let (err, _) = reject(json!({"$or": [{}, {"a": {"$regex": "x"}}]}));
    assert_eq!(err, FilterError::UnsupportedOperator("$regex".to_owned()));
}

#[test]
fn a_nul_in_a_field_name_or_in_a_key_of_a_compared_value_is_rejected() {
    // No store keeps a NUL in a field name (MongoDB cannot): such a filter is a 400, not a
    // failure of the store it is sent to.
    for path in ["a\u{0}b", "bid_data.\u{0}", "\u{0}"] {
        let (err, msg) = reject(json!({path: 1}));
        assert!(matches!(err, FilterError::InvalidFieldPath { .. }), "{path:?}: {err:?}");
        assert!(msg.contains("NUL"), "{msg}");
    }
    let (err, _) = reject(json!({"$or": [{"x": 1}, {"a\u{0}": {"$exists": true}}]}));
    assert!(matches!(err, FilterError::InvalidFieldPath { .. }));
    for filter in [
        json!({"m": {"a\u{0}b": 1}}),
        json!({"m": {"x": [{"\u{0}": 1}]}}),
        json!({"m": {"$eq": {"a\u{0}": 1}}}),
        json!({"m": {"$ne": {"a\u{0}": 1}}}),
        json!({"m": {"$in": [1, {"k": {"a\u{0}": 1}}]}}),
        json!({"m": {"$not": {"$nin": [{"a\u{0}": 1}]}}}),
    ] {
        let (err, msg) = reject(filter.clone());
        assert_eq!(err, FilterError::UnstorableKey { field: "m".into(), key: err_key(&err) }, "{filter}");
        assert!(msg.starts_with("the value compared with field \"m\" holds the key") && msg.contains("NUL"), "{msg}");
    }
    // A NUL in a value is a value like any other.
    assert!(Filter::parse(&json!({"m": "a\u{0}b", "n": {"$in": ["\u{0}"]}, "o": {"k": "\u{0}"}})).is_ok());
}

fn err_key(err: &FilterError) -> String {
    match err {
        FilterError::UnstorableKey { key, .. } => key.clone(),
        _ => String::new(),
    }
}

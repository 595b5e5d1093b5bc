//! Behavioural tests of the public API.

mod api;
mod arrays_and_paths;
mod errors;
mod missing_fields;
mod operators;
mod round_trip;
mod take_equalities;
mod types;

use serde_json::{json, Value};

use crate::Filter;

/// Parses a filter that the test expects to be valid.
fn filter(v: Value) -> Filter {
    match Filter::parse(&v) {
        Ok(f) => f,
        Err(e) => panic!("{v} should parse: {e}"),
    }
}

/// Does `filter` match `doc`?
fn hit(f: Value, doc: Value) -> bool {
    filter(f).matches(&doc)
}

/// A varied set of documents for equivalence checks.
fn samples() -> Vec<Value> {
    vec![
        json!({}),
        json!({"a": 1}),
        json!({"a": 1.0, "b": "x"}),
        json!({"a": 2, "b": "y", "c": true}),
        json!({"a": null}),
        json!({"a": "1"}),
        json!({"a": [1, 2, 3]}),
        json!({"a": [[1, 2], 3]}),
        json!({"a": []}),
        json!({"a": {"b": 1}}),
        json!({"a": {"b": [1, 5]}, "c": false}),
        json!({"a": [{"b": 1}, {"b": 2}, {"c": 3}]}),
        json!({"a": [{"b": "x"}, 7]}),
        json!({"a": 5, "b": "open", "status": "open", "n": 3}),
        json!({"status": "closed", "n": 10, "tags": ["x", "y"]}),
        json!({"status": "open", "n": 2.5, "tags": []}),
        json!({"status": true, "n": "3"}),
        json!({"status": ["open"], "n": [1, 20]}),
        json!({"items": [{"name": "pen", "qty": 2}, {"name": "ink", "qty": 0}]}),
        json!({"items": {"0": {"name": "pen"}}}),
        json!({"b": {"c": {"d": null}}}),
        json!({"x": -1, "y": 9_007_199_254_740_993_u64}),
    ]
}

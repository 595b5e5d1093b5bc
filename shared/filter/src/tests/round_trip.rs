//! `to_json` renders a filter that parses back to the same filter.

use serde_json::{json, Value};

use super::{filter, samples};
use crate::Filter;

/// Filters covering every construct.
fn corpus() -> Vec<Value> {
    vec![
        json!({}),
        json!({"a": 1}),
        json!({"a": 1, "b": "x", "c": true, "d": null}),
        json!({"a": [1, 2]}),
        json!({"a": {"b": 1}}),
        json!({"a": {}}),
        json!({"a": {"$eq": 1}}),
        json!({"a": {"$eq": {"$gt": 1}}}),
        json!({"a": {"$ne": null}}),
        json!({"a": {"$gt": 1, "$lte": 5.5}}),
        json!({"s": {"$gte": "b", "$lt": "x"}}),
        json!({"t": {"$gt": false}}),
        json!({"a": {"$in": [1, "x", null, [1], {"b": 1}]}}),
        json!({"a": {"$nin": []}}),
        json!({"a": {"$exists": true}, "b": {"$exists": 0}}),
        json!({"a": {"$not": {"$gt": 1, "$in": [7]}}}),
        json!({"a": {"$not": {"$not": {"$eq": 2}}}}),
        json!({"a.b": 1, "items.0.name": "pen", "status": "open", "n": {"$lt": 3}}),
        json!({"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 3}}]}),
        json!({"$and": [{"a": 1}, {"b": 2}], "c": 3}),
        json!({"$or": [{"a": 1}, {"b": {"$exists": false}}], "c": 2}),
        json!({"$or": [{"a": 1, "$or": [{"b": 1}, {"c": 1}]}, {"$and": [{"d": 1}, {"d": {"$ne": 2}}]}]}),
        json!({"$and": [{"$or": [{"a": 1}, {"b": 1}]}, {"$or": [{"c": 1}, {"status": "open"}]}]}),
        json!({"$or": [{}], "a": 5}),
    ]
}

#[test]
fn parse_of_to_json_is_the_same_filter() {
    for v in corpus() {
        let f = filter(v.clone());
        let rendered = f.to_json();
        let back = Filter::parse(&rendered).unwrap_or_else(|e| panic!("{rendered} from {v}: {e}"));
        assert_eq!(back, f, "{v} rendered as {rendered}");
        assert_eq!(back.to_json(), rendered);
    }
}

#[test]
fn parse_of_to_json_matches_the_same_documents() {
    for v in corpus() {
        let f = filter(v.clone());
        let back = filter(f.to_json());
        for doc in samples() {
            assert_eq!(back.matches(&doc), f.matches(&doc), "{v} on {doc}");
        }
    }
}

#[test]
fn to_json_keeps_simple_filters_as_written() {
    for v in [
        json!({}),
        json!({"a": 1, "b": {"$gt": 2}}),
        json!({"a": {"$not": {"$in": [1]}}, "$or": [{"b": 1}, {"c": {"$exists": true}}]}),
        json!({"a": {"$eq": {"$gt": 1}}}),
    ] {
        assert_eq!(filter(v.clone()).to_json(), v);
    }
}

#[test]
fn to_json_normalises() {
    // Explicit $eq of a plain value is written as plain equality.
    assert_eq!(filter(json!({"a": {"$eq": 1}})).to_json(), json!({"a": 1}));
    // $and is flattened where the keys allow it...
    assert_eq!(filter(json!({"$and": [{"a": 1}, {"b": 2}]})).to_json(), json!({"a": 1, "b": 2}));
    // ...and kept where the same field is constrained twice.
    assert_eq!(
        filter(json!({"a": {"$gt": 1}, "$and": [{"a": {"$lt": 3}}]})).to_json(),
        json!({"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 3}}]})
    );
    // $exists with a number becomes a boolean.
    assert_eq!(filter(json!({"a": {"$exists": 0}})).to_json(), json!({"a": {"$exists": false}}));
    // An $or with an always-true branch is always true.
    assert_eq!(filter(json!({"$or": [{"a": 1}, {}]})).to_json(), json!({}));
}

#[test]
fn to_json_of_combined_filters() {
    let f = filter(json!({"a": 1, "$or": [{"b": 1}, {"c": 1}]})).and(filter(json!({"a": {"$ne": 2}, "$or": [{"d": 1}, {"e": 1}]})));
    let rendered = f.to_json();
    assert_eq!(
        rendered,
        json!({"$and": [
            {"a": 1}, {"$or": [{"b": 1}, {"c": 1}]},
            {"a": {"$ne": 2}}, {"$or": [{"d": 1}, {"e": 1}]}
        ]})
    );
    assert_eq!(filter(rendered), f);
}

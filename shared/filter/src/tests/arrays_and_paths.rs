//! Dotted paths, array membership, positional components and nested arrays.

use serde_json::json;

use super::hit;

#[test]
fn dotted_path_through_objects() {
    let doc = json!({"a": {"b": {"c": 3}}});
    assert!(hit(json!({"a.b.c": 3}), doc.clone()));
    assert!(hit(json!({"a.b.c": {"$gt": 2}}), doc.clone()));
    assert!(hit(json!({"a.b": {"c": 3}}), doc.clone()));
    assert!(!hit(json!({"a.b.c": 4}), doc.clone()));
    assert!(!hit(json!({"a.c": 3}), doc));
}

#[test]
fn dotted_path_through_a_scalar_is_missing() {
    assert!(!hit(json!({"a.b": 1}), json!({"a": 1})));
    assert!(hit(json!({"a.b": null}), json!({"a": 1})));
    assert!(hit(json!({"a.b": {"$exists": false}}), json!({"a": "s"})));
}

#[test]
fn equality_is_array_membership() {
    let doc = json!({"tags": ["x", "y"]});
    assert!(hit(json!({"tags": "x"}), doc.clone()));
    assert!(hit(json!({"tags": "y"}), doc.clone()));
    assert!(!hit(json!({"tags": "z"}), doc.clone()));
    assert!(hit(json!({"tags": {"$eq": "y"}}), doc.clone()));
    assert!(hit(json!({"tags": {"$in": ["z", "y"]}}), doc.clone()));
    assert!(!hit(json!({"tags": {"$ne": "x"}}), doc.clone()));
    assert!(hit(json!({"tags": {"$ne": "z"}}), doc.clone()));
    assert!(!hit(json!({"tags": {"$nin": ["y"]}}), doc));
    assert!(hit(json!({"n": 2}), json!({"n": [1, 2.0]})));
}

#[test]
fn equality_with_the_whole_array() {
    let doc = json!({"a": [1, 2]});
    assert!(hit(json!({"a": [1, 2]}), doc.clone()));
    assert!(hit(json!({"a": [1.0, 2]}), doc.clone()));
    assert!(!hit(json!({"a": [2, 1]}), doc.clone()));
    assert!(!hit(json!({"a": [1]}), doc.clone()));
    assert!(hit(json!({"a": {"$in": [[1, 2], 7]}}), doc.clone()));
    assert!(!hit(json!({"a": {"$ne": [1, 2]}}), doc));
    assert!(hit(json!({"a": []}), json!({"a": []})));
    assert!(!hit(json!({"a": []}), json!({"a": [1]})));
}

#[test]
fn nested_arrays_are_not_flattened() {
    let doc = json!({"a": [[1, 2], 3]});
    assert!(hit(json!({"a": [1, 2]}), doc.clone()));
    assert!(hit(json!({"a": 3}), doc.clone()));
    assert!(!hit(json!({"a": 1}), doc.clone()));
    assert!(!hit(json!({"a": {"$gt": 1, "$lt": 3}}), doc));
}

#[test]
fn comparisons_on_arrays_match_any_element() {
    let doc = json!({"n": [1, 20]});
    assert!(hit(json!({"n": {"$gt": 10}}), doc.clone()));
    assert!(hit(json!({"n": {"$lt": 2}}), doc.clone()));
    assert!(!hit(json!({"n": {"$gt": 20}}), doc.clone()));
    // Each operator may be satisfied by a different element (no $elemMatch semantics).
    assert!(hit(json!({"n": {"$gt": 10, "$lt": 2}}), doc.clone()));
    assert!(!hit(json!({"n": {"$not": {"$gt": 10}}}), doc.clone()));
    assert!(!hit(json!({"n": {"$gt": 1}}), json!({"n": []})));
    assert!(hit(json!({"s": {"$gte": "b"}}), json!({"s": ["a", "c"]})));
}

#[test]
fn paths_through_arrays_of_objects() {
    let doc = json!({"items": [{"name": "pen", "qty": 2}, {"name": "ink", "qty": 0}]});
    assert!(hit(json!({"items.name": "ink"}), doc.clone()));
    assert!(hit(json!({"items.name": {"$in": ["cap", "pen"]}}), doc.clone()));
    assert!(hit(json!({"items.qty": {"$gt": 1}}), doc.clone()));
    assert!(!hit(json!({"items.qty": {"$gt": 2}}), doc.clone()));
    assert!(!hit(json!({"items.name": "cap"}), doc.clone()));
    assert!(hit(json!({"items.name": {"$ne": "cap"}}), doc.clone()));
    assert!(!hit(json!({"items.name": {"$ne": "pen"}}), doc.clone()));
    assert!(hit(json!({"items.name": {"$exists": true}}), doc.clone()));
    assert!(!hit(json!({"items.color": {"$exists": true}}), doc));
}

#[test]
fn paths_through_nested_arrays_of_objects() {
    let doc = json!({"orders": [
        {"lines": [{"sku": "a", "n": 1}, {"sku": "b", "n": 5}]},
        {"lines": [{"sku": "c", "n": 2}]}
    ]});
    assert!(hit(json!({"orders.lines.sku": "c"}), doc.clone()));
    assert!(hit(json!({"orders.lines.n": {"$gte": 5}}), doc.clone()));
    assert!(!hit(json!({"orders.lines.sku": "d"}), doc.clone()));
    assert!(hit(json!({"orders.lines": {"sku": "c", "n": 2}}), doc.clone()));
    // Objects inside arrays nested directly in arrays are not reached implicitly.
    assert!(!hit(json!({"a.b": 1}), json!({"a": [[{"b": 1}]]})));
    assert!(hit(json!({"a.0.b": 1}), json!({"a": [[{"b": 1}]]})));
    // An array reached through a path is itself traversed at the leaf.
    assert!(hit(json!({"a.b": 2}), json!({"a": [{"b": [1, 2]}]})));
    assert!(hit(json!({"a.b": [1, 2]}), json!({"a": [{"b": [1, 2]}]})));
}

#[test]
fn numeric_components_index_arrays() {
    let doc = json!({"items": [{"name": "pen"}, {"name": "ink"}], "n": [10, 20, 30]});
    assert!(hit(json!({"items.0.name": "pen"}), doc.clone()));
    assert!(!hit(json!({"items.0.name": "ink"}), doc.clone()));
    assert!(hit(json!({"items.1.name": "ink"}), doc.clone()));
    assert!(!hit(json!({"items.2.name": {"$exists": true}}), doc.clone()));
    assert!(hit(json!({"items.1": {"name": "ink"}}), doc.clone()));
    assert!(hit(json!({"n.1": 20}), doc.clone()));
    assert!(hit(json!({"n.2": {"$gt": 25}}), doc.clone()));
    assert!(!hit(json!({"n.0": 20}), doc.clone()));
    assert!(!hit(json!({"n.3": {"$exists": true}}), doc.clone()));
    assert!(hit(json!({"n.3": {"$exists": false}}), doc.clone()));
    // Only the canonical spelling is an index.
    assert!(!hit(json!({"n.01": 20}), doc));
}

#[test]
fn numeric_components_also_match_object_keys() {
    // An object key "0" is an ordinary key.
    assert!(hit(json!({"items.0.name": "pen"}), json!({"items": {"0": {"name": "pen"}}})));
    // Inside an array, both the positional element and each element's "0" key are candidates.
    assert!(hit(json!({"a.0": 9}), json!({"a": [{"0": 9}]})));
    assert!(hit(json!({"a.0": {"0": 9}}), json!({"a": [{"0": 9}]})));
    assert!(hit(json!({"a.0.b": 1}), json!({"a": [{"x": 0}, {"0": {"b": 1}}]})));
}

#[test]
fn positional_element_that_is_an_array_is_not_expanded() {
    // MongoDB yields a positionally selected array as a whole.
    let doc = json!({"a": [[1, 2], 3]});
    assert!(hit(json!({"a.0": [1, 2]}), doc.clone()));
    assert!(!hit(json!({"a.0": 1}), doc.clone()));
    assert!(hit(json!({"a.0.1": 2}), doc.clone()));
    assert!(hit(json!({"a.1": 3}), doc));
}

#[test]
fn path_through_array_to_missing() {
    // Elements that are objects without the field count as missing...
    assert!(hit(json!({"a.b": null}), json!({"a": [{"b": 1}, {"c": 2}]})));
    assert!(!hit(json!({"a.b": {"$ne": null}}), json!({"a": [{"b": 1}, {"c": 2}]})));
    // ...but non-object elements and empty arrays yield nothing, as in MongoDB.
    assert!(!hit(json!({"a.b": null}), json!({"a": [1, 2]})));
    assert!(!hit(json!({"a.b": null}), json!({"a": []})));
    assert!(hit(json!({"a.b": {"$exists": false}}), json!({"a": [1, 2]})));
    assert!(hit(json!({"a.b": {"$ne": 1}}), json!({"a": [1, 2]})));
}

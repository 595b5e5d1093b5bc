//! The constructors and combinators of `Filter`.

use serde_json::json;

use super::{filter, samples};
use crate::Filter;

#[test]
fn all_matches_everything() {
    let all = Filter::all();
    assert!(all.is_all());
    assert_eq!(all.to_json(), json!({}));
    assert_eq!(all, filter(json!({})));
    assert_eq!(all, Filter::default());
    for doc in samples() {
        assert!(all.matches(&doc), "{doc}");
    }
}

#[test]
fn is_all_only_without_conditions() {
    assert!(filter(json!({"$and": [{}, {}]})).is_all());
    assert!(filter(json!({"$or": [{"a": 1}, {}]})).is_all());
    assert!(!filter(json!({"a": 1})).is_all());
    assert!(!filter(json!({"a": {"$exists": false}})).is_all());
}

#[test]
fn must_parses_valid_filters() {
    assert_eq!(Filter::must(json!({"a": 1})), filter(json!({"a": 1})));
}

#[test]
#[should_panic(expected = "unsupported operator $regex")]
fn must_panics_with_the_error() {
    Filter::must(json!({"a": {"$regex": "x"}}));
}

#[test]
fn and_requires_both() {
    let a = filter(json!({"a": 1}));
    let b = filter(json!({"b": {"$gt": 1}}));
    let both = a.clone().and(b.clone());
    for doc in samples() {
        assert_eq!(both.matches(&doc), a.matches(&doc) && b.matches(&doc), "{doc}");
    }
    assert!(both.matches(&json!({"a": 1, "b": 2})));
    assert!(!both.matches(&json!({"a": 1, "b": 1})));
    assert_eq!(Filter::all().and(a.clone()), a);
    assert_eq!(a.clone().and(Filter::all()), a);
    assert!(Filter::all().and(Filter::all()).is_all());
}

#[test]
fn and_with_the_same_field_keeps_both_conditions() {
    let f = filter(json!({"a": {"$gt": 1}})).and(filter(json!({"a": {"$lt": 3}})));
    assert!(f.matches(&json!({"a": 2})));
    assert!(!f.matches(&json!({"a": 3})));
    assert!(!f.matches(&json!({"a": 1})));
}

#[test]
fn parse_is_structural_and_order_preserving() {
    assert_eq!(filter(json!({"a": 1, "b": 2})), filter(json!({"$and": [{"a": 1}, {"b": 2}]})));
    assert_ne!(filter(json!({"a": 1, "b": 2})), filter(json!({"b": 2, "a": 1})));
}

#[test]
fn filters_are_send_and_sync() {
    fn check<T: Send + Sync + 'static>() {}
    check::<Filter>();
    check::<crate::FilterError>();
}

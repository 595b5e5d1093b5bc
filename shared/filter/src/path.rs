//! Resolving a dotted path in a document the way MongoDB's matcher does.
//!
//! A path yields a sequence of [`Item`]s, and a field operator asks whether any of them
//! satisfies it. The rules (MongoDB's `getFieldDottedOrArray` and `BSONElementIterator`):
//!
//! * Path components walk down through objects. A missing key yields [`Item::Missing`]; so
//!   does a scalar found before the path ends.
//! * When the path ends at an array, each element is yielded, then the array itself (so
//!   equality can match one element or the whole array).
//! * When an array is met with path left over, for each element:
//!   - an object element gets the rest of the path applied to it (possibly yielding
//!     `Missing`);
//!   - if the next component is a canonical decimal index equal to the element's position, the
//!     element is selected positionally: yielded as is when that was the last component,
//!     otherwise the rest after the index is applied to it (an object is walked into, an
//!     array is traversed as above);
//!   - anything else yields nothing. In particular, nested arrays are not implicitly
//!     flattened, and an array with no object elements yields nothing at all for a sub-path.
//!
//! Traversal borrows from the document and stops at the first item the caller accepts; it
//! never allocates.

use serde_json::{Map, Value};

use crate::ast::Part;

/// What a path reaches in a document.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Item<'a> {
    /// The path does not exist along this branch.
    Missing,
    /// A value the path reaches.
    Value(&'a Value),
}

/// Calls `accept` on the items `parts` reaches in `doc`, until it returns `true`; returns
/// whether it did. A document that is not an object is treated as an empty one.
pub(crate) fn any_item<'a, F>(doc: &'a Value, parts: &[Part], accept: &mut F) -> bool
where
    F: FnMut(Item<'a>) -> bool,
{
    match doc {
        Value::Object(map) => from_object(map, parts, accept),
        _ => accept(Item::Missing),
    }
}

/// Walks `parts` down from `map` until the path ends, goes missing or meets an array.
fn from_object<'a, F>(mut map: &'a Map<String, Value>, mut parts: &[Part], accept: &mut F) -> bool
where
    F: FnMut(Item<'a>) -> bool,
{
    loop {
        // Paths are never empty; treat an empty one as missing rather than panicking.
        let Some((part, rest)) = parts.split_first() else {
            return accept(Item::Missing);
        };
        let Some(value) = map.get(part.name.as_str()) else {
            return accept(Item::Missing);
        };
        match value {
            Value::Array(elements) => return in_array(value, elements, rest, accept),
            Value::Object(inner) if !rest.is_empty() => {
                map = inner;
                parts = rest;
            }
            _ if rest.is_empty() => return accept(Item::Value(value)),
            _ => return accept(Item::Missing),
        }
    }
}

/// Applies the rest of a path to the array `whole` (whose elements are `elements`).
fn in_array<'a, F>(whole: &'a Value, elements: &'a [Value], rest: &[Part], accept: &mut F) -> bool
where
    F: FnMut(Item<'a>) -> bool,
{
    let Some((next, after_index)) = rest.split_first() else {
        // The path ends at this array: each element, then the array itself.
        return elements.iter().any(|e| accept(Item::Value(e))) || accept(Item::Value(whole));
    };
    for (position, element) in elements.iter().enumerate() {
        let positional = next.index == Some(position);
        let found = match element {
            Value::Object(inner) => {
                from_object(inner, rest, accept)
                    || (positional
                        && if after_index.is_empty() { accept(Item::Value(element)) } else { from_object(inner, after_index, accept) })
            }
            _ if positional => {
                if after_index.is_empty() {
                    accept(Item::Value(element))
                } else if let Value::Array(nested) = element {
                    in_array(element, nested, after_index, accept)
                } else {
                    false
                }
            }
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::FieldPath;
    use serde_json::json;

    /// Every item the path yields, rendered (`"missing"` for a missing branch).
    fn items(doc: &Value, path: &str) -> Vec<String> {
        let path = FieldPath::parse(path).expect("valid path");
        let mut out = Vec::new();
        any_item(doc, &path.parts, &mut |item| {
            out.push(match item {
                Item::Missing => "missing".to_owned(),
                Item::Value(v) => v.to_string(),
            });
            false
        });
        out
    }

    #[test]
    fn walks_objects() {
        let doc = json!({"a": {"b": {"c": 1}}, "s": 5});
        assert_eq!(items(&doc, "a.b.c"), ["1"]);
        assert_eq!(items(&doc, "a.b"), [r#"{"c":1}"#]);
        assert_eq!(items(&doc, "a.x"), ["missing"]);
        assert_eq!(items(&doc, "s.t"), ["missing"]);
        assert_eq!(items(&json!(3), "a"), ["missing"]);
    }

    #[test]
    fn leaf_arrays_yield_elements_then_the_array() {
        assert_eq!(items(&json!({"a": [1, [2]]}), "a"), ["1", "[2]", "[1,[2]]"]);
        assert_eq!(items(&json!({"a": []}), "a"), ["[]"]);
    }

    #[test]
    fn arrays_of_objects_apply_the_rest_to_each() {
        let doc = json!({"a": [{"b": 1}, {"c": 2}, 7, [{"b": 3}], {"b": [4, 5]}]});
        assert_eq!(items(&doc, "a.b"), ["1", "missing", "4", "5", "[4,5]"]);
        assert_eq!(items(&json!({"a": [1, 2]}), "a.b"), Vec::<String>::new());
    }

    #[test]
    fn numeric_components_index_arrays() {
        let doc = json!({"items": [{"name": "x"}, {"name": "y"}]});
        assert_eq!(items(&doc, "items.1.name"), ["missing", "missing", r#""y""#]);
        assert_eq!(items(&doc, "items.1"), ["missing", "missing", r#"{"name":"y"}"#]);
        assert_eq!(items(&json!({"a": [[1, 2], 3]}), "a.0"), ["[1,2]"]);
        assert_eq!(items(&json!({"a": [[1, 2], 3]}), "a.0.1"), ["2"]);
        assert_eq!(items(&json!({"a": [5, 6]}), "a.01"), Vec::<String>::new());
        assert_eq!(items(&json!({"a": [{"0": 9}]}), "a.0"), ["9", r#"{"0":9}"#]);
        assert_eq!(items(&json!({"a": {"0": 9}}), "a.0"), ["9"]);
    }

    #[test]
    fn stops_at_first_accepted_item() {
        let doc = json!({"a": [1, 2, 3]});
        let path = FieldPath::parse("a").expect("valid");
        let mut seen = 0;
        let found = any_item(&doc, &path.parts, &mut |item| {
            seen += 1;
            matches!(item, Item::Value(v) if v == &json!(2))
        });
        assert!(found);
        assert_eq!(seen, 2);
    }
}

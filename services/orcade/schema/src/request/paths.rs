//! Dotted paths of PATCH bodies (`bid_job_metadata.priority`), checked as the store's `Change`
//! checks them, so that a path the store would refuse is a 400 naming the field: no empty
//! component, none starting with `$` or holding a NUL (MongoDB operators), no all-digit
//! component below the top level (arrays are set whole), and no two overlapping paths.

use agora_schema::fields::{kind, FieldError};
use serde_json::{Map, Value};

/// The components of `path`, or what is wrong with it.
pub(crate) fn split(path: &str) -> Result<Vec<&str>, String> {
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            return Err("is not a valid path: it has an empty component".into());
        }
        if part.starts_with('$') {
            return Err(format!("is not a valid path: {part:?} starts with '$'"));
        }
        if part.contains('\0') {
            return Err("is not a valid path: it holds a NUL character".into());
        }
        if i > 0 && part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("is not a valid path: {part:?} reads as an array position; set the array whole"));
        }
    }
    Ok(parts)
}

/// Reports every path of `paths` that overlaps an earlier one (`a` and `a.b`).
pub(crate) fn overlaps(paths: &[(String, Vec<&str>)], errors: &mut Vec<FieldError>) {
    for (i, (path, parts)) in paths.iter().enumerate() {
        if let Some((earlier, _)) =
            paths[..i].iter().find(|(_, other)| other.iter().zip(parts.iter()).all(|(a, b)| a == b) && !other.is_empty())
        {
            errors.push(FieldError { path: path.clone(), message: format!("overlaps {earlier}: set one or the other") });
        }
    }
}

/// Checks that setting `below` (components under the top-level field `top`, whose current value
/// is `current`) walks through objects, missing fields or `null` only, as the store requires.
pub(crate) fn walkable(top: &str, current: &Map<String, Value>, below: &[&str]) -> Result<(), String> {
    let mut at = Some(current);
    let mut walked = top.to_owned();
    for part in &below[..below.len().saturating_sub(1)] {
        walked.push('.');
        walked.push_str(part);
        at = match at.and_then(|m| m.get(*part)) {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => return Err(format!("cannot be set: {walked} holds {}, not an object", kind(other))),
        };
    }
    Ok(())
}

/// Sets `value` at `below` inside `target`, creating objects on the way (after [`walkable`]).
pub(crate) fn apply(target: &mut Map<String, Value>, below: &[&str], value: Value) {
    let Some((last, way)) = below.split_last() else { return };
    let mut at = target;
    for part in way {
        let slot = at.entry(part.to_string()).or_insert(Value::Null);
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        at = next;
    }
    at.insert(last.to_string(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_the_store_refuses_are_refused() {
        assert_eq!(split("bid_job_metadata.priority").unwrap(), ["bid_job_metadata", "priority"]);
        for bad in ["", "a..b", "a.", ".a", "a.$set", "$a", "a.0", "a\0b"] {
            assert!(split(bad).is_err(), "{bad:?}");
        }
        assert!(split("a.b0").is_ok());
    }

    #[test]
    fn overlapping_paths_are_named() {
        let p = |s: &'static str| (s.to_owned(), split(s).unwrap());
        let mut errors = Vec::new();
        overlaps(&[p("a.b"), p("a"), p("a.c"), p("ab")], &mut errors);
        let named: Vec<_> = errors.iter().map(|e| (e.path.as_str(), e.message.as_str())).collect();
        assert_eq!(named, [("a", "overlaps a.b: set one or the other"), ("a.c", "overlaps a: set one or the other")]);
    }

    #[test]
    fn walks_objects_and_creates_the_missing() {
        let current = json!({"x": {"y": 1}, "s": "text", "n": null});
        let current = current.as_object().unwrap();
        assert!(walkable("m", current, &["x", "z"]).is_ok());
        assert!(walkable("m", current, &["n", "z"]).is_ok());
        assert!(walkable("m", current, &["new", "deep", "z"]).is_ok());
        assert_eq!(walkable("m", current, &["s", "z"]).unwrap_err(), "cannot be set: m.s holds a string, not an object");
        let mut target = current.clone();
        apply(&mut target, &["n", "z"], json!(2));
        apply(&mut target, &["x", "y"], json!(3));
        assert_eq!(Value::Object(target), json!({"x": {"y": 3}, "s": "text", "n": {"z": 2}}));
    }
}

//! Dotted paths of PATCH bodies (`bid_job_metadata.priority`), the spec's raw `$set`, checked
//! as the store's `Change` checks them, so that a path the store would refuse is a 400 naming
//! the field: no empty segment, none starting with `$` or holding a NUL (MongoDB operators), no
//! all-digit segment below the top level (arrays are set whole), no two overlapping paths, and
//! none walking through a value that is not an object.

use crate::fields::{kind, FieldError};
use serde_json::{Map, Value};

/// The segments of the dotted `path`, or what is wrong with it.
pub fn split_path(path: &str) -> Result<Vec<&str>, String> {
    if path.is_empty() {
        return Err("A field name must not be empty".into());
    }
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            return Err("is not a valid path: it has an empty segment".into());
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

/// Reports every path of `paths` (each with its segments) that overlaps an earlier one (`a` and
/// `a.b`); returns, for each, whether it was reported.
pub fn overlaps<S: AsRef<str>>(paths: &[(S, Vec<&str>)], errors: &mut Vec<FieldError>) -> Vec<bool> {
    let mut reported = vec![false; paths.len()];
    for (i, (path, parts)) in paths.iter().enumerate() {
        if let Some((earlier, _)) = paths[..i].iter().find(|(_, other)| other.iter().zip(parts.iter()).all(|(a, b)| a == b)) {
            errors.push(FieldError {
                path: path.as_ref().to_owned(),
                message: format!("overlaps {}: set one or the other", earlier.as_ref()),
            });
            reported[i] = true;
        }
    }
    reported
}

/// Checks that a set at `parts` (a dotted path's segments) walks, in `doc` (the document as
/// stored), through objects, missing values or `null` only, as the store requires.
pub fn walkable(doc: &Map<String, Value>, parts: &[&str]) -> Result<(), String> {
    let mut at = Some(doc);
    let mut walked = String::new();
    for part in &parts[..parts.len().saturating_sub(1)] {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        at = match at.and_then(|m| m.get(*part)) {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => return Err(format!("cannot be set: {walked} holds {}, not an object", kind(other))),
        };
    }
    Ok(())
}

/// Sets `value` at `parts` inside `target`, creating objects on the way (after [`walkable`]).
pub fn apply(target: &mut Map<String, Value>, parts: &[&str], value: Value) {
    let Some((last, way)) = parts.split_last() else { return };
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
        assert_eq!(split_path("bid_job_metadata.priority").unwrap(), ["bid_job_metadata", "priority"]);
        for bad in ["", "a..b", "a.", ".a", "a.$set", "$a", "a.0", "a\0b"] {
            assert!(split_path(bad).is_err(), "{bad:?}");
        }
        assert!(split_path("a.b0").is_ok());
    }

    #[test]
    fn overlapping_paths_are_named() {
        let p = |s: &'static str| (s, split_path(s).unwrap());
        let mut errors = Vec::new();
        let reported = overlaps(&[p("a.b"), p("a"), p("a.c"), p("ab")], &mut errors);
        let named: Vec<_> = errors.iter().map(|e| (e.path.as_str(), e.message.as_str())).collect();
        assert_eq!(named, [("a", "overlaps a.b: set one or the other"), ("a.c", "overlaps a: set one or the other")]);
        assert_eq!(reported, [false, true, true, false]);
    }

    #[test]
    fn walks_objects_and_creates_the_missing() {
        let doc = json!({"m": {"x": {"y": 1}, "s": "text", "n": null}});
        let doc = doc.as_object().unwrap();
        assert!(walkable(doc, &["m", "x", "z"]).is_ok());
        assert!(walkable(doc, &["m", "n", "z"]).is_ok());
        assert!(walkable(doc, &["m", "new", "deep", "z"]).is_ok());
        assert!(walkable(doc, &["other", "z"]).is_ok());
        assert_eq!(walkable(doc, &["m", "s", "z"]).unwrap_err(), "cannot be set: m.s holds a string, not an object");
        let mut target = doc["m"].as_object().unwrap().clone();
        apply(&mut target, &["n", "z"], json!(2));
        apply(&mut target, &["x", "y"], json!(3));
        assert_eq!(Value::Object(target), json!({"x": {"y": 3}, "s": "text", "n": {"z": 2}}));
    }
}

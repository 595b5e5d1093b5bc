//! `PATCH /subjects/{id}` (§3): the spec's raw `$set` (xchange-2-schema.md §2.4: `update()`
//! applies its updates dict as a MongoDB `$set`, dotted paths included, with no schema
//! validation), refused only where the store would refuse it or where the stored subject would
//! no longer read as one.
//!
//! * **Accepted**: any top-level field or dotted path, including fields the subject does not
//!   define (stored as given, and served back as stored by `GET /subjects/{id}` and
//!   `POST /subjects/query`; the flows, which read the five fields of §2.2, ignore them). A
//!   top-level `null` is stored as given; one of the four fields of §2.2 then reads as its
//!   default (§2.3).
//! * **Refused**, a 400 naming the field, all at once:
//!   * `subject_id` (the subject's id; the store cannot change a key) and `_id` (MongoDB's own
//!     field), and any path below either;
//!   * a path with an empty segment (`a..b`, `a.`), a segment starting with `$` (an operator)
//!     or holding a NUL, or an all-digit segment below the top level (`topics.0`: MongoDB reads
//!     it as an array position; arrays are set whole) — the store's path rules, the same as
//!     Orcade's PATCH (`agora_schema::paths`);
//!   * two overlapping paths (`a` and `a.b`): MongoDB refuses them in one `$set`;
//!   * a dotted path through a value that is not an object, as stored now (`extra.x` when
//!     `extra` is a string): the store cannot walk it (a missing or `null` value on the way is
//!     created as `{}`);
//!   * a value of one of §2.2's fields that would make the stored subject unreadable:
//!     `subject_metadata` and `subject_capabilities` must be objects (or `null`) when set whole;
//!     `task_evaluation_function` a function id string, `topics` an array of strings within the
//!     request limits (each or `null`), and neither is set below (it is not an object);
//!   * an empty body (a `$set` of nothing, which MongoDB before 5.0 refuses too).
//!
//!   * a key at any depth inside a value that holds a NUL or starts with `$`
//!     (`agora_schema::fields::storable_keys`), by its full path (`subject_metadata.x.$y`).
//!
//! Other keys of nested objects inside a value are not paths and are stored as given (`a.b`
//! included).

use crate::request::{set_field, SUBJECT_FIELDS};
use crate::subject::ExchangeSubject;
use agora_schema::fields::{kind, storable_keys, FieldError, Reader};
use agora_schema::paths::{overlaps, split_path, walkable};
use agora_schema::ValidationErrors;
use serde_json::{Map, Value};

/// The top-level fields a PATCH may never set, and why.
const REFUSED: [(&str, &str); 2] =
    [("subject_id", "cannot be changed (it is the subject's id)"), ("_id", "cannot be set (it is the store's own field)")];

/// §2.2's fields that are objects, and may be set below.
const OBJECT_FIELDS: [&str; 2] = ["subject_metadata", "subject_capabilities"];

/// Parses a `PATCH /subjects/{id}` body against the subject as stored (`current`, the whole
/// document): the fields to set, as given (keys may be dotted paths), for the store's
/// `Change::set`.
pub fn parse_subject_patch(body: &Value, current: &Map<String, Value>) -> Result<Map<String, Value>, ValidationErrors> {
    let obj =
        body.as_object().ok_or_else(|| ValidationErrors::single("", format!("Request body must be a JSON object, got {}", kind(body))))?;
    if obj.is_empty() {
        return Err(ValidationErrors::single("", "A PATCH body must set at least one field"));
    }
    let mut errors = Vec::new();
    let mut paths = Vec::new();
    for key in obj.keys() {
        match split_path(key) {
            Ok(parts) => match REFUSED.iter().find(|(field, _)| *field == parts[0]) {
                Some((_, why)) => errors.push(FieldError { path: key.clone(), message: (*why).to_owned() }),
                None => {
                    storable_keys(key, &obj[key.as_str()], &mut errors);
                    paths.push((key.as_str(), parts));
                }
            },
            Err(why) => errors.push(FieldError { path: key.clone(), message: why }),
        }
    }
    let overlapping = overlaps(&paths, &mut errors);
    let mut scratch = ExchangeSubject::default();
    let mut r = Reader::new(obj, "", &mut errors);
    for ((key, parts), _) in paths.iter().zip(overlapping).filter(|(_, bad)| !bad) {
        let value = &obj[*key];
        let top = parts[0];
        match (SUBJECT_FIELDS.contains(&top), parts.len()) {
            // Unknown fields are stored as given; null reads as a known field's default.
            (false, 1) => {}
            (true, 1) if value.is_null() => {}
            (true, 1) => set_field(&mut r, &mut scratch, top, value),
            (true, _) if !OBJECT_FIELDS.contains(&top) => {
                let what = if top == "topics" { "an array of strings" } else { "a function id string" };
                r.fail(key, format!("cannot be set below {top}: it is {what}; set it whole"));
            }
            (_, _) => {
                if let Err(why) = walkable(current, parts) {
                    r.fail(key, why);
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(obj.clone())
    } else {
        Err(ValidationErrors(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored() -> Map<String, Value> {
        let doc = json!({
            "subject_id": "s", "subject_metadata": {"owner": "nlp", "note": "text"}, "task_evaluation_function": "",
            "subject_capabilities": {}, "topics": ["a"], "extra": "a string", "blank": null,
        });
        doc.as_object().cloned().unwrap()
    }

    fn refused(body: Value) -> String {
        parse_subject_patch(&body, &stored()).expect_err("refused").to_string()
    }

    #[test]
    fn any_field_or_path_is_set_as_given() {
        let body = json!({
            "subject_metadata.owner": "ml", "subject_metadata.new.deep": 1, "topics": ["b"], "colour": "blue",
            "extra_object": {"odd$": 1, "a.b": [null]}, "blank.x": {"y": 2}, "new.field": true, "task_evaluation_function": "builtin:x",
            "subject_capabilities": {"gpu": true}, "subject_metadata.note": null,
        });
        assert_eq!(Value::Object(parse_subject_patch(&body, &stored()).unwrap()), body, "the body, unchanged");
        for known in SUBJECT_FIELDS.iter().filter(|f| **f != "subject_id") {
            assert!(parse_subject_patch(&json!({*known: null}), &stored()).is_ok(), "{known}: null reads as the default");
        }
    }

    #[test]
    fn the_id_operators_and_bad_paths_are_refused_by_name() {
        for (body, want) in [
            (json!({"subject_id": "t"}), "subject_id cannot be changed (it is the subject's id)"),
            (json!({"subject_id": "s"}), "subject_id cannot be changed (it is the subject's id)"),
            (json!({"subject_id.x": 1}), "subject_id.x cannot be changed (it is the subject's id)"),
            (json!({"_id": 1}), "_id cannot be set (it is the store's own field)"),
            (json!({"$set": {"a": 1}}), "$set is not a valid path: \"$set\" starts with '$'"),
            (json!({"a.$inc": 1}), "a.$inc is not a valid path: \"$inc\" starts with '$'"),
            (json!({"a..b": 1}), "a..b is not a valid path: it has an empty segment"),
            (json!({"a.": 1}), "a. is not a valid path: it has an empty segment"),
            (json!({"": 1}), "A field name must not be empty"),
            (json!({"a\u{0}b": 1}), "a\\u0000b is not a valid path: it holds a NUL character"),
            (
                json!({"subject_metadata.x": {"$y": 1}}),
                "subject_metadata.x.$y is not a storable key: it starts with '$', which MongoDB reads as an operator",
            ),
            (
                json!({"colour": [{"a\u{0}": 1}]}),
                "colour[0].a\\u0000 is not a storable key: it holds a NUL character, which MongoDB cannot store in a key",
            ),
            (
                json!({"subject_capabilities": {"$gpu": true}}),
                "subject_capabilities.$gpu is not a storable key: it starts with '$', which MongoDB reads as an operator",
            ),
            (json!({"extra_list.0": 1}), "extra_list.0 is not a valid path: \"0\" reads as an array position; set the array whole"),
            (json!({"a": 1, "a.b": 2}), "a.b overlaps a: set one or the other"),
            (json!({"m.x.y": 1, "m.x": 2}), "m.x overlaps m.x.y: set one or the other"),
            (json!({"extra.x": 1}), "extra.x cannot be set: extra holds a string, not an object"),
            (
                json!({"subject_metadata.note.x": 1}),
                "subject_metadata.note.x cannot be set: subject_metadata.note holds a string, not an object",
            ),
            (json!({}), "A PATCH body must set at least one field"),
        ] {
            assert_eq!(refused(body.clone()), want, "{body}");
        }
        assert!(parse_subject_patch(&json!({"ab": 1, "a.b": 2}), &stored()).is_ok(), "ab and a.b do not overlap");
        assert!(refused(json!([1])).contains("JSON object"));
    }

    #[test]
    fn the_known_fields_keep_a_readable_type() {
        for (body, want) in [
            (json!({"subject_metadata": [1]}), "subject_metadata must be an object, got an array"),
            (json!({"subject_capabilities": "all"}), "subject_capabilities must be an object, got a string"),
            (json!({"topics": "t"}), "topics must be an array of strings, got a string"),
            (json!({"topics": [1]}), "topics must be an array of strings"),
            (json!({"task_evaluation_function": 5}), "task_evaluation_function must be a function id string (\"\" for none), got a number"),
            (json!({"topics.x": "t"}), "topics.x cannot be set below topics: it is an array of strings; set it whole"),
            (
                json!({"task_evaluation_function.x": 1}),
                "task_evaluation_function.x cannot be set below task_evaluation_function: it is a function id string; set it whole",
            ),
        ] {
            assert_eq!(refused(body.clone()), want, "{body}");
        }
        // Every problem at once.
        let e = refused(json!({"subject_id": "t", "topics": 1, "x..y": 2, "colour": "fine"}));
        assert!(e.contains("subject_id") && e.contains("topics") && e.contains("x..y") && !e.contains("colour"), "{e}");
        // A whole read again after the patch: the stored subject still decodes.
        let mut doc = stored();
        doc.extend(parse_subject_patch(&json!({"topics": null, "subject_metadata": null, "colour": [1]}), &stored()).unwrap());
        let subject: ExchangeSubject = serde_json::from_value(Value::Object(doc)).expect("readable");
        assert_eq!((subject.topics.len(), subject.subject_metadata.len()), (0, 0));
    }
}

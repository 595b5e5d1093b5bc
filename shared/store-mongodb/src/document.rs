//! What the store sends to the server: documents to insert, `$set`s and filters, checked and
//! converted to BSON.

use crate::convert::{to_bson, to_document, to_raw, BigIntegers, ID_FIELD, MAX_DOCUMENT_BYTES};
use crate::error::{invalid, TOO_LARGE};
use agora_filter::Filter;
use agora_store::{CollectionSpec, StoreError};
use bson::{doc, Bson, Document, RawDocumentBuf};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A document to insert into `spec`'s collection, as BSON, after checking that it is a JSON
/// object with a string key field, no `_id` (MongoDB's own field, which the store keeps to
/// itself) and no `$`-prefixed top-level field, and that it fits MongoDB's size limit.
pub(crate) fn insert_document(spec: &CollectionSpec, json: &RawValue) -> Result<RawDocumentBuf, StoreError> {
    let map = object(spec, json)?;
    match map.get(spec.key) {
        Some(Value::String(_)) => {}
        Some(_) => return Err(invalid(spec, format!("key field {} is not a string", spec.key))),
        None => return Err(invalid(spec, format!("missing key field {}", spec.key))),
    }
    for name in map.keys() {
        if name == ID_FIELD {
            return Err(invalid(spec, "the field _id is reserved for MongoDB's own use"));
        }
        if name.starts_with('$') {
            return Err(invalid(spec, format!("top-level field {name:?} starts with $")));
        }
    }
    let doc = to_document(&map, BigIntegers::Refuse).map_err(|r| invalid(spec, r))?;
    let raw = to_raw(&doc).map_err(|r| invalid(spec, r))?;
    // The driver adds a 17-byte `_id` (type, "_id\0", 12-byte ObjectId).
    if raw.as_bytes().len() + 17 > MAX_DOCUMENT_BYTES {
        return Err(invalid(spec, TOO_LARGE));
    }
    Ok(raw)
}

/// The update pipeline setting the top-level fields of `set` on `spec`'s document keyed `id`:
/// `[{$set: {field: {$literal: value}, ...}}]`, or `None` when `set` is `{}`.
///
/// A pipeline `$set` (not the `$set` update operator) so that new fields are appended in the
/// order given (the operator adds them in lexicographic order since MongoDB 5.0), and
/// `$literal` so that values are stored as written: strings starting with `$` are not field
/// paths, and objects replace the field instead of merging into it.
///
/// Refused ([`StoreError::InvalidDocument`]): a `set` that is not an object, that changes the
/// key field (setting it to `id` itself is allowed), or names `_id`, an empty field, a field
/// starting with `$` or containing `.` (MongoDB would read the last two as paths).
pub(crate) fn set_pipeline(spec: &CollectionSpec, id: &str, set: &RawValue) -> Result<Option<Vec<Document>>, StoreError> {
    let map = object(spec, set)?;
    if let Some(value) = map.get(spec.key) {
        if value.as_str() != Some(id) {
            return Err(invalid(spec, format!("the key field {} cannot be changed", spec.key)));
        }
    }
    if map.is_empty() {
        return Ok(None);
    }
    let mut fields = Document::new();
    for (name, value) in &map {
        if name == ID_FIELD {
            return Err(invalid(spec, "the field _id is reserved for MongoDB's own use"));
        }
        if name.is_empty() || name.starts_with('$') || name.contains('.') || name.contains('\0') {
            return Err(invalid(spec, format!("field {name:?} cannot be set: MongoDB reads it as a path")));
        }
        let value = to_bson(value, BigIntegers::Refuse).map_err(|r| invalid(spec, r))?;
        fields.insert(name.clone(), doc! { "$literal": value });
    }
    let stage = doc! { "$set": fields };
    let size = to_raw(&stage).map_err(|r| invalid(spec, r))?.as_bytes().len();
    if size > MAX_DOCUMENT_BYTES {
        return Err(invalid(spec, TOO_LARGE));
    }
    Ok(Some(vec![stage]))
}

/// The MongoDB filter document of `filter`.
pub(crate) fn filter_document(filter: &Filter) -> Result<Document, StoreError> {
    if filter.is_all() {
        return Ok(Document::new());
    }
    match to_bson(&filter.to_json(), BigIntegers::AsDouble) {
        Ok(Bson::Document(doc)) => Ok(doc),
        Ok(other) => Err(StoreError::Backend(format!("filter rendered as {other}, not a document"))),
        Err(reason) => Err(StoreError::Backend(format!("filter cannot be sent to MongoDB: {reason}"))),
    }
}

/// The filter of "the document keyed `id`, if it matches `condition`".
pub(crate) fn keyed_filter(spec: &CollectionSpec, id: &str, condition: &Filter) -> Result<Document, StoreError> {
    let by_key = doc! { spec.key: id };
    if condition.is_all() {
        return Ok(by_key);
    }
    Ok(doc! { "$and": [by_key, filter_document(condition)?] })
}

/// `json` as a JSON object.
fn object(spec: &CollectionSpec, json: &RawValue) -> Result<Map<String, Value>, StoreError> {
    match serde_json::from_str::<Value>(json.get()) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid(spec, "not a JSON object")),
        Err(e) => Err(invalid(spec, format!("not a JSON object: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::to_json;
    use serde_json::json;

    const TASKS: CollectionSpec = CollectionSpec { name: "tasks", key: "social_task_id", unique: &[], indexed: &["status"] };

    fn refused<T: std::fmt::Debug>(result: Result<T, StoreError>) -> String {
        match result {
            Err(StoreError::InvalidDocument { collection, reason }) => {
                assert_eq!(collection, "tasks");
                reason
            }
            other => panic!("expected InvalidDocument, got {other:?}"),
        }
    }

    #[test]
    fn inserts_need_an_object_with_a_string_key_and_no_id() {
        assert!(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "n": 1}))).is_ok());
        refused(insert_document(&TASKS, &to_json(&json!([1]))));
        refused(insert_document(&TASKS, &to_json(&json!({"n": 1}))));
        refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": 1}))));
        refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "_id": "x"}))));
        refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "$set": 1}))));
        refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "n": u64::MAX}))));
    }

    #[test]
    fn documents_over_16_mb_are_refused() {
        let big = "x".repeat(MAX_DOCUMENT_BYTES);
        let reason = refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "report_json": big}))));
        assert!(reason.contains("16 MB"), "{reason}");
        let reason = refused(set_pipeline(&TASKS, "t", &to_json(&json!({"report_json": big}))));
        assert!(reason.contains("16 MB"), "{reason}");
    }

    #[test]
    fn set_pipelines_wrap_values_in_literal() {
        let pipeline = set_pipeline(&TASKS, "t", &to_json(&json!({"b": "$status", "a": {"x": 1}}))).expect("valid").expect("not empty");
        assert_eq!(pipeline, vec![doc! {"$set": {"b": {"$literal": "$status"}, "a": {"$literal": {"x": 1}}}}]);
        assert_eq!(set_pipeline(&TASKS, "t", &to_json(&json!({}))).expect("valid"), None);
        assert!(set_pipeline(&TASKS, "t", &to_json(&json!({"social_task_id": "t"}))).expect("valid").is_some());
    }

    #[test]
    fn sets_cannot_change_the_key_or_name_paths() {
        refused(set_pipeline(&TASKS, "t", &to_json(&json!({"social_task_id": "u"}))));
        for name in ["_id", "", "$inc", "a.b"] {
            let mut set = Map::new();
            set.insert(name.to_string(), json!(1));
            refused(set_pipeline(&TASKS, "t", &to_json(&set)));
        }
        refused(set_pipeline(&TASKS, "t", &to_json(&json!(["a", 1]))));
    }

    #[test]
    fn keyed_filters_and_the_condition() {
        assert_eq!(keyed_filter(&TASKS, "t", &Filter::all()).expect("filter"), doc! {"social_task_id": "t"});
        let condition = Filter::must(json!({"status": "scheduled"}));
        let expected = doc! {"$and": [{"social_task_id": "t"}, {"status": "scheduled"}]};
        assert_eq!(keyed_filter(&TASKS, "t", &condition).expect("filter"), expected);
    }
}

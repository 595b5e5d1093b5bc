//! What the store sends to the server: documents to insert, `$set`s and filters, checked and
//! converted to BSON.

use crate::convert::{to_bson, to_document, to_raw, BigIntegers, ID_FIELD, MAX_DOCUMENT_BYTES};
use crate::error::{invalid, TOO_LARGE};
use agora_filter::Filter;
use agora_store::change::{OpKind, Plan};
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

/// The update pipeline applying `plan` (a checked [`agora_store::Change`]): one pipeline
/// `$set` stage, `[{$set: {<top-level field>: <expression>, ...}}]`, or `None` when the plan is
/// empty.
///
/// A pipeline (not the `$set`/`$push` operators) so that new fields are appended in the order
/// given at every level (the operators add them in lexicographic order since MongoDB 5.0), and
/// values are `$literal`s, stored as written (strings starting with `$` are not field paths).
/// Per top-level field:
///
/// * a plain set: `{$literal: value}`;
/// * an object a dotted set or an append goes into, at path `p`:
///   `{$mergeObjects: [<p, or {} when missing/null>, {child: <expression>, ...}]}`, existing
///   fields keeping their place;
/// * an append at `p`: `{$concatArrays: [<p, or [] when missing/null>, {$literal: [values]}]}`.
///
/// A value the change cannot go through makes the server fail the update (a string or a number
/// in `$mergeObjects` or `$concatArrays`, and an array on the way through `$objectToArray`,
/// since `$mergeObjects` would merge an array's elements); the store then names the path (see
/// `MongoStore::update`). Refused here ([`StoreError::InvalidDocument`]): a path starting at
/// `_id`, and a stage over MongoDB's size limit.
pub(crate) fn change_pipeline(spec: &CollectionSpec, plan: &Plan<'_>) -> Result<Option<Vec<Document>>, StoreError> {
    if plan.is_empty() {
        return Ok(None);
    }
    let mut tree: Vec<(String, Node)> = Vec::new();
    for op in &plan.ops {
        if op.top() == ID_FIELD {
            return Err(invalid(spec, "the field _id is reserved for MongoDB's own use"));
        }
        let value: Value = serde_json::from_str(op.value.get()).map_err(|e| invalid(spec, e.to_string()))?;
        let value = to_bson(&value, BigIntegers::Refuse).map_err(|r| invalid(spec, r))?;
        insert(&mut tree, &op.path, op.kind, value);
    }
    let mut fields = Document::new();
    for (name, node) in &tree {
        fields.insert(name.clone(), expression(node, name));
    }
    let stage = doc! { "$set": fields };
    let size = to_raw(&stage).map_err(|r| invalid(spec, r))?.as_bytes().len();
    if size > MAX_DOCUMENT_BYTES {
        return Err(invalid(spec, TOO_LARGE));
    }
    Ok(Some(vec![stage]))
}

/// A change as a tree of paths.
enum Node {
    /// Set to this value.
    Set(Bson),
    /// Append these values.
    Append(Vec<Bson>),
    /// An object with fields changed inside.
    Object(Vec<(String, Node)>),
}

/// Adds the operation at `path` to `tree` (the plan has no overlapping paths but appends to one
/// path).
fn insert(tree: &mut Vec<(String, Node)>, path: &[String], kind: OpKind, value: Bson) {
    let (first, rest) = path.split_first().expect("paths are not empty");
    let position = match tree.iter().position(|(name, _)| name == first) {
        Some(i) => i,
        None => {
            let node = match (rest.is_empty(), kind) {
                (true, OpKind::Set) => Node::Set(Bson::Null),
                (true, OpKind::Append) => Node::Append(Vec::new()),
                (false, _) => Node::Object(Vec::new()),
            };
            tree.push((first.clone(), node));
            tree.len() - 1
        }
    };
    match (&mut tree[position].1, rest.is_empty()) {
        (Node::Set(slot), true) => *slot = value,
        (Node::Append(values), true) => values.push(value),
        (Node::Object(children), false) => insert(children, rest, kind, value),
        // Overlaps are refused when the change is planned.
        _ => {}
    }
}

/// The aggregation expression of `node`, the field at the dotted `path`.
fn expression(node: &Node, path: &str) -> Bson {
    let current = format!("${path}");
    match node {
        Node::Set(value) => Bson::Document(doc! { "$literal": value.clone() }),
        Node::Append(values) => Bson::Document(doc! {
            "$concatArrays": [ { "$ifNull": [ &current, [] ] }, { "$literal": values.clone() } ]
        }),
        Node::Object(children) => {
            let mut inner = Document::new();
            for (name, child) in children {
                inner.insert(name.clone(), expression(child, &format!("{path}.{name}")));
            }
            // An array here must fail: `$objectToArray` refuses it (`$mergeObjects` would merge
            // its elements).
            let base = doc! { "$cond": [ { "$isArray": [&current] }, { "$objectToArray": &current }, { "$ifNull": [ &current, {} ] } ] };
            Bson::Document(doc! { "$mergeObjects": [ base, inner ] })
        }
    }
}

/// The MongoDB filter document of `filter` on `spec`'s collection. A filter that cannot be
/// sent (a NUL in a field name or in a key of a compared object, which `agora_filter` refuses
/// already) is the caller's fault: [`StoreError::InvalidDocument`] saying why.
pub(crate) fn filter_document(spec: &CollectionSpec, filter: &Filter) -> Result<Document, StoreError> {
    if filter.is_all() {
        return Ok(Document::new());
    }
    match to_bson(&filter.to_json(), BigIntegers::AsDouble) {
        Ok(Bson::Document(doc)) => Ok(doc),
        Ok(other) => Err(StoreError::Backend(format!("filter rendered as {other}, not a document"))),
        Err(reason) => Err(invalid(spec, format!("the filter cannot be sent to MongoDB: {reason}"))),
    }
}

/// The filter of "the document keyed `id`, if it matches `condition`".
pub(crate) fn keyed_filter(spec: &CollectionSpec, id: &str, condition: &Filter) -> Result<Document, StoreError> {
    let by_key = doc! { spec.key: id };
    if condition.is_all() {
        return Ok(by_key);
    }
    Ok(doc! { "$and": [by_key, filter_document(spec, condition)?] })
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
    use agora_store::{to_json, Change};
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

    fn pipeline(change: &Change) -> Result<Option<Vec<Document>>, StoreError> {
        let plan = change.plan(TASKS.key, "t").map_err(|e| StoreError::invalid_change(TASKS.name, e))?;
        change_pipeline(&TASKS, &plan)
    }

    #[test]
    fn documents_over_16_mb_are_refused() {
        let big = "x".repeat(MAX_DOCUMENT_BYTES);
        let reason = refused(insert_document(&TASKS, &to_json(&json!({"social_task_id": "t", "report_json": big}))));
        assert!(reason.contains("16 MB"), "{reason}");
        let reason = refused(pipeline(&Change::set(&json!({"report_json": big}))));
        assert!(reason.contains("16 MB"), "{reason}");
    }

    #[test]
    fn set_pipelines_wrap_values_in_literal() {
        let stages = pipeline(&Change::set(&json!({"b": "$status", "a": {"x": 1}}))).expect("valid").expect("not empty");
        assert_eq!(stages, vec![doc! {"$set": {"b": {"$literal": "$status"}, "a": {"$literal": {"x": 1}}}}]);
        assert_eq!(pipeline(&Change::set(&json!({}))).expect("valid"), None);
        assert!(pipeline(&Change::set(&json!({"social_task_id": "t"}))).expect("valid").is_some());
    }

    #[test]
    fn dotted_sets_and_appends_merge_into_their_objects() {
        let change = Change::set(&json!({"m.a": 1, "m.b.c": 2})).append("m.list", &"x").append("roster", &3);
        let stages = pipeline(&change).expect("valid").expect("not empty");
        let base = |p: &str| doc! {"$cond": [{"$isArray": [p]}, {"$objectToArray": p}, {"$ifNull": [p, {}]}]};
        let expected = doc! {"$set": {
            "m": {"$mergeObjects": [base("$m"), {
                "a": {"$literal": 1},
                "b": {"$mergeObjects": [base("$m.b"), {"c": {"$literal": 2}}]},
                "list": {"$concatArrays": [{"$ifNull": ["$m.list", []]}, {"$literal": ["x"]}]},
            }]},
            "roster": {"$concatArrays": [{"$ifNull": ["$roster", []]}, {"$literal": [3]}]},
        }};
        assert_eq!(stages, vec![expected]);
    }

    #[test]
    fn changes_cannot_touch_id() {
        refused(pipeline(&Change::set(&json!({"_id": "x"}))));
        refused(pipeline(&Change::set(&json!({"_id.x": 1}))));
        refused(pipeline(&Change::none().append("_id", &1)));
    }

    #[test]
    fn keyed_filters_and_the_condition() {
        assert_eq!(keyed_filter(&TASKS, "t", &Filter::all()).expect("filter"), doc! {"social_task_id": "t"});
        let condition = Filter::must(json!({"status": "scheduled"}));
        let expected = doc! {"$and": [{"social_task_id": "t"}, {"status": "scheduled"}]};
        assert_eq!(keyed_filter(&TASKS, "t", &condition).expect("filter"), expected);
    }
}

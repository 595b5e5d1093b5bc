//! What an [`update`](crate::DocumentStore::update) changes: fields to set, whose names may be
//! dotted paths into nested objects (`task_metadata.bid_job_id`), and values to append to arrays
//! at (possibly dotted) paths.
//!
//! The rules, the same on every adapter:
//!
//! * A set of `a.b.c` walks `a` then `a.b`, creating each as `{}` when it is missing or `null`,
//!   and sets `c` in the last; existing fields keep their place, new ones are added last, the
//!   siblings on the way are kept. A value on the way that is neither an object, missing nor
//!   `null` (a string, a number, an array, ...) refuses the whole change, naming the path.
//! * An append to `p` adds the value at the end of the array at `p`, which is created when
//!   missing or `null` (the objects on the way as for a set); anything else there refuses the
//!   change, naming the path. Several appends to one path add their values in order.
//! * Sets apply in the order of the object's fields, then appends in the order given: new
//!   top-level fields are added in that order.
//! * The key field cannot be changed: a set may name it only with the value it already has, and
//!   no path may go below it.
//! * Paths: no empty component, none starting with `$` or holding a NUL (MongoDB reads those as
//!   operators), and no all-digit component below the top level (MongoDB would read it as an
//!   array position; an array is never walked through here). Two operations on overlapping paths
//!   (`a` and `a.b`, or a set and an append of `a`) refuse the change, except appends to the
//!   same path.
//!
//! Text adapters apply a change with [`apply`]: only the top-level values a dotted path or an
//! append goes into are parsed; a plain top-level set (a report of a million votes) is copied
//! as text, never parsed.

use crate::document::{top_level, TopLevel};
use crate::{to_json, Json};
use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The fields an update sets and the values it appends. Build it with [`Change::set`] and
/// [`Change::append`]; an empty change ([`Change::none`]) changes nothing.
#[derive(Debug, Clone, Default)]
pub struct Change {
    /// A JSON object whose keys may be dotted paths (checked when the change is planned).
    set: Option<Json>,
    /// `(path, value)` in order.
    appends: Vec<(String, Json)>,
}

/// Why a change is refused. Adapters report it as
/// [`StoreError::InvalidDocument`](crate::StoreError::InvalidDocument).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    #[error("the fields to set are not a JSON object: {0}")]
    NotAnObject(String),
    #[error("the key field {0} cannot be changed")]
    KeyField(String),
    #[error("invalid path {path:?}: {reason}")]
    BadPath { path: String, reason: &'static str },
    #[error("the paths {first:?} and {second:?} overlap")]
    Overlap { first: String, second: String },
    #[error("cannot change {path}: {at} holds {found}, not an object")]
    NotAnObjectAt { path: String, at: String, found: &'static str },
    #[error("cannot append to {path}: it holds {found}, not an array")]
    NotAnArray { path: String, found: &'static str },
    #[error("a stored value is not JSON: {0}")]
    Stored(String),
}

/// What one operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Set,
    Append,
}

/// One operation of a planned change.
#[derive(Debug, Clone)]
pub struct Op<'a> {
    /// The path's components (one for a top-level field).
    pub path: Vec<String>,
    /// The path as written.
    pub dotted: String,
    pub kind: OpKind,
    pub value: &'a RawValue,
}

impl Op<'_> {
    /// The top-level field the operation changes.
    pub fn top(&self) -> &str {
        &self.path[0]
    }

    /// Whether it sets a top-level field whole (its value then need not be parsed).
    pub fn is_top_level_set(&self) -> bool {
        self.kind == OpKind::Set && self.path.len() == 1
    }
}

/// A checked change: its operations, in the order they apply.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    pub ops: Vec<Op<'a>>,
}

impl Plan<'_> {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

impl Change {
    /// Changes nothing (an update with it only tells whether the document matches).
    pub fn none() -> Change {
        Change::default()
    }

    /// Sets the fields of `fields`, which must serialize to a JSON object; its keys may be
    /// dotted paths. Serialized once, here: pass the report itself, not a copy of it.
    pub fn set<T: serde::Serialize + ?Sized>(fields: &T) -> Change {
        Change::set_json(to_json(fields))
    }

    /// [`Change::set`] of an object already serialized.
    pub fn set_json(fields: Json) -> Change {
        Change { set: Some(fields), appends: Vec::new() }
    }

    /// Also appends `value` to the array at `path` (dotted or not).
    pub fn append<T: serde::Serialize + ?Sized>(mut self, path: impl Into<String>, value: &T) -> Change {
        self.appends.push((path.into(), to_json(value)));
        self
    }

    /// The object of fields to set, as given.
    pub fn fields(&self) -> Option<&RawValue> {
        self.set.as_deref()
    }

    /// The appends, as given.
    pub fn appends(&self) -> &[(String, Json)] {
        &self.appends
    }

    /// Checks the change for the document keyed `id` by the field `key`, and lists its
    /// operations. Reads the top level of the fields to set without parsing their values (but
    /// the one of the key field, when present).
    pub fn plan(&self, key: &str, id: &str) -> Result<Plan<'_>, ChangeError> {
        let mut ops = Vec::new();
        if let Some(set) = &self.set {
            let fields: TopLevel<'_> = top_level(set.get()).map_err(ChangeError::NotAnObject)?;
            for (name, value) in fields {
                let path = parse_path(&name)?;
                if path[0] == key {
                    let same = path.len() == 1 && serde_json::from_str::<String>(value.get()).is_ok_and(|v| v == id);
                    if !same {
                        return Err(ChangeError::KeyField(key.to_string()));
                    }
                }
                ops.push(Op { path, dotted: name, kind: OpKind::Set, value });
            }
        }
        for (name, value) in &self.appends {
            let path = parse_path(name)?;
            if path[0] == key {
                return Err(ChangeError::KeyField(key.to_string()));
            }
            ops.push(Op { path, dotted: name.clone(), kind: OpKind::Append, value });
        }
        check_overlaps(&ops)?;
        Ok(Plan { ops })
    }
}

/// The components of a dotted path, checked.
fn parse_path(dotted: &str) -> Result<Vec<String>, ChangeError> {
    let bad = |reason| ChangeError::BadPath { path: dotted.to_string(), reason };
    let parts: Vec<String> = dotted.split('.').map(str::to_string).collect();
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            return Err(bad("empty component"));
        }
        if part.starts_with('$') {
            return Err(bad("a component starts with $"));
        }
        if part.contains('\0') {
            return Err(bad("a component holds a NUL character"));
        }
        if i > 0 && part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("an all-digit component below the top level (an array position) is not supported"));
        }
    }
    Ok(parts)
}

/// Refuses operations on overlapping paths (but appends to one path).
fn check_overlaps(ops: &[Op<'_>]) -> Result<(), ChangeError> {
    for (i, a) in ops.iter().enumerate() {
        for b in &ops[i + 1..] {
            let shorter = a.path.len().min(b.path.len());
            if a.path[..shorter] != b.path[..shorter] {
                continue;
            }
            let both_append_here = a.kind == OpKind::Append && b.kind == OpKind::Append && a.path == b.path;
            if !both_append_here {
                return Err(ChangeError::Overlap { first: a.dotted.clone(), second: b.dotted.clone() });
            }
        }
    }
    Ok(())
}

/// A top-level value of a changed document: borrowed from the stored text or from the change,
/// or rebuilt by a dotted set or an append.
#[derive(Debug)]
enum Slot<'a> {
    Borrowed(&'a RawValue),
    Owned(Box<RawValue>),
}

/// A document's top level after a change, in field order.
#[derive(Debug)]
pub struct Merged<'a> {
    fields: IndexMap<String, Slot<'a>>,
}

impl Merged<'_> {
    /// The top level, each value borrowed as raw JSON text.
    pub fn fields(&self) -> TopLevel<'_> {
        self.fields
            .iter()
            .map(|(name, slot)| {
                let raw: &RawValue = match slot {
                    Slot::Borrowed(raw) => raw,
                    Slot::Owned(raw) => raw,
                };
                (name.clone(), raw)
            })
            .collect()
    }

    /// The document's text.
    pub fn to_text(&self) -> Result<String, String> {
        crate::document::to_text(&self.fields())
    }
}

/// The document `doc` (JSON text of an object) with `plan` applied. Only the top-level values
/// that a dotted path or an append goes into are parsed.
pub fn apply<'a>(doc: &'a str, plan: &Plan<'a>) -> Result<Merged<'a>, ChangeError> {
    let stored = top_level(doc).map_err(ChangeError::Stored)?;
    // The rebuilt top-level values, by field.
    let mut rebuilt: IndexMap<&str, Option<Value>> = IndexMap::new();
    for op in plan.ops.iter().filter(|op| !op.is_top_level_set()) {
        if !rebuilt.contains_key(op.top()) {
            let current = match stored.get(op.top()) {
                Some(raw) => Some(serde_json::from_str::<Value>(raw.get()).map_err(|e| ChangeError::Stored(e.to_string()))?),
                None => None,
            };
            rebuilt.insert(op.top(), current);
        }
        let value: Value = serde_json::from_str(op.value.get()).map_err(|e| ChangeError::Stored(e.to_string()))?;
        let slot = rebuilt.get_mut(op.top()).expect("inserted above");
        apply_nested(slot, op, value)?;
    }
    let mut owned: IndexMap<&str, Box<RawValue>> = IndexMap::new();
    for (top, value) in rebuilt {
        owned.insert(top, serde_json::value::to_raw_value(&value).map_err(|e| ChangeError::Stored(e.to_string()))?);
    }
    let mut fields: IndexMap<String, Slot<'a>> = stored.into_iter().map(|(name, raw)| (name, Slot::Borrowed(raw))).collect();
    for op in &plan.ops {
        if op.is_top_level_set() {
            fields.insert(op.top().to_string(), Slot::Borrowed(op.value));
        } else if let Some(raw) = owned.swap_remove(op.top()) {
            fields.insert(op.top().to_string(), Slot::Owned(raw));
        }
    }
    Ok(Merged { fields })
}

/// What a JSON value is, for error messages.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Applies a dotted set or an append to the top-level value `top` (`None` when missing).
fn apply_nested(top: &mut Option<Value>, op: &Op<'_>, value: Value) -> Result<(), ChangeError> {
    if op.path.len() == 1 {
        // An append to a top-level field.
        return push(top.get_or_insert(Value::Null), op, value);
    }
    let mut current = object_at(top.get_or_insert(Value::Null), op, 1)?;
    for depth in 1..op.path.len() - 1 {
        let next = current.entry(op.path[depth].clone()).or_insert(Value::Null);
        current = object_at(next, op, depth + 1)?;
    }
    let last = op.path[op.path.len() - 1].clone();
    match op.kind {
        OpKind::Set => {
            current.insert(last, value);
            Ok(())
        }
        OpKind::Append => push(current.entry(last).or_insert(Value::Null), op, value),
    }
}

/// `slot` as an object (made one when `null`), the first `depth` components of `op`'s path
/// leading to it.
fn object_at<'v>(slot: &'v mut Value, op: &Op<'_>, depth: usize) -> Result<&'v mut Map<String, Value>, ChangeError> {
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    let found = kind_of(slot);
    slot.as_object_mut().ok_or_else(|| ChangeError::NotAnObjectAt { path: op.dotted.clone(), at: op.path[..depth].join("."), found })
}

/// Appends `value` to the array in `slot` (made one when `null`).
fn push(slot: &mut Value, op: &Op<'_>, value: Value) -> Result<(), ChangeError> {
    if slot.is_null() {
        *slot = Value::Array(Vec::new());
    }
    let found = kind_of(slot);
    match slot {
        Value::Array(items) => {
            items.push(value);
            Ok(())
        }
        _ => Err(ChangeError::NotAnArray { path: op.dotted.clone(), found }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn changed(doc: Value, change: &Change) -> Result<String, ChangeError> {
        let text = doc.to_string();
        let plan = change.plan("id", "k")?;
        let merged = apply(&text, &plan)?;
        Ok(merged.to_text().expect("text"))
    }

    #[test]
    fn top_level_sets_keep_order_and_append_new_fields() {
        let out = changed(json!({"id": "k", "a": 1, "b": 2}), &Change::set(&json!({"c": [3], "a": {"deep": true}}))).expect("ok");
        assert_eq!(out, r#"{"id":"k","a":{"deep":true},"b":2,"c":[3]}"#);
    }

    #[test]
    fn top_level_values_are_copied_as_text() {
        let text = r#"{"id":"k","a":1}"#;
        let change = Change::set_json(RawValue::from_string(r#"{"r": {"x" : [1,  2]}}"#.to_string()).expect("json"));
        let plan = change.plan("id", "k").expect("plan");
        assert_eq!(apply(text, &plan).expect("apply").to_text().expect("text"), r#"{"id":"k","a":1,"r":{"x" : [1,  2]}}"#);
    }

    #[test]
    fn dotted_sets_create_and_replace_nested_fields() {
        let doc = json!({"id": "k", "meta": {"x": 1, "y": {"z": 2}}, "n": 0});
        let out = changed(doc, &Change::set(&json!({"meta.y.z": 3, "meta.w": "new", "other.deep.v": true}))).expect("ok");
        assert_eq!(out, r#"{"id":"k","meta":{"x":1,"y":{"z":3},"w":"new"},"n":0,"other":{"deep":{"v":true}}}"#);
        let out = changed(json!({"id": "k", "meta": null}), &Change::set(&json!({"meta.a": 1}))).expect("null is missing");
        assert_eq!(out, r#"{"id":"k","meta":{"a":1}}"#);
    }

    #[test]
    fn paths_through_non_objects_are_refused() {
        for (doc, path) in [(json!({"id": "k", "meta": "s"}), "meta"), (json!({"id": "k", "meta": {"a": [1]}}), "meta.a")] {
            let err = changed(doc, &Change::set(&json!({"meta.a.b": 1}))).expect_err("refused");
            assert!(matches!(&err, ChangeError::NotAnObjectAt { at, .. } if at == path), "{err}");
            assert!(err.to_string().contains("meta.a.b"), "{err}");
        }
    }

    #[test]
    fn appends_create_and_extend_arrays() {
        let change = Change::none().append("roster", &json!({"s": 1})).append("roster", &2).append("job.list", &"x");
        let out = changed(json!({"id": "k", "roster": [0]}), &change).expect("ok");
        assert_eq!(out, r#"{"id":"k","roster":[0,{"s":1},2],"job":{"list":["x"]}}"#);
        let err = changed(json!({"id": "k", "roster": {}}), &Change::none().append("roster", &1)).expect_err("refused");
        assert_eq!(err, ChangeError::NotAnArray { path: "roster".into(), found: "an object" });
    }

    #[test]
    fn the_key_cannot_change() {
        assert!(Change::set(&json!({"id": "k", "a": 1})).plan("id", "k").is_ok());
        for change in [Change::set(&json!({"id": "j"})), Change::set(&json!({"id.x": 1})), Change::none().append("id", &1)] {
            assert_eq!(change.plan("id", "k").expect_err("refused"), ChangeError::KeyField("id".into()));
        }
    }

    #[test]
    fn bad_paths_and_overlaps_are_refused() {
        for path in ["", "a..b", "a.$x", "$set", "a.0", "a.b\0"] {
            let mut fields = Map::new();
            fields.insert(path.to_string(), json!(1));
            assert!(matches!(Change::set(&fields).plan("id", "k"), Err(ChangeError::BadPath { .. })), "{path:?}");
        }
        assert!(Change::set(&json!({"2024": 1})).plan("id", "k").is_ok());
        assert!(matches!(Change::set(&json!({"a": {}, "a.b": 1})).plan("id", "k"), Err(ChangeError::Overlap { .. })));
        assert!(matches!(Change::set(&json!({"a.b": 1})).append("a", &1).plan("id", "k"), Err(ChangeError::Overlap { .. })));
        assert!(Change::set(&json!({"a.b": 1, "a.c": 2, "ab": 3})).plan("id", "k").is_ok());
        assert!(matches!(Change::set(&json!([1])).plan("id", "k"), Err(ChangeError::NotAnObject(_))));
    }
}

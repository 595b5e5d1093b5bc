//! Documents as JSON text: reading their top level without parsing nested values, and merging a
//! `$set` into them in field order (the same rules as the embedded store, so that both write the
//! same text for the same calls).

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::Value;

/// A document's top-level fields in their written order, each value borrowed as raw JSON text.
pub(crate) type TopLevel<'a> = IndexMap<String, &'a RawValue>;

/// Reads the top level of `text`, which must be a JSON object. The `Err` is the reason.
pub(crate) fn top_level(text: &str) -> Result<TopLevel<'_>, String> {
    if !text.trim_start().starts_with('{') {
        return Err("not a JSON object".to_string());
    }
    serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))
}

/// The string value of the key field `key`.
pub(crate) fn key_of(fields: &TopLevel<'_>, key: &str) -> Result<String, String> {
    let raw = fields.get(key).ok_or_else(|| format!("missing key field {key}"))?;
    serde_json::from_str::<String>(raw.get()).map_err(|_| format!("key field {key} is not a string"))
}

/// The value of a top-level field when it is a scalar (string, number, boolean): the only
/// values the store indexes.
pub(crate) fn scalar_of(fields: &TopLevel<'_>, field: &str) -> Option<Value> {
    let raw = fields.get(field)?.get().trim_start();
    if raw.starts_with(['{', '[', 'n']) {
        return None;
    }
    serde_json::from_str(raw).ok()
}

/// Checks a `$set` for the document keyed `id`: it may name the key field only with the value
/// it already has.
pub(crate) fn check_set(set: &TopLevel<'_>, key: &str, id: &str) -> Result<(), String> {
    match set.get(key) {
        None => Ok(()),
        Some(raw) => match serde_json::from_str::<String>(raw.get()) {
            Ok(v) if v == id => Ok(()),
            _ => Err(format!("the key field {key} cannot be changed")),
        },
    }
}

/// `doc` with the fields of `set` set: existing fields keep their place, new ones are appended.
/// Nested values are copied as text, never parsed into values.
pub(crate) fn merge(doc: &str, set: &TopLevel<'_>) -> Result<String, String> {
    let mut fields = top_level(doc)?;
    for (name, value) in set {
        fields.insert(name.clone(), *value);
    }
    serde_json::to_string(&fields).map_err(|e| e.to_string())
}

/// Stored text as a [`RawValue`] (validated: the bytes came over the network).
pub(crate) fn raw(text: String) -> Result<Box<RawValue>, String> {
    RawValue::from_string(text).map_err(|e| format!("a stored document is not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn top_level_borrows_nested_values() {
        let doc = r#"{"a": 1, "b": {"x": [1, 2]}, "c": "s"}"#;
        let fields = top_level(doc).expect("object");
        assert_eq!(fields.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(fields["b"].get(), r#"{"x": [1, 2]}"#);
        assert!(top_level("[1]").is_err());
        assert!(top_level("\"s\"").is_err());
    }

    #[test]
    fn scalars_only() {
        let fields = top_level(r#"{"s": "x", "n": 1.5, "b": false, "z": null, "a": [1], "o": {}}"#).expect("object");
        assert_eq!(scalar_of(&fields, "s"), Some(json!("x")));
        assert_eq!(scalar_of(&fields, "n"), Some(json!(1.5)));
        assert_eq!(scalar_of(&fields, "b"), Some(json!(false)));
        for field in ["z", "a", "o", "missing"] {
            assert_eq!(scalar_of(&fields, field), None, "{field}");
        }
    }

    #[test]
    fn merge_keeps_order_and_appends() {
        let set = top_level(r#"{"c": [3], "a": {"deep": true}, "d": null}"#).expect("object");
        let merged = merge(r#"{"a":1,"b":2,"c":3}"#, &set).expect("merge");
        assert_eq!(merged, r#"{"a":{"deep": true},"b":2,"c":[3],"d":null}"#);
    }

    #[test]
    fn key_may_be_set_to_itself_only() {
        let same = top_level(r#"{"id": "k"}"#).expect("object");
        let other = top_level(r#"{"id": "j"}"#).expect("object");
        assert!(check_set(&same, "id", "k").is_ok());
        assert!(check_set(&other, "id", "k").is_err());
        assert_eq!(key_of(&same, "id").as_deref(), Ok("k"));
    }
}

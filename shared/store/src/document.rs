//! Documents as JSON text, for adapters that store the text itself (the embedded and DynamoDB
//! stores): reading the top level without parsing nested values, and merging an `update`'s
//! fields in field order, so that every such adapter writes the same text for the same calls.

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::Value;

/// A document's top-level fields in their written order, each value borrowed as raw JSON text.
pub type TopLevel<'a> = IndexMap<String, &'a RawValue>;

/// Reads the top level of `text`, which must be a JSON object. The `Err` is the reason.
pub fn top_level(text: &str) -> Result<TopLevel<'_>, String> {
    if !text.trim_start().starts_with('{') {
        return Err("not a JSON object".to_string());
    }
    serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))
}

/// The string value of the key field `key`.
pub fn key_of(fields: &TopLevel<'_>, key: &str) -> Result<String, String> {
    let raw = fields.get(key).ok_or_else(|| format!("missing key field {key}"))?;
    serde_json::from_str::<String>(raw.get()).map_err(|_| format!("key field {key} is not a string"))
}

/// The value of a top-level field when it is a scalar (string, number, boolean): the only
/// values the stores index. Objects and arrays are not parsed: a large nested value costs
/// nothing here.
pub fn scalar_of(fields: &TopLevel<'_>, field: &str) -> Option<Value> {
    let raw = fields.get(field)?.get().trim_start();
    if raw.starts_with(['{', '[', 'n']) {
        return None;
    }
    serde_json::from_str(raw).ok()
}

/// Checks the fields an `update` sets on the document keyed `id`: they may name the key field
/// only with the value it already has.
pub fn check_set(set: &TopLevel<'_>, key: &str, id: &str) -> Result<(), String> {
    match set.get(key) {
        None => Ok(()),
        Some(raw) => match serde_json::from_str::<String>(raw.get()) {
            Ok(v) if v == id => Ok(()),
            _ => Err(format!("the key field {key} cannot be changed")),
        },
    }
}

/// The top level of `doc` with the fields of `set` set: existing fields keep their place, new
/// ones are appended. Nested values are borrowed as text, never parsed into values.
pub fn merge_fields<'a>(doc: &'a str, set: &TopLevel<'a>) -> Result<TopLevel<'a>, String> {
    let mut fields = top_level(doc)?;
    for (name, value) in set {
        fields.insert(name.clone(), *value);
    }
    Ok(fields)
}

/// A document's text from its top-level fields.
pub fn to_text(fields: &TopLevel<'_>) -> Result<String, String> {
    // Sized up front: a report of a million votes would otherwise be copied at every doubling.
    let size = fields.iter().map(|(name, value)| name.len() + value.get().len() + 8).sum::<usize>() + 2;
    let mut out = Vec::with_capacity(size);
    serde_json::to_writer(&mut out, fields).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// `doc` with the fields of `set` set (see [`merge_fields`]).
pub fn merge(doc: &str, set: &TopLevel<'_>) -> Result<String, String> {
    to_text(&merge_fields(doc, set)?)
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
    fn keys_must_be_strings() {
        let fields = top_level(r#"{"id": "k", "n": 1}"#).expect("object");
        assert_eq!(key_of(&fields, "id").as_deref(), Ok("k"));
        assert!(key_of(&fields, "n").is_err());
        assert!(key_of(&fields, "missing").is_err());
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
    }
}

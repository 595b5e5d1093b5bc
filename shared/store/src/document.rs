//! Documents as JSON text, for adapters that store the text itself (the embedded, DynamoDB and
//! in-memory stores): reading the top level without parsing nested values, and writing it back,
//! so that every such adapter writes the same text for the same calls (an `update`'s change is
//! applied by [`crate::change::apply`]).

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

/// A document's text from its top-level fields.
pub fn to_text(fields: &TopLevel<'_>) -> Result<String, String> {
    // Sized up front: a report of a million votes would otherwise be copied at every doubling.
    let size = fields.iter().map(|(name, value)| name.len() + value.get().len() + 8).sum::<usize>() + 2;
    let mut out = Vec::with_capacity(size);
    serde_json::to_writer(&mut out, fields).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
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
}

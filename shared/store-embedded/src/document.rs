//! Documents as JSON text: reading their top level without parsing nested values, merging a
//! `$set` into them in field order, and handing stored text back as [`RawValue`].

use indexmap::IndexMap;
use serde_json::value::RawValue;

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

/// Checks a `$set` for `collection`'s document keyed `id`: it may name the key field only with
/// the value it already has.
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

/// Stored text, handed back without parsing it again.
///
/// The store only writes text that came out of a [`RawValue`] (a validated JSON value) or out of
/// [`merge`] (serde_json's own output), so the text is valid JSON; re-validating a million
/// documents on every `find` would cost as much as the read itself.
pub(crate) fn trusted_raw(text: String) -> Box<RawValue> {
    debug_assert!(serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok());
    let text: Box<str> = text.into_boxed_str();
    // SAFETY: `RawValue` is `#[repr(transparent)]` over `str` (serde_json converts between the
    // two the same way, in `RawValue::from_owned`), so `Box<str>` and `Box<RawValue>` share
    // their layout, and the text is valid JSON, which is the type's only invariant.
    unsafe { std::mem::transmute::<Box<str>, Box<RawValue>>(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn trusted_raw_keeps_text() {
        let raw = trusted_raw(r#"{"a":[1,2]}"#.to_string());
        assert_eq!(raw.get(), r#"{"a":[1,2]}"#);
        let v: serde_json::Value = serde_json::from_str(raw.get()).expect("json");
        assert_eq!(v["a"][1], 2);
    }
}

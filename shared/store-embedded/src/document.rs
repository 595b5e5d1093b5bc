//! Documents as JSON text: reading their top level without parsing nested values, merging a
//! `$set` into them in field order, and handing stored text back as [`RawValue`].

use indexmap::IndexMap;
use rusqlite::types::Value as SqlValue;
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

/// The top level of `doc` with the fields of `set` set: existing fields keep their place, new
/// ones are appended. Nested values are borrowed as text, never parsed into values.
pub(crate) fn merge_fields<'a>(doc: &'a str, set: &TopLevel<'a>) -> Result<TopLevel<'a>, String> {
    let mut fields = top_level(doc)?;
    for (name, value) in set {
        fields.insert(name.clone(), *value);
    }
    Ok(fields)
}

/// A document's text from its top-level fields.
pub(crate) fn to_text(fields: &TopLevel<'_>) -> Result<String, String> {
    // Sized up front: a report of a million votes would otherwise be copied at every doubling.
    let size = fields.iter().map(|(name, value)| name.len() + value.get().len() + 8).sum::<usize>() + 2;
    let mut out = Vec::with_capacity(size);
    serde_json::to_writer(&mut out, fields).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// `doc` with the fields of `set` set (see [`merge_fields`]).
#[cfg(test)]
pub(crate) fn merge(doc: &str, set: &TopLevel<'_>) -> Result<String, String> {
    to_text(&merge_fields(doc, set)?)
}

/// What the column of an indexed field holds for a document whose top level is `fields`:
/// strings as TEXT, integers as INTEGER, other numbers as REAL, `true`/`false` as the BLOBs
/// `x'01'`/`x'00'`, and NULL for a missing field, `null`, an object or an array (which are not
/// parsed: a large nested value costs nothing here).
pub(crate) fn column_value(fields: &TopLevel<'_>, field: &str) -> SqlValue {
    let Some(raw) = fields.get(field) else { return SqlValue::Null };
    let text = raw.get().trim_start();
    if text.starts_with(['{', '[']) {
        return SqlValue::Null;
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::String(s)) => SqlValue::Text(s),
        Ok(serde_json::Value::Bool(b)) => SqlValue::Blob(vec![u8::from(b)]),
        Ok(serde_json::Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => SqlValue::Integer(i),
            (None, Some(f)) => SqlValue::Real(f),
            _ => SqlValue::Null,
        },
        _ => SqlValue::Null,
    }
}

/// Documents from this size on are stored compressed (LZ4, as a BLOB; smaller ones as TEXT).
/// A task whose report holds a million votes is 250 MB of JSON: compressing it costs a fraction
/// of what SQLite would spend copying, paging and logging the full text.
pub(crate) const COMPRESS_FROM: usize = 256 * 1024;

/// A document's text as the `doc` column stores it.
pub(crate) fn stored_form(text: &str) -> rusqlite::types::ToSqlOutput<'_> {
    use rusqlite::types::{ToSqlOutput, Value, ValueRef};
    if text.len() < COMPRESS_FROM {
        return ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes()));
    }
    ToSqlOutput::Owned(Value::Blob(lz4_flex::compress_prepend_size(text.as_bytes())))
}

/// A document's text from the `doc` column: TEXT as is, a BLOB decompressed.
pub(crate) fn text_of(value: rusqlite::types::ValueRef<'_>) -> Result<std::borrow::Cow<'_, str>, String> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => {
            std::str::from_utf8(t).map(std::borrow::Cow::Borrowed).map_err(|e| format!("stored document is not UTF-8: {e}"))
        }
        ValueRef::Blob(b) => {
            let bytes = lz4_flex::decompress_size_prepended(b).map_err(|e| format!("stored document does not decompress: {e}"))?;
            String::from_utf8(bytes).map(std::borrow::Cow::Owned).map_err(|e| format!("stored document is not UTF-8: {e}"))
        }
        other => Err(format!("stored document is a {:?}, not text", other.data_type())),
    }
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
    fn column_values_keep_json_types_apart() {
        let fields = top_level(r#"{"s":"x","i":7,"f":1.5,"big":18446744073709551615,"t":true,"f0":false,"n":null,"o":{"a":1},"a":[1]}"#)
            .expect("object");
        assert_eq!(column_value(&fields, "s"), SqlValue::Text("x".into()));
        assert_eq!(column_value(&fields, "i"), SqlValue::Integer(7));
        assert_eq!(column_value(&fields, "f"), SqlValue::Real(1.5));
        assert_eq!(column_value(&fields, "big"), SqlValue::Real(18446744073709551615.0));
        assert_eq!(column_value(&fields, "t"), SqlValue::Blob(vec![1]));
        assert_eq!(column_value(&fields, "f0"), SqlValue::Blob(vec![0]));
        for field in ["n", "o", "a", "missing"] {
            assert_eq!(column_value(&fields, field), SqlValue::Null, "{field}");
        }
    }

    #[test]
    fn large_documents_are_stored_compressed_and_read_back_whole() {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        let small = r#"{"a":1}"#;
        assert!(matches!(stored_form(small), ToSqlOutput::Borrowed(ValueRef::Text(_))));
        let large = format!(r#"{{"votes":[{}]}}"#, vec![r#"{"selected_option":"agent-translator-01"}"#; 20_000].join(","));
        assert!(large.len() >= COMPRESS_FROM);
        let ToSqlOutput::Owned(Value::Blob(blob)) = stored_form(&large) else { panic!("a large document is a blob") };
        assert!(blob.len() * 10 < large.len(), "{} bytes of {}", blob.len(), large.len());
        assert_eq!(text_of(ValueRef::Blob(&blob)).expect("decompress"), large);
        assert_eq!(text_of(ValueRef::Text(small.as_bytes())).expect("text"), small);
        assert!(text_of(ValueRef::Blob(b"\x05\0\0\0xx")).is_err());
        assert!(text_of(ValueRef::Integer(1)).is_err());
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

//! Documents in SQLite: the values of the field columns, the stored form of the text (large
//! documents compressed), and stored text handed back as [`RawValue`]. The text itself is read
//! and merged with [`agora_store::document`].

use agora_store::document::TopLevel;
use rusqlite::types::Value as SqlValue;
use serde_json::value::RawValue;

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
/// [`agora_store::document::to_text`] (serde_json's own output), so the text is valid JSON;
/// re-validating a million documents on every `find` would cost as much as the read itself.
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
    use agora_store::document::top_level;

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
    fn trusted_raw_keeps_text() {
        let raw = trusted_raw(r#"{"a":[1,2]}"#.to_string());
        assert_eq!(raw.get(), r#"{"a":[1,2]}"#);
        let v: serde_json::Value = serde_json::from_str(raw.get()).expect("json");
        assert_eq!(v["a"][1], 2);
    }
}

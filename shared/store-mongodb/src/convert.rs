//! JSON ↔ BSON, exactly.
//!
//! Documents cross the store boundary as JSON text written by serde_json, and must come back as
//! the same text byte for byte. The mapping is fixed and total for every JSON value:
//!
//! | JSON                                   | BSON                      | back to JSON            |
//! |----------------------------------------|---------------------------|-------------------------|
//! | `null`, `true`/`false`, string         | null, boolean, string     | the same                |
//! | integer in `i32`                       | int32                     | the same integer        |
//! | other integer in `i64`                 | int64                     | the same integer        |
//! | integer above `i64::MAX`               | refused in documents; a double in filters | —        |
//! | any other number (`1.0`, `0.5`, `1e300`) | double                  | serde_json's shortest text (`1.0` stays `1.0`) |
//! | array, object                          | array, embedded document (field order kept) | the same |
//!
//! Nothing is read as MongoDB extended JSON: an object `{"$oid": "..."}` is stored as an
//! embedded document with a `$oid` field, not as an ObjectId, and comes back as written.
//!
//! Reading writes JSON text straight from the BSON bytes the server sent (no intermediate
//! `Document` or `serde_json::Value`), formatting every scalar with serde_json so that the text is
//! what serde_json would have written. BSON types that JSON lacks (ObjectId, dates, ... — only
//! present if something else wrote the database) are written as relaxed extended JSON.

use bson::raw::{RawArray, RawBsonRef, RawDocument};
use bson::{Bson, Document, RawDocumentBuf};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

/// MongoDB's limit on the size of one stored document (BSON bytes).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// MongoDB's own document id field: the server keeps it, callers never see it.
pub(crate) const ID_FIELD: &str = "_id";

/// What to do with an integer above `i64::MAX`, which BSON cannot hold exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BigIntegers {
    /// In a stored document: refuse it (it would not come back as written).
    Refuse,
    /// In a filter operand: compare with the nearest double (no stored integer can equal it).
    AsDouble,
}

/// The BSON of a JSON value. The `Err` is the reason the value cannot be stored.
pub(crate) fn to_bson(value: &Value, big: BigIntegers) -> Result<Bson, String> {
    Ok(match value {
        Value::Null => Bson::Null,
        Value::Bool(b) => Bson::Boolean(*b),
        Value::Number(n) => number(n, big)?,
        Value::String(s) => Bson::String(s.clone()),
        Value::Array(items) => Bson::Array(items.iter().map(|v| to_bson(v, big)).collect::<Result<_, _>>()?),
        Value::Object(map) => Bson::Document(to_document(map, big)?),
    })
}

/// The BSON document of a JSON object, fields in the same order.
pub(crate) fn to_document(map: &Map<String, Value>, big: BigIntegers) -> Result<Document, String> {
    let mut doc = Document::new();
    for (name, value) in map {
        if name.contains('\0') {
            return Err(format!("field name {name:?} contains a NUL character"));
        }
        doc.insert(name.clone(), to_bson(value, big)?);
    }
    Ok(doc)
}

/// The BSON of a JSON number (see the module table).
fn number(n: &Number, big: BigIntegers) -> Result<Bson, String> {
    if let Some(i) = n.as_i64() {
        return Ok(match i32::try_from(i) {
            Ok(small) => Bson::Int32(small),
            Err(_) => Bson::Int64(i),
        });
    }
    if n.is_u64() {
        return match big {
            BigIntegers::Refuse => Err(format!("integer {n} is outside MongoDB's 64-bit integer range")),
            BigIntegers::AsDouble => n.as_f64().map(Bson::Double).ok_or_else(|| format!("number {n} has no BSON form")),
        };
    }
    n.as_f64().map(Bson::Double).ok_or_else(|| format!("number {n} has no BSON form"))
}

/// A stored document as JSON text, without its top-level `_id`.
pub(crate) fn to_json(doc: &RawDocument) -> Result<Box<RawValue>, String> {
    let mut out = Vec::with_capacity(doc.as_bytes().len() + doc.as_bytes().len() / 4);
    write_document(doc, &mut out, true)?;
    let text = String::from_utf8(out).map_err(|e| format!("stored document is not UTF-8: {e}"))?;
    RawValue::from_string(text).map_err(|e| format!("stored document does not convert to JSON: {e}"))
}

/// Writes `doc` as a JSON object, skipping `_id` when `top_level`.
fn write_document(doc: &RawDocument, out: &mut Vec<u8>, top_level: bool) -> Result<(), String> {
    out.push(b'{');
    let mut first = true;
    for element in doc.iter() {
        let (name, value) = element.map_err(|e| format!("malformed BSON from the server: {e}"))?;
        if top_level && name.as_str() == ID_FIELD {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        write_scalar(out, name.as_str())?;
        out.push(b':');
        write_value(value, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// Writes `array` as a JSON array.
fn write_array(array: &RawArray, out: &mut Vec<u8>) -> Result<(), String> {
    out.push(b'[');
    for (i, element) in array.into_iter().enumerate() {
        let value = element.map_err(|e| format!("malformed BSON from the server: {e}"))?;
        if i > 0 {
            out.push(b',');
        }
        write_value(value, out)?;
    }
    out.push(b']');
    Ok(())
}

/// Writes one value as JSON.
fn write_value(value: RawBsonRef<'_>, out: &mut Vec<u8>) -> Result<(), String> {
    match value {
        RawBsonRef::Null => out.extend_from_slice(b"null"),
        RawBsonRef::Boolean(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        RawBsonRef::Int32(i) => write_scalar(out, &i)?,
        RawBsonRef::Int64(i) => write_scalar(out, &i)?,
        RawBsonRef::Double(f) => write_scalar(out, &f)?,
        RawBsonRef::String(s) => write_scalar(out, s)?,
        RawBsonRef::Document(doc) => write_document(doc, out, false)?,
        RawBsonRef::Array(array) => write_array(array, out)?,
        other => {
            let bson = Bson::try_from(other).map_err(|e| format!("unreadable BSON value: {e}"))?;
            write_scalar(out, &bson.into_relaxed_extjson())?;
        }
    }
    Ok(())
}

/// Writes a value with serde_json's own formatting (strings escaped, numbers as serde_json
/// prints them).
fn write_scalar<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), String> {
    serde_json::to_writer(&mut *out, value).map_err(|e| format!("cannot write JSON: {e}"))?;
    Ok(())
}

/// `doc` encoded as BSON.
pub(crate) fn to_raw(doc: &Document) -> Result<RawDocumentBuf, String> {
    RawDocumentBuf::try_from(doc).map_err(|e| format!("cannot encode as BSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// JSON text → BSON bytes → JSON text.
    fn round_trip(text: &str) -> String {
        let value: Value = serde_json::from_str(text).expect("json");
        let Bson::Document(doc) = to_bson(&value, BigIntegers::Refuse).expect("converts") else { panic!("not a document") };
        let raw = to_raw(&doc).expect("encodes");
        to_json(&raw).expect("decodes").get().to_string()
    }

    #[test]
    fn numbers_keep_their_text() {
        let text = r#"{"a":1,"b":-1,"c":0,"d":2147483647,"e":2147483648,"f":-2147483649,"g":9223372036854775807,"h":-9223372036854775808,"i":1.0,"j":0.5,"k":1e300,"l":-0.0,"m":3.141592653589793,"n":[1,2.5,[3]]}"#;
        let expected = serde_json::to_string(&serde_json::from_str::<Value>(text).expect("json")).expect("text");
        assert_eq!(round_trip(&expected), expected);
    }

    #[test]
    fn small_integers_are_int32_and_large_ones_int64() {
        let doc = json!({"small": 7, "large": 5_000_000_000_i64, "float": 7.0});
        let Bson::Document(doc) = to_bson(&doc, BigIntegers::Refuse).expect("converts") else { panic!() };
        assert_eq!(doc.get("small"), Some(&Bson::Int32(7)));
        assert_eq!(doc.get("large"), Some(&Bson::Int64(5_000_000_000)));
        assert_eq!(doc.get("float"), Some(&Bson::Double(7.0)));
    }

    #[test]
    fn integers_beyond_i64_are_refused_in_documents_and_doubles_in_filters() {
        let big = json!(u64::MAX);
        assert!(to_bson(&big, BigIntegers::Refuse).is_err());
        assert_eq!(to_bson(&big, BigIntegers::AsDouble), Ok(Bson::Double(u64::MAX as f64)));
    }

    #[test]
    fn strings_field_order_and_nesting_are_kept() {
        let text = serde_json::to_string(&json!({
            "z": "quote \" backslash \\ newline \n tab \t nul \u{0} é → 😀",
            "a": {"y": [], "b": {}, "x": null, "$oid": "not an ObjectId"},
            "m": [true, false, {"k": [[]]}]
        }))
        .expect("text");
        assert_eq!(round_trip(&text), text);
    }

    #[test]
    fn top_level_id_is_dropped_but_nested_ids_stay() {
        let mut raw = RawDocumentBuf::new();
        raw.append(bson::raw::cstr!("_id"), bson::oid::ObjectId::new());
        raw.append(bson::raw::cstr!("k"), "v");
        let mut nested = RawDocumentBuf::new();
        nested.append(bson::raw::cstr!("_id"), 3);
        raw.append(bson::raw::cstr!("n"), nested);
        assert_eq!(to_json(&raw).expect("json").get(), r#"{"k":"v","n":{"_id":3}}"#);
    }

    #[test]
    fn other_bson_types_become_extended_json() {
        let mut raw = RawDocumentBuf::new();
        let oid = bson::oid::ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").expect("oid");
        raw.append(bson::raw::cstr!("o"), oid);
        assert_eq!(to_json(&raw).expect("json").get(), r#"{"o":{"$oid":"65a1b2c3d4e5f60718293a4b"}}"#);
    }

    #[test]
    fn nul_in_field_names_is_refused() {
        assert!(to_bson(&json!({"a\u{0}b": 1}), BigIntegers::Refuse).is_err());
    }

    #[test]
    fn encoded_sizes_are_bson_sizes() {
        let Bson::Document(doc) = to_bson(&json!({"a": "xyz"}), BigIntegers::Refuse).expect("converts") else { panic!() };
        // 4 (length) + 1 (type) + 2 ("a\0") + 4 (string length) + 4 ("xyz\0") + 1 (end).
        assert_eq!(to_raw(&doc).expect("encodes").as_bytes().len(), 16);
    }
}

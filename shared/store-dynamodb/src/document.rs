//! Stored document text handed back as [`RawValue`]. The text itself is read and merged with
//! [`agora_store::document`], as the embedded store does, so both write the same text for the
//! same calls.

use serde_json::value::RawValue;

/// Stored text as a [`RawValue`] (validated: the bytes came over the network).
pub(crate) fn raw(text: String) -> Result<Box<RawValue>, String> {
    RawValue::from_string(text).map_err(|e| format!("a stored document is not JSON: {e}"))
}

//! Request bodies: read as bytes and parsed here, so that every malformed body gets the same
//! clear 400 (never the framework's own rejection text).

use crate::error::ApiError;
use axum::body::Bytes;
use serde_json::Value;

/// The body as JSON. `allow_empty`: an empty body reads as `null` instead of an error.
pub fn json_body(bytes: &Bytes, allow_empty: bool) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return if allow_empty { Ok(Value::Null) } else { Err(ApiError::bad_request("Request body is empty; expected a JSON object")) };
    }
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_request(format!("Request body is not valid JSON: {e}")))
}

//! What a route reads from a request, extracted here so that every malformed request gets the
//! service's JSON error (never the framework's plain-text rejection): the body, read as bytes
//! under [`BODY_LIMIT`] and parsed as JSON, and a path segment (an id or a collection name).

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::header::CONTENT_LENGTH;
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde_json::Value;

/// The largest request body the routes read (a create request with large option maps fits many
/// times over); a larger one is answered 413.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// A request body, whole.
pub struct Body(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for Body {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let too_large = || {
            ApiError::with_status(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Request body is too large: the limit is {} MiB", BODY_LIMIT >> 20),
            )
        };
        // A declared length over the limit is refused before a byte of the body is read.
        let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
            return Err(too_large());
        }
        Bytes::from_request(req, state).await.map(Body).map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large()
            } else {
                ApiError::with_status(e.status(), format!("Request body could not be read: {}", e.body_text()))
            }
        })
    }
}

/// The route's one path segment (a task id, a collection name), percent-decoded.
pub struct Segment(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Segment {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(segment)| Segment(segment))
            .map_err(|e| ApiError::bad_request(format!("Invalid path: {}", e.body_text())))
    }
}

/// The body as JSON. `allow_empty`: an empty body reads as `null` instead of an error.
pub fn json_body(bytes: &Bytes, allow_empty: bool) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return if allow_empty { Ok(Value::Null) } else { Err(ApiError::bad_request("Request body is empty; expected a JSON object")) };
    }
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_request(format!("Request body is not valid JSON: {e}")))
}

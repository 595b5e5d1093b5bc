//! What a route reads from a request, so that every malformed request gets the service's JSON
//! error (never the framework's plain-text rejection): the body, read as bytes under a limit,
//! refused before a byte is read when its declared length is over it, and parsed as JSON; and a
//! path segment, percent-decoded. Each returns the status and message of its refusal for the
//! service's own extractor to put in its error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde_json::Value;

/// A refusal: the status and the message the client reads.
pub type Refusal = (StatusCode, String);

/// Environment variable: the largest request body, in bytes.
pub const MAX_BODY_BYTES_ENV: &str = "AGORA_MAX_BODY_BYTES";

/// The largest request body when [`MAX_BODY_BYTES_ENV`] is unset: 1 MiB (a create request with
/// large option maps fits many times over).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// The largest request body a service's routes read, [`MAX_BODY_BYTES_ENV`] or
/// [`DEFAULT_BODY_LIMIT`], read once per process; a larger body is answered 413. Front doors call
/// [`body_limit_from_env`] at start-up so that a wrong value stops them there.
pub fn body_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        body_limit_from_env().unwrap_or_else(|e| {
            tracing::error!(error = %e, limit = DEFAULT_BODY_LIMIT, "request body limit: the default is used");
            DEFAULT_BODY_LIMIT
        })
    })
}

/// [`MAX_BODY_BYTES_ENV`]: a whole number of bytes from 1 KiB to 64 MiB; unset, the default.
pub fn body_limit_from_env() -> Result<usize, String> {
    let Some(text) = agora_support::env::var(MAX_BODY_BYTES_ENV) else { return Ok(DEFAULT_BODY_LIMIT) };
    match text.trim().parse::<usize>() {
        Ok(n) if (1024..=64 << 20).contains(&n) => Ok(n),
        _ => Err(format!("{MAX_BODY_BYTES_ENV} must be a whole number of bytes from 1024 to 67108864, got {text:?}")),
    }
}

/// The 413 of a body over [`body_limit`].
pub fn too_large() -> Refusal {
    (StatusCode::PAYLOAD_TOO_LARGE, format!("Request body is too large: the limit is {} bytes ({MAX_BODY_BYTES_ENV})", body_limit()))
}

/// The body length a request's head declares, if it declares one.
fn declared_length<B>(req: &axum::http::Request<B>) -> Option<u64> {
    req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok())
}

/// The request with its body read whole, under [`body_limit`], whatever the route does with it
/// (a route that never reads its body, a close or a DELETE, is refused a body over the limit as
/// the others are). A request whose head declares no body passes untouched. The handlers then
/// read the body from memory.
pub async fn buffer_body(req: Request) -> Result<Request, Refusal> {
    let chunked = req.headers().contains_key(TRANSFER_ENCODING);
    match declared_length(&req) {
        Some(n) if n > body_limit() as u64 => return Err(too_large()),
        Some(0) if !chunked => return Ok(req),
        None if !chunked => return Ok(req),
        _ => {}
    }
    let (parts, body) = req.into_parts();
    match axum::body::to_bytes(body, body_limit()).await {
        Ok(bytes) => Ok(Request::from_parts(parts, axum::body::Body::from(bytes))),
        Err(e) if over_limit(&e) => Err(too_large()),
        Err(e) => Err((StatusCode::BAD_REQUEST, format!("Request body could not be read: {e}"))),
    }
}

/// Whether reading a body failed for its length.
fn over_limit(e: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The request's body, whole, under [`body_limit`].
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, Refusal> {
    if declared_length(&req).is_some_and(|n| n > body_limit() as u64) {
        return Err(too_large());
    }
    Bytes::from_request(req, state).await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            (e.status(), format!("Request body could not be read: {}", e.body_text()))
        }
    })
}

/// The route's one path segment, percent-decoded.
pub async fn path_segment<S: Send + Sync>(parts: &mut Parts, state: &S) -> Result<String, Refusal> {
    Path::<String>::from_request_parts(parts, state)
        .await
        .map(|Path(segment)| segment)
        .map_err(|e| (StatusCode::BAD_REQUEST, format!("Invalid path: {}", e.body_text())))
}

/// The body as JSON, as it came (an explicit `null` stays `null`). `allow_empty`: an empty body
/// reads as `null` (a query's filter: every document) instead of an error. Err is the 400's
/// message.
pub fn json_body(bytes: &[u8], allow_empty: bool) -> Result<Value, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return if allow_empty { Ok(Value::Null) } else { Err("Request body is empty; expected a JSON object".into()) };
    }
    serde_json::from_slice(bytes).map_err(|e| format!("Request body is not valid JSON: {e}"))
}

/// Defines, in a service's API crate, the extractors its routes read a request with: `Body` (the
/// body, whole, under [`body_limit`]), `Segment` (the route's one path segment, percent-decoded)
/// and `json_body` (the body as JSON), each refusing in the service's error `$error`, which
/// has `with_status(StatusCode, String)` and `bad_request(String)`.
#[macro_export]
macro_rules! extractors {
    ($error:ty) => {
        pub use $crate::body::body_limit;

        /// A request body, whole.
        pub struct Body(pub ::axum::body::Bytes);

        impl<S: Send + Sync> ::axum::extract::FromRequest<S> for Body {
            type Rejection = $error;

            async fn from_request(req: ::axum::extract::Request, state: &S) -> Result<Self, $error> {
                $crate::body::read_body(req, state).await.map(Body).map_err(|(status, message)| <$error>::with_status(status, message))
            }
        }

        /// The route's one path segment, percent-decoded.
        pub struct Segment(pub String);

        impl<S: Send + Sync> ::axum::extract::FromRequestParts<S> for Segment {
            type Rejection = $error;

            async fn from_request_parts(parts: &mut ::axum::http::request::Parts, state: &S) -> Result<Self, $error> {
                $crate::body::path_segment(parts, state)
                    .await
                    .map(Segment)
                    .map_err(|(status, message)| <$error>::with_status(status, message))
            }
        }

        /// The body as JSON ([`agora_http::body::json_body`]).
        pub fn json_body(bytes: &::axum::body::Bytes, allow_empty: bool) -> Result<::serde_json::Value, $error> {
            $crate::body::json_body(bytes, allow_empty).map_err(<$error>::bad_request)
        }
    };
}

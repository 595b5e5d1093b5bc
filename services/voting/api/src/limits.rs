//! Limits on a request's head, answered in the service's JSON error shape: a URI longer than
//! [`MAX_URI_BYTES`] is a 414, more than [`MAX_HEADERS`] headers or more than
//! [`MAX_HEADER_BYTES`] of them a 431. The HTTP server's own limits sit above these (hyper
//! answers a head beyond 100 headers or its read buffer itself, without a body), so every head
//! the server can still read and answer gets the JSON error. API Gateway applies its own limits
//! before a function sees the request.

use crate::error::ApiError;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The longest request URI (path and query) taken.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most headers a request may carry.
pub const MAX_HEADERS: usize = 64;
/// The most bytes of header names and values a request may carry.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// Refuses a request whose head is over the limits; passes the others on.
pub async fn check_head(request: Request, next: Next) -> Response {
    let uri = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if uri > MAX_URI_BYTES {
        let message = format!("Request URI is too long: {uri} bytes, the limit is {MAX_URI_BYTES}");
        return ApiError::with_status(StatusCode::URI_TOO_LONG, message).into_response();
    }
    let headers = request.headers();
    let bytes: usize = headers.iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        let message = format!(
            "Request headers are too large: {} headers of {bytes} bytes, the limits are {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes",
            headers.len()
        );
        return ApiError::with_status(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, message).into_response();
    }
    next.run(request).await
}
